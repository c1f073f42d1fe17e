"""Assertions for tests (pytest or unittest): assert_close(y, x, fn, dtype, max_ulp=...)."""
from . import BudgetError, check


def assert_close(y, x, fn='gelu', dtype=None, max_ulp=None, max_mismatch=None, max_abs=None, budget=None,
                 range=None, order=0):
    """Raises AssertionError (gelulab.BudgetError) with `gelulab check`'s lines when y is further from fn at x
    than the budget allows; with no budget given, max_ulp=0. Returns the CheckResult otherwise.

        def test_my_gelu():
            x = torch.linspace(-8, 8, 4097, dtype=torch.bfloat16)
            gelulab.testing.assert_close(my_gelu(x), x, "gelu", "bf16", max_ulp=1)
    """
    if max_ulp is None and max_mismatch is None and max_abs is None and budget is None:
        max_ulp = 0
    return check(x, y, fn=fn, dtype=dtype, budget=budget, max_ulp=max_ulp, max_mismatch=max_mismatch,
                 max_abs=max_abs, range=range, order=order)


__all__ = ['assert_close', 'BudgetError']
