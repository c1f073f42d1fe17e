#!/usr/bin/python3
"""Independent minimax errors for tests/fit/minimax_test.cpp: linear programmes on dense grids.

Run with Debian's interpreter, which has python3-mpmath, python3-numpy and python3-scipy (scipy is needed only
to regenerate the table; CI reads the committed CSV):

    /usr/bin/python3 tests/ref/minimax/make_minimax.py [OUTFILE]   # default: minimax.csv next to this script

Nothing here shares code with the C++ designer: targets come from mpmath (50 digits, rounded to double),
the approximations are solved by scipy's HiGHS LP solver, in a Chebyshev basis of the form's variable for
conditioning.

Linear forms (poly, half_x_poly_abs, even, piecewise): the discrete minimax problem
    minimize t  subject to  -t <= w_i (r_i - sum_k a_k T_k(tau(v_i))) <= t   for every grid point x_i,
with r = g - (0.5 x for the half-x forms), v = x, |x|, x^2 or x - m_j. The grid: 20001 evenly spaced points
on [A, B] (per piece for piecewise), plus 0 and, for the ulp weight, the points on both sides of every x where
the float32 spacing of g changes (the weight jumps there). The problem is solved twice, the second time
with the weights divided by the first optimum, so HiGHS's absolute tolerances (1e-10) are relative to the
level. A discrete optimum is a lower bound of the continuous one; with 20001 points it is below it by
roughly (pi d h / (B - A))^2 / 2 relative (h the grid step), about 1e-6 at degree 12.

Rational P_m/Q_n (abs weight): bisection on the level E (60 halvings of [0, E_poly]) with the feasibility LP
    (g_i - E) Q(x_i) - P(x_i) <= 0,   P(x_i) - (g_i + E) Q(x_i) <= 0,   Q(x_i) >= 1
on 4001 Chebyshev-distributed points (homogeneity lets Q >= 1 stand for Q > 0). The result is the smallest
feasible E found, an upper bound of the discrete optimum within 2^-60 of the bracket.

Output columns:  id,target,form,degree,denominator,pieces,a,b,weight,format,grid,lp_error
"""
import math
import os
import struct
import sys

import mpmath as mp
import numpy as np
from numpy.polynomial import chebyshev as C
from scipy.optimize import linprog

mp.mp.dps = 50

# id, target, form, degree, denominator degree, pieces, a, b, weight, format (of the ulp weight)
CASES = [
    ("gelu_poly4", "gelu", "poly", 4, 0, 1, -3.0, 3.0, "abs", "f64"),
    ("gelu_poly8", "gelu", "poly", 8, 0, 1, -5.0, 5.0, "abs", "f64"),
    ("gelu_poly12", "gelu", "poly", 12, 0, 1, -4.0, 4.0, "abs", "f64"),
    ("gelu_half6", "gelu", "half_x_poly_abs", 6, 0, 1, -4.0, 4.0, "abs", "f64"),
    ("gelu_half10", "gelu", "half_x_poly_abs", 10, 0, 1, -6.0, 6.0, "abs", "f64"),
    ("gelu_half5_asym", "gelu", "half_x_poly_abs", 5, 0, 1, -4.0, 2.0, "abs", "f64"),
    ("gelu_even4", "gelu", "even", 4, 0, 1, -3.0, 3.0, "abs", "f64"),
    ("phi_poly7", "phi", "poly", 7, 0, 1, -4.0, 4.0, "abs", "f64"),
    ("phi_poly6_rel", "phi", "poly", 6, 0, 1, -4.0, 0.0, "rel", "f64"),
    ("erf_poly9", "erf", "poly", 9, 0, 1, -3.0, 3.0, "abs", "f64"),
    ("geluprime_poly8", "gelu_prime", "poly", 8, 0, 1, -4.0, 4.0, "abs", "f64"),
    ("gelu_poly5_rel", "gelu", "poly", 5, 0, 1, 0.5, 4.0, "rel", "f64"),
    ("gelu_poly6_ulp", "gelu", "poly", 6, 0, 1, 0.25, 4.0, "ulp", "f32"),
    ("phi_half6_nonhaar", "phi", "half_x_poly_abs", 6, 0, 1, -4.0, 4.0, "abs", "f64"),
    ("gelu_pw4x3", "gelu", "piecewise", 3, 0, 4, -4.0, 4.0, "abs", "f64"),
    ("gelu_rat3_3", "gelu", "rational", 3, 3, 1, -4.0, 4.0, "abs", "f64"),
    ("gelu_rat4_4", "gelu", "rational", 4, 4, 1, -4.0, 4.0, "abs", "f64"),
    ("erf_rat5_4", "erf", "rational", 5, 4, 1, -3.0, 3.0, "abs", "f64"),
]


def target(name, x):
    x = mp.mpf(x)
    phi = mp.erfc(-x / mp.sqrt(2)) / 2
    if name == "gelu":
        return x * phi
    if name == "phi":
        return phi
    if name == "erf":
        return mp.erf(x / mp.sqrt(2))
    if name == "gelu_prime":
        return phi + x * mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)
    raise ValueError(name)


def f32_spacing(g):
    """Spacing of float32 at the real number g (as gelu::Format::spacing)."""
    e = math.floor(math.log2(abs(g))) if g != 0 else -126
    e = max(e, -126)
    return 2.0 ** (e - 23)


def weights(weight, g):
    if weight == "abs":
        return np.ones_like(g)
    if weight == "rel":
        return 1.0 / np.abs(g)
    return np.array([1.0 / f32_spacing(v) for v in g])


def f32_edges(tname, a, b):
    """x on both sides of every point of [a, b] where the float32 spacing of the target changes."""
    xs = np.linspace(a, b, 4097)
    sp = [f32_spacing(float(target(tname, x))) for x in xs]
    out = []
    for i in range(1, len(xs)):
        if sp[i] != sp[i - 1]:
            lo, hi = float(xs[i - 1]), float(xs[i])
            s_lo = sp[i - 1]
            while True:
                mid = 0.5 * (lo + hi)
                if mid <= lo or mid >= hi:
                    break
                if f32_spacing(float(target(tname, mid))) == s_lo:
                    lo = mid
                else:
                    hi = mid
            out += [lo, hi]
    return out


def variable(form, x, center=0.0):
    if form == "half_x_poly_abs":
        return np.abs(x)
    if form == "even":
        return x * x
    if form == "piecewise":
        return x - center
    return x


def linear_lp(x, r, w, v, n):
    """min t s.t. |w (r - sum a_k T_k(tau(v)))| <= t, twice (rescaled). Returns t."""
    vlo, vhi = float(v.min()), float(v.max())
    tau = (2 * v - vlo - vhi) / (vhi - vlo)
    V = C.chebvander(tau, n - 1)  # N x n
    scale = 1.0
    t = None
    for _ in range(2):
        ws = w / scale
        A = np.vstack([np.hstack([-ws[:, None] * V, -np.ones((len(x), 1))]),
                       np.hstack([ws[:, None] * V, -np.ones((len(x), 1))])])
        bvec = np.concatenate([-ws * r, ws * r])
        cost = np.zeros(n + 1)
        cost[-1] = 1.0
        res = linprog(cost, A_ub=A, b_ub=bvec, bounds=[(None, None)] * n + [(0, None)], method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        assert res.status == 0, res.message
        t = res.fun * scale
        scale = t
    return t


def rational_lp(tname, m, n, a, b, e_hi):
    N = 4001
    x = np.array([0.5 * (a + b) - 0.5 * (b - a) * math.cos(math.pi * i / (N - 1)) for i in range(N)])
    g = np.array([float(target(tname, v)) for v in x])
    tau = (2 * x - a - b) / (b - a)
    P = C.chebvander(tau, m)
    Q = C.chebvander(tau, n)
    lo, hi = 0.0, e_hi
    best = hi
    for _ in range(60):
        E = 0.5 * (lo + hi)
        A = np.vstack([np.hstack([-P, (g - E)[:, None] * Q]),
                       np.hstack([P, -(g + E)[:, None] * Q]),
                       np.hstack([np.zeros_like(P), -Q])])
        bvec = np.concatenate([np.zeros(N), np.zeros(N), -np.ones(N)])
        res = linprog(np.zeros(m + n + 2), A_ub=A, b_ub=bvec, bounds=[(None, None)] * (m + n + 2), method="highs",
                      options={"primal_feasibility_tolerance": 1e-10})
        if res.status == 0:
            best = hi = E
        else:
            lo = E
    return best, N


def run(case):
    cid, tname, form, d, dn, pieces, a, b, weight, fmt = case
    if form == "rational":
        # Upper end of the bisection: the polynomial of degree m + n on the same points (0 denominator freedom).
        xs = np.linspace(a, b, 4001)
        g = np.array([float(target(tname, v)) for v in xs])
        e_poly = linear_lp(xs, g, np.ones_like(g), xs, d + dn + 1)
        e, grid = rational_lp(tname, d, dn, a, b, 2 * e_poly)
        return e, grid
    if form == "piecewise":
        edges = [a + (b - a) * j / pieces for j in range(pieces + 1)]
        worst, grid = 0.0, 0
        for j in range(pieces):
            lo, hi = edges[j], edges[j + 1]
            center = float(np.float64(0.5 * (lo + hi)))
            x = np.linspace(lo, hi, 20001)
            g = np.array([float(target(tname, v)) for v in x])
            worst = max(worst, linear_lp(x, g, weights(weight, g), variable(form, x, center), d + 1))
            grid += len(x)
        return worst, grid
    x = np.linspace(a, b, 20001)
    extra = [0.0] if a < 0 < b else []
    if weight == "ulp":
        extra += f32_edges(tname, a, b)
    x = np.unique(np.concatenate([x, np.array(extra)]))
    g = np.array([float(target(tname, v)) for v in x])
    fixed = 0.5 * x if form in ("half_x_poly_abs", "even") else 0.0
    return linear_lp(x, g - fixed, weights(weight, g), variable(form, x), d + 1), len(x)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "minimax.csv")
    lines = ["# Minimax errors by linear programming on dense grids; generated by tests/ref/minimax/make_minimax.py",
             "id,target,form,degree,denominator,pieces,a,b,weight,format,grid,lp_error"]
    for case in CASES:
        err, grid = run(case)
        cid, tname, form, d, dn, pieces, a, b, weight, fmt = case
        lines.append(f"{cid},{tname},{form},{d},{dn},{pieces},{a!r},{b!r},{weight},{fmt},{grid},{err.hex()}")
        print(lines[-1], file=sys.stderr)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
