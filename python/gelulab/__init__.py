"""GELU Lab from Python: check your kernel's outputs against GELU (and its relatives) in the format it stores.

    import gelulab
    r = gelulab.check(x, y, fn="gelu", dtype="bf16", max_ulp=1)   # NumPy arrays or torch tensors
    r.max_ulp, r.x_at_max, r.mismatch, r.n, r.histogram, r.worst, r.specials

Everything is computed by GELU Lab's C++ core (gelulab._core), the same code as `gelulab check`, `eval` and
`error` on the command line: the messages are the CLI's. Bad input raises ValueError; a broken budget raises
BudgetError (its .result holds the figures).
"""
import json as _json
import os as _os

from . import _core

__all__ = ['check', 'eval', 'error', 'formats', 'zoo', 'BudgetError', 'CheckResult', 'testing']


class BudgetError(AssertionError):
    """A budget of check() does not hold. str() is one line per broken budget, as `gelulab check` prints them
    on stderr; .result is the CheckResult; .broken the (budget, message, worst x) triples."""

    def __init__(self, result):
        self.result = result
        self.broken = result.broken
        super().__init__('\n'.join(m for _, m, _ in result.broken))


class CheckResult:
    """The figures of a check: n, max_ulp, x_at_max, mean_ulp, mismatch, max_abs, x_at_max_abs, histogram
    [(lo, hi, count)], worst [{row, x, y, expected, ulp}], specials {n, mismatch, policy, differ}, budgets,
    verdict ('pass', 'fail', 'no budget'), broken, semantics (what y was compared with)."""

    def __init__(self, d):
        self.__dict__.update(d)

    @property
    def passed(self):
        return not self.broken

    def as_dict(self):
        return dict(self.__dict__)

    def __repr__(self):
        return ('CheckResult(%s in %s: n=%d, max_ulp=%d at x=%r, mismatch=%d, specials=%d/%d differ, %s)'
                % (self.fn, self.dtype, self.n, self.max_ulp, self.x_at_max, self.mismatch,
                   self.specials['mismatch'], self.specials['n'], self.verdict))


def _array(a, what):
    """A NumPy array from a NumPy array, a torch tensor (a bfloat16 tensor through its int16 view: its bit
    patterns, no copy through text) or a sequence."""
    mod = type(a).__module__
    if mod.startswith('torch'):
        import torch
        t = a.detach()
        if t.device.type != 'cpu':
            t = t.cpu()
        if t.dtype == torch.bfloat16:
            return t.contiguous().view(torch.int16).numpy()
        return t.contiguous().numpy()
    import numpy as np
    return np.asarray(a)


def _dtype_name(dtype, a):
    if dtype is not None:
        return str(dtype)
    mod = type(a).__module__
    if mod.startswith('torch'):
        import torch
        names = {torch.bfloat16: 'bf16', torch.float16: 'f16', torch.float32: 'f32', torch.float64: 'f64'}
        if a.dtype in names:
            return names[a.dtype]
    else:
        import numpy as np
        names = {np.dtype('float16'): 'f16', np.dtype('float32'): 'f32', np.dtype('float64'): 'f64'}
        d = np.asarray(a).dtype
        if d in names:
            return names[d]
    raise ValueError('dtype: give dtype= (f64, f32, bf16, f16, e4m3, e5m2) for arrays of %s' % type(a).__name__)


def check(x, y, fn='gelu', dtype=None, budget=None, max_ulp=None, max_mismatch=None, max_abs=None, range=None,
          order=0, compute=None, raise_on_failure=True):
    """Compares y with fn at x in the format dtype, like `gelulab check`: for a registry function its
    correctly rounded value, for a zoo entry the entry as shipped in its compute format.

    x, y: NumPy arrays or torch tensors of the same length (any shape, read in C order): float16/32/64 values,
    or bit patterns (uint16/int16 for bf16 and f16, uint8/int8 for e4m3/e5m2; a bf16 tensor is read through
    its int16 view). dtype: the format (default: the tensor's). budget: a dict or JSON text in the budget-file
    format of `gelulab check --budget` ({"max_ulp": 1, "ranges": [...], "specials": "exact"}) or the path of
    such a file. max_ulp, max_mismatch (N or "P%"), max_abs: as the CLI's options. range: (A, B) compares only
    x in [A, B]. Returns a CheckResult; raises BudgetError when a budget is broken (unless
    raise_on_failure=False) and ValueError for bad input (no pairs at all included)."""
    name = _dtype_name(dtype, y)
    xa, ya = _array(x, 'x'), _array(y, 'y')
    budget_json, budget_name = '', ''
    if budget is not None:
        if isinstance(budget, dict):
            budget_json, budget_name = _json.dumps(budget), 'budget'
        elif isinstance(budget, str) and not budget.lstrip().startswith('{'):
            with open(budget) as f:
                budget_json = f.read()
            budget_name = "--budget '%s'" % budget
        else:
            budget_json, budget_name = str(budget), 'budget'
    if range is not None:
        range = (float(range[0]), float(range[1]))
    r = CheckResult(_core.check(xa, ya, fn, name, int(order), range, budget_json, budget_name, max_ulp,
                                max_mismatch, max_abs, compute))
    if r.broken and raise_on_failure:
        raise BudgetError(r)
    return r


def eval(fn, x, dtype='f32', order=0):
    """fn (order 0: f, 1: f') at x rounded to dtype: a registry function correctly rounded, a zoo entry as
    shipped in its compute format. Returns a float64 NumPy array of values of dtype."""
    import numpy as np
    xa = np.asarray(_array(x, 'x'), dtype=np.float64).ravel()
    return _core.eval(fn, xa, str(dtype), int(order))


def error(fn, vs='gelu', dtype='f32', all=False, range=None, samples=100001, order=0):
    """The error of fn against the registry function vs in dtype, like `gelulab error`: a dict with n and
    'abs', 'rel', 'ulp' ({max, x_at_max, mean, mismatch, nonfinite}); all=True: every value of an 8- or
    16-bit format, with the precision lab's verdict."""
    if range is not None:
        range = (float(range[0]), float(range[1]))
    return _core.error(fn, vs, str(dtype), bool(all), range, int(samples), int(order))


def formats():
    """The number formats: a list of dicts (name, title, description, bits, exponent_bits, fraction_bits, ...)."""
    return _core.formats()


def zoo():
    """The approximation zoo: a list of dicts (id, name, formula, used_in, citation, has_derivative)."""
    return _core.zoo()


from . import testing  # noqa: E402  (testing uses check)
