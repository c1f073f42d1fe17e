#!/usr/bin/python3
"""Reference table for tests/core/zoo_test.cpp: every built-in entry of the approximation zoo with a
published formula, evaluated independently of the C++ (mpmath, exact integers, NumPy's float16).

Run with Debian's interpreter, which has python3-mpmath and python3-numpy:

    /usr/bin/python3 tests/ref/make_zoo_table.py [OUTDIR]     # OUTDIR defaults to this script's folder

Writes zoo.csv:

    id,x,f,d1      x, f and f' as C99 hex floats; d1 empty where the entry has no derivative

What each row is:
  - formula entries (tanh_form, sigmoid_form, erf_naive, erfc_form, erf_as7126, hgelu, pwl32/64/256, bolt,
    puma): the formula with the entry's constants (the same doubles the C++ uses), evaluated in mpmath at
    100 digits and rounded to double. The C++ entry evaluated in f64 must agree to a few ULP (it rounds
    every intermediate);
  - f16_lut (ggml): the tanh form as ggml writes it, at the input rounded to float then to float16 by
    NumPy, each operation in NumPy float32 (IEEE single) and tanhf as mpmath's tanh rounded to float32, the
    result rounded to float16 (the table stores f16 of a float computation); the C++ table must be within
    one f16 ULP;
  - ibert: I-BERT's i-GELU (Kim et al. 2021, Algorithm 2) written again from the paper with Python's exact
    integers and the scales' floors in double: the C++ integer form must agree exactly.
The fitted entries (tanh_fit_c, tanh_fit_ac, sigmoid_fit_k) have constants the C++ computes; they are tested
against double formulas in zoo_test.cpp instead.
"""
import math
import os
import sys
from fractions import Fraction

import mpmath as mp
import numpy as np

mp.mp.dps = 100

SQRT_2_OVER_PI = 0.7978845608028654  # the shipped kernels' spelling of sqrt(2/pi)
INV_SQRT2 = 0.7071067811865476
INV_SQRT2PI = 0.3989422804014327
C_TANH = 0.044715
K_SIG = 1.702


def to_double(v):
    if v == 0:
        return 0.0
    sign, man, exp, bc = mp.mpf(v)._mpf_
    d = float(Fraction(int(man)) * (Fraction(2) ** exp))
    return -d if sign else d


def hexf(d):
    if d != d:
        return 'nan'
    h = float(d).hex()
    mant, e = h.split('p')
    if '.' in mant:
        mant = mant.rstrip('0').rstrip('.')
    return mant + 'p' + e


def M(v):
    return mp.mpf(v)


def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


# [SECTION] Formula entries: (f, f') in mpmath.

def tanh_form(x):
    b, c = M(SQRT_2_OVER_PI), M(C_TANH)
    t = mp.tanh(b * (x + c * x ** 3))
    return x / 2 * (1 + t), (1 + t) / 2 + x / 2 * (1 - t * t) * b * (1 + 3 * c * x * x)


def sigmoid_form(x):
    k = M(K_SIG)
    s = 1 / (1 + mp.exp(-k * x))
    return x * s, s + x * k * s * (1 - s)


def d1_from_cdf(x, cdf):
    return cdf + x * M(INV_SQRT2PI) * mp.exp(-x * x / 2)


def erf_naive(x):
    cdf = (1 + mp.erf(x * M(INV_SQRT2))) / 2
    return x * cdf, d1_from_cdf(x, cdf)


def mx_gelu(x):
    # microxcaling: x * sigmoid(1.59375 * (x + 0.044677734375 * x^3)); its backward's constant 0.21386719.
    k, c = M(1.59375), M(0.044677734375)
    phi = 1 / (mp.exp(-k * (x + c * x ** 3)) + 1)
    return x * phi, phi + x * (k + M(0.21386719) * x * x) * phi * (1 - phi)


def cutlass_gelu(x):
    cdf = (1 + mp.erf(x / M(1.4142135623730951))) / 2
    return x * cdf, d1_from_cdf(x, cdf)


def cutlass_gelu_taylor(x):
    b, c = M(SQRT_2_OVER_PI), M(C_TANH)
    return x / 2 * (1 + mp.tanh(b * x * (1 + c * x * x))), None


# CUTLASS's poly11_gelu (CuTeDSL dense_gemm_fp8_gelu_persistent.py): the constants as the doubles it writes.
POLY11 = [0.39639100184010506, -0.06247543670746915, 0.0077960139440769235, -0.000606554913963472,
          2.5871031157700182e-05, -4.5557832301351553e-07]


def cutlass_gelu_poly11(x):
    z = min(max(x, M(-3.5)), M(3.5))
    p = sum(M(c) * z ** (2 * k + 1) for k, c in enumerate(POLY11))
    dp = sum((2 * k + 1) * M(c) * z ** (2 * k) for k, c in enumerate(POLY11))
    raw = M(0.5) + p
    cdf = min(max(raw, M(0)), M(1))
    flat = abs(x) > 3.5 or raw != cdf
    return x * cdf, cdf + (0 if flat else x * dp)


def erfc_form(x):
    cdf = mp.erfc(-x * M(INV_SQRT2)) / 2
    return x * cdf, d1_from_cdf(x, cdf)


def erf_as(z):
    p = M(0.3275911)
    a = [M(0.254829592), M(-0.284496736), M(1.421413741), M(-1.453152027), M(1.061405429)]
    t = 1 / (1 + p * abs(z))
    poly = sum(a[k] * t ** (k + 1) for k in range(5))
    y = 1 - poly * mp.exp(-z * z)
    return -y if z < 0 else y


def erf_as7126(x):
    cdf = (1 + erf_as(x * M(INV_SQRT2))) / 2
    return x * cdf, d1_from_cdf(x, cdf)


def hgelu(x):
    k = M(K_SIG)
    z = k * x + 3
    r = min(max(z, M(0)), M(6))
    d = M(0) if z <= 0 else (M(1) if z >= 6 else (k * x + z) / 6)
    return x * r / 6, d


def pwl(n, a=8.0):
    def fn(x):
        if x <= -a:
            return M(0), M(0)
        if x >= a:
            return x, M(1)
        h = M(2 * a) / n
        i = min(int(mp.floor((x + a) / h)), n - 1)
        x0, x1 = -a + h * i, -a + h * (i + 1)
        y0, y1 = x0 * Phi(x0), x1 * Phi(x1)
        s = (y1 - y0) / (x1 - x0)
        return y0 + s * (x - x0), s
    return fn


BOLT = [0.001620808531841547, -0.03798164612714154, 0.5410550166368381, -0.18352506127082727,
        0.020848611754127593]


def bolt(x):
    if x < -2.7:
        return M(0), M(0)
    if x > 2.7:
        return x, M(1)
    t = abs(x)
    p = sum(M(BOLT[k]) * t ** k for k in range(5))
    dp = sum(k * M(BOLT[k]) * t ** (k - 1) for k in range(1, 5))
    return x / 2 + p, M(0.5) + (dp if x >= 0 else -dp)


PUMA_A = [-0.5054031199708174, -0.42226581151983866, -0.11807612951181953, -0.011034134030615728]
PUMA_B = [0.008526321541038084, 0.5, 0.3603292692789629, 0.0, -0.037688200365904236, 0.0, 0.0018067462606141187]


def puma(x):
    if x < -4:
        return M(0), M(0)
    if x > 3:
        return x, M(1)
    c = PUMA_A if x < -1.95 else PUMA_B
    f = sum(M(c[k]) * x ** k for k in range(len(c)))
    d = sum(k * M(c[k]) * x ** (k - 1) for k in range(1, len(c)))
    return f, d


# [SECTION] ggml's f16 table and I-BERT's integer i-GELU.

def f16_lut(x):
    xf = np.float32(x)
    if xf <= -10:
        return M(0), None
    if xf >= 10:
        return M(float(xf)), None
    f = np.float32
    h = f(np.float16(xf))
    inner = (f(SQRT_2_OVER_PI) * h) * (f(1) + (f(C_TANH) * h) * h)
    t = f(to_double(mp.tanh(M(float(inner)))))
    v = (f(0.5) * h) * (f(1) + t)
    return M(float(np.float16(v))), None


def ibert(x):
    a, b, c = -0.2888, -1.769, 1.0
    S = 2.0 ** -10
    q = int(min(max(round_half_even(x / S), -2 ** 31), 2 ** 31 - 1))
    Se = S / math.sqrt(2.0)
    sgn = (q > 0) - (q < 0)
    qa = min(abs(q), math.floor(-b / Se))
    q_b = math.floor(b / Se)
    q_c = math.floor(c / (a * Se * Se))
    S_erf = a * Se * Se
    q_erf = sgn * ((qa + q_b) ** 2 + q_c)
    q_1 = math.floor(1.0 / S_erf)
    q_out = q * (q_erf + q_1)
    S_out = S * S_erf / 2.0
    return M(float(q_out) * S_out), None


def round_half_even(v):
    return float(round(v))  # Python's round() of a float is to nearest, ties to even


ENTRIES = {
    'tanh_form': tanh_form, 'sigmoid_form': sigmoid_form, 'erf_naive': erf_naive, 'erfc_form': erfc_form,
    'erf_as7126': erf_as7126, 'hgelu': hgelu, 'pwl32': pwl(32), 'pwl64': pwl(64), 'pwl256': pwl(256),
    'bolt': bolt, 'puma': puma, 'f16_lut': f16_lut, 'ibert': ibert,
    'mx_gelu': mx_gelu, 'cutlass_gelu': cutlass_gelu, 'cutlass_gelu_taylor': cutlass_gelu_taylor,
    'cutlass_gelu_poly11': cutlass_gelu_poly11,
}


def grid():
    xs = [float(np.float32(-12 + 24 * i / 480)) for i in range(481)]
    xs += [-2.7, 2.7, -4.0, -1.95, 3.0, -8.0, 8.0, -0.75, 0.5, 1e-3, -1e-3, 2.69, -2.69, 5.54, -5.54, 20.0,
           -20.0, 1e4, -1e4]
    return sorted(set(xs))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    lines = ['# zoo: id,x,f,d1 (hex floats; d1 empty where none); generated by tests/ref/make_zoo_table.py',
             'id,x,f,d1']
    for name, fn in ENTRIES.items():
        for x in grid():
            f, d = fn(M(x))
            lines.append('%s,%s,%s,%s' % (name, hexf(x), hexf(to_double(f)), '' if d is None else hexf(to_double(d))))
    with open(os.path.join(out_dir, 'zoo.csv'), 'w') as fh:
        fh.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
