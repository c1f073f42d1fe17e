#!/usr/bin/python3
"""The designer's loop closes (issue 53): fit -> export C++ -> compile -> run over the vectors -> check.

    python3 tests/fit/export_loop_test.py path/to/gelulab [c++ compiler]

For every form (poly, even, half_x_poly_abs, rational, piecewise) x weight (abs, rel, ulp) x format (f32,
bf16, f16): `gelulab fit ... --export-cpp --vectors --json`, a driver that includes the export and writes
NAME(x) for every x of the vectors (rounded to the format, as a kernel that upcasts stores it), compiled
with g++ -O2 and -O3; then
  1. the outputs are the vectors' y, bit for bit (the vectors are what the exported code computes);
  2. the check command the fit printed passes on them (exit 0);
  3. with one coefficient moved by +0.1 % and by -0.1 % (the one whose term is largest on the range; for
     piecewise the constant term of the piece nearest 0), the same check command fails (exit 1) both times:
     it is a real gate, not one that passes anything.
Also: names that are reserved or taken in C++, GLSL or CUDA are refused with a message naming why.
Exit status 0 when everything holds, 1 otherwise (each failure is printed).
"""
import concurrent.futures
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile

GELULAB = sys.argv[1]
CXX = sys.argv[2] if len(sys.argv) > 2 else 'g++'
failures = []

FORMS = {
    'poly': ['--form', 'poly', '--degree', '5'],
    'even': ['--form', 'even', '--degree', '3'],
    'half_x_poly_abs': ['--form', 'half_x_poly_abs', '--degree', '5'],
    'rational': ['--form', 'rational', '--degree', '3,2'],
    'piecewise': ['--form', 'piecewise', '--degree', '3', '--pieces', '4'],
}
# Relative and ULP errors need a range without GELU's zero at x = 0.
RANGES = {'abs': '-4:4', 'rel': '0.25:4', 'ulp': '0.25:4'}
FORMATS = ['f32', 'bf16', 'f16']

DRIVER = r'''
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include "k.hpp"
#include "km.hpp"
#include "kp.hpp"
// Rounds a float to the format, to nearest with ties to even (what a kernel that upcasts stores).
static float to_format(float v, int fraction_bits, int emin, double max_finite) {
  if (fraction_bits == 23 || std::isnan(v)) return v;
  if (fraction_bits == 7) {  // bfloat16: the top half of the float's bits
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    std::memcpy(&v, &u, 4);
    return v;
  }
  const double a = std::fabs(static_cast<double>(v));
  if (a == 0 || std::isinf(a)) return v;
  const int e = std::max(static_cast<int>(std::floor(std::log2(a))), emin);
  const double q = std::ldexp(1.0, e - fraction_bits);
  double r = std::nearbyint(static_cast<double>(v) / q) * q;
  if (std::fabs(r) > max_finite) r = std::copysign(INFINITY, r);
  return static_cast<float>(r);
}
int main(int argc, char** argv) {
  std::FILE* in = std::fopen(argv[1], "r");
  const int fb = std::atoi(argv[2]), emin = std::atoi(argv[3]);
  const double maxf = std::atof(argv[4]);
  float (*const fns[])(float) = {NAME, NAMEP, NAMEM};  // the export, and with a coefficient moved + and -
  float (*const fn)(float) = fns[std::atoi(argv[5])];
  float x, y;
  while (std::fscanf(in, "%f %f", &x, &y) == 2) std::printf("%.9g %.9g\n", x, to_format(fn(x), fb, emin, maxf));
  return 0;
}
'''
FORMAT_ARGS = {'f32': ['23', '-126', '3.4028234663852886e38'], 'bf16': ['7', '-126', '3.3895313892515355e38'],
               'f16': ['10', '-14', '65504']}


def fail(what):
    failures.append(what)
    print('FAIL:', what)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def f32(text):
    """The float a decimal text reads to (both files hold float values; their texts differ in digits)."""
    return struct.unpack('f', struct.pack('f', float(text)))[0]


def c_hex(v):
    """A float's C hex literal as the export writes it (%a, trailing zeros dropped, f suffix)."""
    m, e = float.hex(v).split('p')
    m = m.rstrip('0').rstrip('.')
    return m + 'p' + e + 'f'


def perturb_index(j):
    """The coefficient whose term is largest on the range (so moving it by 0.1 % moves the output most)."""
    c = j['coefficients']
    a, b = j['range']
    r = max(abs(a), abs(b))
    form = j['form']
    if form == 'piecewise':
        # The constant term of the piece nearest 0, where a format's values are densest (bf16 and f16 have
        # as many between 1/128 and 1/64 as between 2 and 4).
        n = j['degree'] + 1
        centers = j['centers']
        k = min(range(len(centers)), key=lambda i: min(abs(j['breakpoints'][i]), abs(j['breakpoints'][i + 1]),
                                                          abs(centers[i])))
        return k * n
    if form == 'rational':
        n = j['degree'][0] + 1
        return max(range(n), key=lambda i: abs(c[i]) * r ** i)  # a numerator coefficient
    t = r * r if form == 'even' else r
    return max(range(len(c)), key=lambda i: abs(c[i]) * t ** i)


def one_case(d, form, weight, fmt):
    tag = '%s_%s_%s' % (form, weight, fmt)
    w = os.path.join(d, tag)
    os.makedirs(w)
    hpp, vec = os.path.join(w, 'k.hpp'), os.path.join(w, 'v.txt')
    r = run([GELULAB, 'fit'] + FORMS[form] + ['--range', RANGES[weight], '--weight', weight, '--format', fmt,
                                              '--name', 'NAME', '--export-cpp', hpp, '--vectors', vec, '--json'])
    if r.returncode != 0:
        return ['%s: fit exit %d: %s' % (tag, r.returncode, r.stderr.strip())]
    j = json.loads(r.stdout)
    check = shlex.split(j['check'])
    assert check[:2] == ['gelulab', 'check']
    errs = []
    # A coefficient moved by +0.1 % and by -0.1 % (kp.hpp, km.hpp: NAMEP, NAMEM), compiled with the export
    # into one driver, so each optimization level is one compile.
    i = perturb_index(j)
    with open(hpp) as f:
        src = f.read()
    old = j['coefficients_hex'][i] + 'f'
    at = src.find(old, src.find('#pragma once'))
    if at < 0:
        return ['%s: coefficient %d (%s) not found in the export' % (tag, i, old)]
    moved = {}
    for sign, suffix in ((+1, 'P'), (-1, 'M')):
        moved[suffix] = c_hex(float(struct.unpack('f', struct.pack('f', j['coefficients'][i] * (1 + sign * 0.001)))[0]))
        with open(os.path.join(w, 'k%s.hpp' % suffix.lower()), 'w') as f:
            f.write((src[:at] + moved[suffix] + src[at + len(old):]).replace('NAME', 'NAME' + suffix))
    drv = os.path.join(w, 'driver.cpp')
    with open(drv, 'w') as f:
        f.write(DRIVER)
    with open(vec) as f:
        vectors = f.read()
    ref = [tuple(f32(t) for t in line.split()) for line in vectors.splitlines()]

    def outputs(exe, variant):
        o = run([exe, vec] + FORMAT_ARGS[fmt] + [str(variant)])
        out = os.path.join(w, 'out_%s_%d.txt' % (os.path.basename(exe), variant))
        with open(out, 'w') as f:
            f.write(o.stdout)
        return o.stdout, out

    def printed_check(out):
        return run([GELULAB] + [a if a != 'your_outputs.txt' else out for a in check[1:]])

    moved_results = []
    for opt in ('-O2', '-O3'):
        exe = os.path.join(w, 'k' + opt)
        c = run([CXX, '-std=c++17', opt, '-I', w, drv, '-o', exe])
        if c.returncode != 0:
            errs.append('%s %s: does not compile: %s' % (tag, opt, c.stderr[:2000]))
            continue
        text, out = outputs(exe, 0)
        mine = [tuple(f32(t) for t in line.split()) for line in text.splitlines()]
        diff = sum(1 for a, b in zip(mine, ref) if a != b)
        if len(mine) != len(ref) or diff:
            errs.append('%s %s: the exported code differs from its vectors in %d of %d rows'
                        % (tag, opt, diff, len(ref)))
        k = printed_check(out)
        if k.returncode != 0:
            errs.append('%s %s: the printed check (%s) exits %d on the exported code: %s'
                        % (tag, opt, j['check'], k.returncode, k.stderr.strip()))
        if opt == '-O2':  # the moved coefficients fail it
            for variant, suffix, sign in ((1, 'P', +1), (2, 'M', -1)):
                k = printed_check(outputs(exe, variant)[1])
                moved_results.append(k)
                if k.returncode != 1:
                    errs.append('%s: coefficient %d moved by %+.1f%% (%s -> %s) still passes the printed check '
                                '(%s): exit %d' % (tag, i, sign * 0.1, old, moved[suffix], j['check'], k.returncode))
    if moved_results:
        print('%-28s %-90s moved c[%d]: %s' % (tag, ' '.join(check[2:]), i,
                                              moved_results[0].stderr.strip().split('\n')[0][:70]))
    return errs


def names():
    for name, why in [('nullptr', 'C++ keyword'), ('and', 'C++ keyword'), ('constexpr', 'C++ keyword'),
                      ('std', '<cmath>'), ('size_t', '<cmath>'), ('NAN', '<cmath>'), ('M_PI', '<cmath>'),
                      ('input', 'GLSL'), ('sample', 'GLSL'), ('half', 'GLSL'), ('shared', 'GLSL'),
                      ('threadIdx', 'CUDA'), ('a__b', '__'), ('gl_x', 'gl_'), ('9x', 'not an identifier')]:
        r = run([GELULAB, 'fit', '--form', 'poly', '--degree', '3', '--range', '-4:4', '--name', name])
        if r.returncode != 2 or why not in r.stderr or ("'%s'" % name) not in r.stderr:
            fail('--name %s: exit %d, %r (expected exit 2 naming %s)' % (name, r.returncode, r.stderr, why))
    r = run([GELULAB, 'fit', '--form', 'poly', '--degree', '3', '--range', '-4:4', '--name', 'my_gelu', '--json'])
    if r.returncode != 0:
        fail('--name my_gelu refused: %s' % r.stderr)


def main():
    names()
    with tempfile.TemporaryDirectory() as d:
        cases = [(f, w, t) for f in FORMS for w in ('abs', 'rel', 'ulp') for t in FORMATS]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            for errs in pool.map(lambda c: one_case(d, *c), cases):
                for e in errs:
                    fail(e)
    print('%d failure(s)' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
