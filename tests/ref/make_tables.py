#!/usr/bin/python3
"""Reference tables for tests/core/accuracy_test.cpp, computed with mpmath.

Run with Debian's interpreter, which has python3-mpmath:

    /usr/bin/python3 tests/ref/make_tables.py [OUTDIR]      # OUTDIR defaults to this script's folder

One CSV per registry function, `<id>.csv`, with the registry's default parameters:

    x,f,d1,d2        every field a C99 hex float (exact); f, d1, d2 are the exact values rounded once
                     to the nearest double (ties to even; subnormals and the signed zero included)

The x grid: a dense float32-representable grid on [-10, 10], random doubles in [-10, 10], the negative
tail down to where GELU underflows in double (~-38.5; float underflows ~-14.2, inside the grid),
the positive tail to 1e6, the neighbourhood of GELU's minimum, and special points (zeros,
subnormals, FLT_MIN, DBL_MIN, FLT_MAX). Rows whose x is a float32 also serve the float tests.

Cancellation: 1 - sigma(z) is written sigma(-z) and 1 - tanh^2 as sech^2, because at large x these
differences are far below any working precision (they would be 0 at both precisions and pass the check
below). Correct rounding: every value is computed at 192 bits and again at 384 bits; when the two round to
different doubles (cancellation, e.g. Phi(x) + x phi(x) deep in the tail) the precision keeps doubling
until two successive precisions agree. mpf -> double goes through fractions.Fraction, whose float()
is correctly rounded, subnormals included (mpmath's own float() truncates).
"""
import os
import random
import struct
import sys
from fractions import Fraction

import mpmath as mp

# Parameters exactly as the registry stores them (doubles), so the table is of the same function.
C_TANH = 0.044715
K_QUICK = 1.702
ALPHA_LEAKY = 0.01
ALPHA_ELU = 1.0
BETA_SILU = 1.0
BETA_SOFTPLUS = 1.0


def f32(v):
    return struct.unpack('<f', struct.pack('<f', v))[0]


def to_double(v):
    """mpf -> nearest double, ties to even, keeping the sign of zero."""
    if mp.isnan(v):
        return float('nan')
    if mp.isinf(v):
        return float('inf') if v > 0 else float('-inf')
    if v == 0:
        return 0.0
    sign, man, exp, bc = mp.mpf(v)._mpf_  # |v| = man * 2^exp, 2^(bc-1) <= man < 2^bc
    top = exp + bc
    if top > 1100:
        d = float('inf')
    elif top < -1100:
        d = 0.0
    else:
        d = float(Fraction(int(man)) * (Fraction(2) ** exp))
    return -d if sign else d


def hexf(d):
    """Shortest C99 hex float (trailing zero nibbles dropped)."""
    if d != d:
        return 'nan'
    if d in (float('inf'), float('-inf')):
        return 'inf' if d > 0 else '-inf'
    h = d.hex()  # e.g. -0x1.8000000000000p+1
    mant, e = h.split('p')
    if '.' in mant:
        mant = mant.rstrip('0').rstrip('.')
    return mant + 'p' + e


# [SECTION] The functions, in closed form (derivatives derived by hand and checked against mp.diff below).

def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def phi(x):
    return mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)


def sig(z):
    return 1 / (1 + mp.exp(-z))


def gelu(x):
    return [x * Phi(x), Phi(x) + x * phi(x), phi(x) * (2 - x * x)]


def gelu_tanh(x):
    c = mp.mpf(C_TANH)
    a = mp.sqrt(2 / mp.pi)
    u = a * (x + c * x ** 3)
    du = a * (1 + 3 * c * x * x)
    ddu = a * 6 * c * x
    s = sig(2 * u)
    q = s * sig(-2 * u)  # 1 - s written without cancellation (it is e^-2u for large u)
    # f = x s(2u); s' = 2 q u'; q' = 2 q u' (1 - 2 s)
    return [x * s, s + 2 * x * q * du, 4 * q * du + 4 * x * q * du * du * (sig(-2 * u) - s) + 2 * x * q * ddu]


def x_sigmoid(k):
    k = mp.mpf(k)

    def fn(x):
        s, one = sig(k * x), sig(-k * x)
        q = s * one
        return [x * s, s + k * x * q, k * q * (2 + k * x * (one - s))]
    return fn


def relu(x):
    return [x if x > 0 else mp.mpf(0), mp.mpf(1) if x > 0 else mp.mpf(0), mp.mpf(0)]


def leaky_relu(x):
    a = mp.mpf(ALPHA_LEAKY)
    return [x if x > 0 else a * x, mp.mpf(1) if x > 0 else a, mp.mpf(0)]


def elu(x):
    a = mp.mpf(ALPHA_ELU)
    if x > 0:
        return [x, mp.mpf(1), mp.mpf(0)]
    return [a * mp.expm1(x), a * mp.exp(x), a * mp.exp(x)]


SELU_LAMBDA = 1.0507009873554805  # the doubles every framework uses (formulas.hpp)
SELU_ALPHA = 1.6732632423543772


def selu(x):
    la = mp.mpf(SELU_LAMBDA) * mp.mpf(SELU_ALPHA)
    if x > 0:
        return [mp.mpf(SELU_LAMBDA) * x, mp.mpf(SELU_LAMBDA), mp.mpf(0)]
    return [la * mp.expm1(x), la * mp.exp(x), la * mp.exp(x)]


def softplus(x):
    b = mp.mpf(BETA_SOFTPLUS)
    s = sig(b * x)
    return [mp.log1p(mp.exp(b * x)) / b, s, b * s * sig(-b * x)]


def mish(x):
    sp = mp.log1p(mp.exp(x))
    t = mp.tanh(sp)
    s = sig(x)
    sech2 = mp.sech(sp) ** 2  # not 1 - t^2, which cancels to 0 for large x
    return [x * t, t + x * sech2 * s, sech2 * s * (2 + x * (sig(-x) - 2 * t * s))]


FUNCTIONS = {
    'gelu': (gelu, 'family'),
    'gelu_tanh': (gelu_tanh, 'family'),
    'gelu_sigmoid': (x_sigmoid(K_QUICK), 'family'),
    'relu': (relu, 'simple'),
    'leaky_relu': (leaky_relu, 'simple'),
    'elu': (elu, 'other'),
    'selu': (selu, 'other'),
    'silu': (x_sigmoid(BETA_SILU), 'other'),
    'softplus': (softplus, 'other'),
    'mish': (mish, 'other'),
}


def rounded(fn, x):
    """The three values rounded to double, with precision raised until two successive precisions agree."""
    prec = 192
    prev = None
    while True:
        with mp.workprec(prec):
            cur = [to_double(v) for v in fn(mp.mpf(x))]
        if prev is not None and all(struct.pack('<d', a) == struct.pack('<d', b) for a, b in zip(prev, cur)):
            return cur
        prev = cur
        prec *= 2
        if prec > 1 << 16:
            raise RuntimeError('no convergence at x=%r' % x)


# [SECTION] Grids.

def linspace(a, b, n):
    return [a + (b - a) * i / (n - 1) for i in range(n)]


def grid(kind):
    rng = random.Random(20240601)
    dense = 4001 if kind == 'family' else 1001
    xs = [f32(v) for v in linspace(-10.0, 10.0, dense)]
    xs += [rng.uniform(-10.0, 10.0) for _ in range(1000 if kind == 'family' else 300)]
    xs += [f32(v) for v in linspace(-40.0, -10.0, 601 if kind == 'family' else 151)]
    xs += [rng.uniform(-40.0, -10.0) for _ in range(100)]
    xs += [f32(10.0 * (1e5 ** (i / 299))) for i in range(300 if kind == 'family' else 100)]
    if kind == 'family':
        # GELU's minimum (root of f') and its inflection points (roots of f''), densely.
        for centre in (-0.7517916243656965, -1.4142135623730951, 1.4142135623730951):
            xs += [f32(centre + d) for d in linspace(-1e-3, 1e-3, 101)]
            xs += [centre + d for d in linspace(-1e-6, 1e-6, 21)]
        # Where float GELU turns subnormal and then underflows.
        xs += [f32(v) for v in linspace(-14.5, -12.5, 201)]
    specials = [0.0, 5e-324, 2.2250738585072014e-308, 1.401298464324817e-45, 1.1754943508222875e-38, 1e-30,
                1e-8, 1e-4, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 38.5, 40.0, 40.5, 100.0, 1e6, 3.4028234663852886e38]
    xs += specials + [-v for v in specials]
    out, seen = [], set()
    for v in xs:
        key = struct.pack('<d', v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def self_check():
    """The hand-derived derivatives against mpmath's numerical differentiation."""
    with mp.workprec(256):
        for name, (fn, _) in FUNCTIONS.items():
            for x in (-3.7, -0.75, -0.1, 0.3, 1.9, 6.0):
                v = fn(mp.mpf(x))
                d1 = mp.diff(lambda t: fn(t)[0], mp.mpf(x))
                d2 = mp.diff(lambda t: fn(t)[0], mp.mpf(x), 2)
                for got, want in ((v[1], d1), (v[2], d2)):
                    if abs(got - want) > mp.mpf(2) ** -120 * (1 + abs(want)):
                        raise AssertionError('%s derivative mismatch at %r: %s vs %s' % (name, x, got, want))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    self_check()
    for name, (fn, kind) in FUNCTIONS.items():
        xs = grid(kind)
        lines = ['# %s: x, f, f\', f\'\' (exact values rounded to double); generated by tests/ref/make_tables.py'
                 % name, 'x,f,d1,d2']
        for x in xs:
            vals = rounded(fn, x)
            lines.append(','.join([hexf(x)] + [hexf(v) for v in vals]))
        path = os.path.join(outdir, name + '.csv')
        with open(path + '.tmp', 'w') as fh:
            fh.write('\n'.join(lines) + '\n')
        os.replace(path + '.tmp', path)
        print('%s: %d rows' % (path, len(xs)), flush=True)


if __name__ == '__main__':
    main()
