#!/usr/bin/python3
"""gelulab check on (x, y) pairs produced by a real framework: PyTorch's F.gelu on the CPU.

Run by CTest (tests/cli/CMakeLists.txt) only when cmake/GeluOptional.cmake found a python that imports torch
(GELU_TORCH_PYTHON); without one the test does not exist and the configure says so in one line.

    python3 tests/cli/torch_check_test.py path/to/gelulab

What it checks, for F.gelu exact and approximate='tanh' in float32 and bfloat16 (float16 too, when this
torch has a CPU kernel for it; torch 1.13 has none, and the script says so):
  1. a control: GELU computed by torch in float64 and rounded once to the dtype is within 1 ULP of gelulab's
     correctly rounded value for every x >= -5 (where float64's naive erf form is still accurate);
  2. torch's own results, read by `check` from .npy files (two 1-D arrays, bfloat16 as uint16 bit patterns;
     an (N, 2) array) and from text: the pair count, the JSON shape, and --max-ulp's exit status agreeing
     with the reported maximum; on x >= 0 (away from the subnormal outputs) the error is small;
  3. the measured figures are printed (ctest -V), e.g. how far torch's bfloat16 tanh form is off on the
     negative lobe.
Exit status 0 when everything holds, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

GELULAB = sys.argv[1]
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


def check(args, max_ulp=None):
    cmd = [GELULAB, 'check'] + args + ['--json']
    if max_ulp is not None:
        cmd += ['--max-ulp', str(max_ulp)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode not in (0, 1) or not r.stdout:
        failures.append('%s: status %d, %s' % (' '.join(cmd), r.returncode, r.stderr.strip()))
        print('FAIL:', failures[-1])
        return None, r.returncode
    return json.loads(r.stdout), r.returncode


def bits(t):
    """A bfloat16 tensor as its uint16 bit patterns (the usual way to save one with NumPy)."""
    return t.view(torch.int16).numpy().view(np.uint16)


def save_pair(d, dtype_name, x, y, tag):
    px, py = os.path.join(d, tag + '_x.npy'), os.path.join(d, tag + '_y.npy')
    if dtype_name == 'bf16':
        np.save(px, bits(x))
        np.save(py, bits(y))
    else:
        np.save(px, x.numpy())
        np.save(py, y.numpy())
    return ['--x', px, '--y', py]


def inputs(dtype):
    """Every finite bfloat16 value, and for float32 also a dense grid of [-12, 12]."""
    allb = torch.arange(-2 ** 15, 2 ** 15, dtype=torch.int32).to(torch.int16).view(torch.bfloat16)
    xb = allb[torch.isfinite(allb.float())]
    if dtype == torch.bfloat16:
        return xb
    if dtype == torch.float16:
        allh = torch.arange(-2 ** 15, 2 ** 15, dtype=torch.int32).to(torch.int16).view(torch.float16)
        return allh[torch.isfinite(allh.float())]
    return torch.cat([torch.linspace(-12, 12, 200001, dtype=torch.float32), xb.float()])


def main():
    print('torch', torch.__version__, '| gelulab', GELULAB)
    dtypes = [('f32', torch.float32), ('bf16', torch.bfloat16), ('f16', torch.float16)]
    with tempfile.TemporaryDirectory() as d:
        for name, dtype in dtypes:
            x = inputs(dtype)
            for approximate, fn in (('none', 'gelu'), ('tanh', 'gelu_tanh')):
                try:
                    y = F.gelu(x, approximate=approximate)
                except RuntimeError as e:
                    print('%s %s: F.gelu has no CPU kernel for %s in torch %s (%s): not checked'
                          % (name, approximate, dtype, torch.__version__, str(e).splitlines()[0]))
                    continue
                tag = '%s_%s' % (name, approximate)
                # 1. Control: float64 rounded once to the dtype.
                ctrl = x[x.float() >= -5]
                yc = F.gelu(ctrl.double(), approximate=approximate).to(dtype)
                j, _ = check(['--fn', fn, '--dtype', name] + save_pair(d, name, ctrl, yc, tag + '_ctrl'))
                if j:
                    expect(j['max_ulp'] <= 1, '%s control: float64 rounded once is %s ULP off at x = %s'
                           % (tag, j['max_ulp'], j['x_at_max']))
                # 2. torch's own results, all of them: .npy columns, and consistency of --max-ulp.
                j, status = check(['--fn', fn, '--dtype', name] + save_pair(d, name, x, y, tag), max_ulp=1)
                if not j:
                    continue
                expect(j['n'] == x.numel(), '%s: n = %s, expected %d' % (tag, j['n'], x.numel()))
                expect(set(j) >= {'n', 'max_ulp', 'x_at_max', 'mean_ulp', 'mismatch', 'histogram', 'worst'},
                       '%s: JSON keys %s' % (tag, sorted(j)))
                expect(sum(h['count'] for h in j['histogram']) == j['n'], '%s: histogram does not sum to n' % tag)
                expect(len(j['worst']) == min(10, j['mismatch']), '%s: %d worst for %d mismatches'
                       % (tag, len(j['worst']), j['mismatch']))
                expect(status == (1 if j['max_ulp'] > 1 else 0), '%s: exit %d with max_ulp %s and --max-ulp 1'
                       % (tag, status, j['max_ulp']))
                print('%-10s all %7d pairs: max %10d ULP at x = %-12.6g mean %10.4g ULP, %6d mismatches (%.3g%%)'
                      % (tag, j['n'], j['max_ulp'], j['x_at_max'], j['mean_ulp'], j['mismatch'],
                         100.0 * j['mismatch'] / j['n']))
                # On x >= 1e-30 (no subnormal outputs, no negative lobe) torch is close to correctly rounded.
                m = x.float() >= 1e-30
                jp, _ = check(['--fn', fn, '--dtype', name] + save_pair(d, name, x[m], y[m], tag + '_pos'))
                if jp:
                    print('%-10s x >= 1e-30 %7d pairs: max %d ULP at x = %.6g, %d mismatches'
                          % (tag, jp['n'], jp['max_ulp'], jp['x_at_max'], jp['mismatch']))
                    expect(jp['max_ulp'] <= 16, '%s: %s ULP on x >= 1e-30' % (tag, jp['max_ulp']))
                # The same pairs as one (N, 2) float array and as text, for the smaller sets.
                if name != 'f32':
                    pp = os.path.join(d, tag + '_pairs.npy')
                    np.save(pp, torch.stack([x.float(), y.float()], 1).numpy())
                    j2, _ = check(['--fn', fn, '--dtype', name, '--pairs', pp])
                    # The figures alike (j ran with --max-ulp 1, so its budgets and verdict are its own).
                    figures = lambda r: {k: v for k, v in r.items() if k not in ('budgets', 'verdict', 'broken')}
                    expect(j2 is not None and figures(j2) == figures(j),
                           '%s: the (N, 2) array reads differently' % tag)
                    pt = os.path.join(d, tag + '_pairs.txt')
                    with open(pt, 'w') as fh:
                        fh.write('x,y\n')
                        for a, b in zip(x.float().tolist(), y.float().tolist()):
                            fh.write('%r,%r\n' % (a, b))
                    j3, _ = check(['--fn', fn, '--dtype', name, '--pairs', pt])
                    expect(j3 is not None and {k: j3[k] for k in ('n', 'max_ulp', 'mismatch')}
                           == {k: j[k] for k in ('n', 'max_ulp', 'mismatch')}, '%s: the text file reads differently' % tag)
    if failures:
        print('%d failure(s)' % len(failures))
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
