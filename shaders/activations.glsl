// GLSL twins of every registry function (core/src/registry.cpp, reference: core/src/formulas.hpp).
//
// Contract: float act_NAME(float x, int order, vec4 p), order 0/1/2 = f, f', f''; p = (p0 hi, p0 lo,
// p1 hi, p1 lo): each double parameter split into two floats so exp-dominated tails see its full value.
// Accuracy: <= 4 ULP from the double formula rounded to float (tests/gpu/agreement_test.cpp), the same
// NaN/inf behaviour as the CPU, and no NaN or inf from a finite input.
//
// Why it looks like this:
//  - GLSL has no erf and its exp/log are not accurate enough, so exp, expm1 and log1p are written here
//    from + - * / only, with exp's argument carried as a float pair (hi + lo).
//  - fma() is not exact on every driver (Mesa llvmpipe 22 lowers it to mul + add), so exact products use
//    Dekker's split; `precise` keeps the compiler from reassociating those error-free transforms.
//  - Near the roots of f' and f'' the float formula cancels catastrophically; there the value is
//    recomputed in double (core since GL 4.0), which costs nothing elsewhere.
//  - Exact GELU's tails use x*Phi(x) = -exp(-t^2/2) H(t) (t = -x) with H fitted piecewise by
//    core/gpu/tools/fit_polys.cpp, and t^2 split exactly: exp(-t^2/2) stays accurate down to underflow.
//
// Index of this file:
//   [SECTION] Error-free transforms and float-pair arithmetic
//   [SECTION] exp, expm1, log1p in float
//   [SECTION] Double-precision rescue near the roots of derivatives
//   [SECTION] Exact GELU
//   [SECTION] The sigmoid family
//   [SECTION] The ReLU family
//   [SECTION] Softplus
//   [SECTION] Mish
#ifndef GELU_ACTIVATIONS_GLSL
#define GELU_ACTIVATIONS_GLSL

// [SECTION] Error-free transforms and float-pair arithmetic (vec2 = hi + lo).

vec2 ff_two_sum(float a, float b) {
  precise float s = a + b;
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (b - bb);
  return vec2(s, e);
}
vec2 ff_split(float a) {  // |a| < 2^115
  precise float t = 4097.0 * a;
  precise float hi = t - (t - a);
  precise float lo = a - hi;
  return vec2(hi, lo);
}
vec2 ff_two_prod(float a, float b) {
  precise float p = a * b;
  vec2 as = ff_split(a);
  vec2 bs = ff_split(b);
  precise float e = ((as.x * bs.x - p) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
  return vec2(p, e);
}
vec2 ff_add(vec2 a, vec2 b) {
  vec2 s = ff_two_sum(a.x, b.x);
  precise float lo = s.y + a.y + b.y;
  return ff_two_sum(s.x, lo);
}
vec2 ff_mul(vec2 a, vec2 b) {
  vec2 p = ff_two_prod(a.x, b.x);
  precise float lo = p.y + (a.x * b.y + a.y * b.x);
  return ff_two_sum(p.x, lo);
}
vec2 ff_mul_f(vec2 a, float b) {
  vec2 p = ff_two_prod(a.x, b);
  precise float lo = p.y + a.y * b;
  return ff_two_sum(p.x, lo);
}
/// a / b rounded (nearly correctly) to float.
float ff_div(vec2 a, vec2 b) {
  precise float q = a.x / b.x;
  vec2 qb = ff_two_prod(q, b.x);
  precise float r = (((a.x - qb.x) - qb.y) + a.y) - q * b.y;
  precise float res = q + r / b.x;
  return res;
}
/// a * b rounded once (b a float pair, e.g. a parameter). Below |a| = 2^-60 the split products' partial
/// sums would be subnormal, and a driver that flushes subnormals (NVIDIA's) then loses terms of up to 2^-126
/// from the correction (leaky_relu was 512 ULP off at x = -1.9e-33 on an H100): the product is formed on
/// a·2^64, exactly, and scaled back (exact for a normal result; a subnormal one is rounded a second time
/// where subnormals are kept, within 1 ULP of it).
/// (Products with powers of two, not ldexp: llvmpipe's ldexp flushes subnormal operands and results.)
float ff_round_mul(float a, vec2 b) {
  bool tiny = abs(a) < uintBitsToFloat(0x21800000u);  // 2^-60
  precise float as = tiny ? a * uintBitsToFloat(0x5f800000u) : a;  // 2^64
  vec2 p = ff_two_prod(as, b.x);
  precise float r = p.x + (p.y + as * b.y);
  precise float back = r * uintBitsToFloat(0x1f800000u);  // 2^-64
  return tiny ? back : r;
}

// [SECTION] exp, expm1, log1p in float.

const float LOG2E = 1.44269504;
const float LN2_HI = 0.693145751953125;  // 15 significant bits: k * LN2_HI is exact for |k| < 512
const float LN2_LO = 1.42860677e-06;     // ln 2 - LN2_HI
const float FLT_INF = uintBitsToFloat(0x7f800000u);

float pow2i(int k) { return intBitsToFloat((k + 127) << 23); }  // 2^k, -126 <= k <= 127

/// (e^r - 1 - r) / r^2 for |r| <= 0.347 (Taylor to r^8: truncation < 2^-30 relative).
float expm1_q(float r) {
  float q = 1.0 / 40320.0;
  q = q * r + 1.0 / 5040.0;
  q = q * r + 1.0 / 720.0;
  q = q * r + 1.0 / 120.0;
  q = q * r + 1.0 / 24.0;
  q = q * r + 1.0 / 6.0;
  q = q * r + 0.5;
  return q;
}

/// exp(hi + lo) * m for |lo| <= ulp(hi), |m| < 2^20: the factor is applied before the final scaling by
/// 2^k, so a result in the subnormal range is rounded once from a full-precision value (multiplying an
/// already subnormal exp by m would magnify its absolute rounding error by m). <= 1 ULP + m's own error.
float exp_scaled(float hi, float lo, vec2 m) {
  if (hi > 88.8) return m.x * FLT_INF;
  if (hi < -125.0) return m.x * 0.0;
  float k = floor(hi * LOG2E + 0.5);
  precise float rh = hi - k * LN2_HI;  // exact (Sterbenz)
  precise float r = rh + (lo - k * LN2_LO);
  precise float p = 1.0 + (r + r * r * expm1_q(r));
  float pm = (m.x == 1.0 && m.y == 0.0) ? p : ff_round_mul(p, m);
  int ki = int(k);
  if (ki < -126) return (pm * pow2i(ki + 64)) * pow2i(-64);  // first product exact, second rounds once
  if (ki > 127) return (pm * 2.0) * pow2i(ki - 1);
  return pm * pow2i(ki);
}
float exp_ff(float hi, float lo) { return exp_scaled(hi, lo, vec2(1.0, 0.0)); }
float exp_f(float x) { return exp_ff(x, 0.0); }

/// expm1(x) for x <= 0.35; <= 1 ULP.
float expm1_neg(float x) {
  if (x < -17.5) return -1.0 + exp_f(x);
  float k = x > -0.3465 ? 0.0 : floor(x * LOG2E + 0.5);
  precise float r = (x - k * LN2_HI) - k * LN2_LO;
  precise float em = r + r * r * expm1_q(r);
  if (k == 0.0) return em;
  float s = pow2i(int(k));
  precise float res = s * em + (s - 1.0);  // s * em exact, s - 1 exact for k >= -24: one rounding
  return res;
}

/// log1p(y) for 0 <= y <= 1; <= 1 ULP. log1p(y) = 2 atanh(s), s = y / (2 + y) <= 1/3 carried as a pair.
float log1p_unit(float y) {
  vec2 d = ff_two_sum(2.0, y);
  precise float sh = y / d.x;
  vec2 sd = ff_two_prod(sh, d.x);
  precise float sl = (((y - sd.x) - sd.y) - sh * d.y) / d.x;
  float s2 = sh * sh;
  float q = 1.0 / 17.0;
  q = q * s2 + 1.0 / 15.0;
  q = q * s2 + 1.0 / 13.0;
  q = q * s2 + 1.0 / 11.0;
  q = q * s2 + 1.0 / 9.0;
  q = q * s2 + 1.0 / 7.0;
  q = q * s2 + 1.0 / 5.0;
  q = q * s2 + 1.0 / 3.0;
  precise float res = 2.0 * sh + (2.0 * sl + 2.0 * sh * s2 * q);
  return res;
}

/// (sigma(z), 1 - sigma(z)) for z = z.x + z.y, each ~1 ULP, no cancellation on either side.
vec2 sigmoid_pair(vec2 z) {
  bool pos = z.x >= 0.0;
  float e = pos ? exp_ff(-z.x, -z.y) : exp_ff(z.x, z.y);  // in (0, 1]
  vec2 d = ff_two_sum(1.0, e);
  float big = ff_div(vec2(1.0, 0.0), d);
  float small = ff_div(vec2(e, 0.0), d);
  return pos ? vec2(big, small) : vec2(small, big);
}

// [SECTION] Double-precision rescue near the roots of derivatives (taken for a narrow band of x only).

/// exp(x) for |x| < 700 to ~1e-16: Horner of the Taylor series after reduction by ln 2.
double exp_d(double x) {
  if (x < -700.0LF) return 0.0LF;
  double k = floor(x * 1.4426950408889634LF + 0.5LF);
  double r = (x - k * 0.693147180369123816490LF) - k * 1.90821492927058770002e-10LF;
  double p = 1.0LF;
  for (int i = 14; i >= 1; --i) p = 1.0LF + p * r / double(i);
  return p * packDouble2x32(uvec2(0u, uint(int(k) + 1023) << 20));
}
double param_d(vec2 p) { return double(p.x) + double(p.y); }


// [SECTION] Exact GELU: x Phi(x).
// Coefficients generated by core/gpu/tools/fit_polys.cpp (Chebyshev interpolants; constant terms split).
// GELU_H: 9 pieces, max degree 8, max float error 0.746 ULP
const float GELU_H_MID[9] = float[](9.375000000e-01, 1.312500000e+00, 1.875000000e+00, 2.625000000e+00, 3.750000000e+00, 5.250000000e+00, 7.500000000e+00, 1.050000000e+01, 1.375000000e+01);
const float GELU_H_C0[18] = float[](2.535116374e-01, 2.488761197e-09, 2.940411270e-01, 5.049750840e-09, 3.305454254e-01, -4.044194313e-09, 3.565684557e-01, -8.167412524e-09, 3.751470447e-01, -8.525711692e-09, 3.858132064e-01, 5.583511875e-09, 3.921982348e-01, -6.410063591e-09, 3.954180181e-01, -1.524581350e-09, 3.968648016e-01, -6.523886986e-10);
const float GELU_H_C[72] = float[](  // [piece][degree 1..8], zero padded
    1.340711945e-01, -8.258477115e-02, 4.122695600e-02, -1.786519755e-02, 7.008247755e-03, -2.501984095e-03, 0.000000000e+00, 0.000000000e+00,
    8.634858301e-02, -4.823489229e-02, 2.207116382e-02, -8.835971639e-03, 3.218966200e-03, -1.073605648e-03, 0.000000000e+00, 0.000000000e+00,
    4.804678051e-02, -2.335302023e-02, 9.427768360e-03, -3.364435571e-03, 1.094877293e-03, -3.380036024e-04, 9.573774917e-05, 0.000000000e+00,
    2.460428772e-02, -1.008070871e-02, 3.481527558e-03, -1.075360325e-03, 3.057248505e-04, -8.272286190e-05, 2.078005703e-05, 0.000000000e+00,
    1.080704322e-02, -3.532037386e-03, 9.884847492e-04, -2.506523782e-04, 5.906860021e-05, -1.316150415e-05, 2.944196795e-06, -5.981061484e-07,
    4.560621616e-03, -1.157439004e-03, 2.547970260e-04, -5.137088805e-05, 9.734589645e-06, -1.816231982e-06, 3.143057040e-07, 0.000000000e+00,
    1.712706661e-03, -3.214007000e-04, 5.285368505e-05, -8.036997946e-06, 1.154553765e-06, -1.597043893e-07, 2.331244476e-08, -3.022881041e-09,
    6.540882640e-04, -9.030086701e-05, 1.099259236e-05, -1.243781659e-06, 1.341765669e-07, -1.462348393e-08, 1.477327480e-09, 0.000000000e+00,
    2.975532204e-04, -3.180428747e-05, 3.005666497e-06, -2.651305601e-07, 2.314643890e-08, -1.884600767e-09, 0.000000000e+00, 0.000000000e+00
);
// GELU_L: 9 pieces, max degree 12, max float error 0.640 ULP
const float GELU_L_MID[9] = float[](9.375000000e-01, 1.312500000e+00, 1.875000000e+00, 2.625000000e+00, 3.750000000e+00, 5.250000000e+00, 7.500000000e+00, 1.050000000e+01, 1.375000000e+01);
const float GELU_L_C0[18] = float[](1.105023697e-01, 3.700832696e-10, 2.282517403e-01, -3.690437289e-09, 3.049204648e-01, 6.865175095e-09, 3.471953869e-01, -1.362405411e-09, 3.722651601e-01, -2.280730493e-09, 3.849445283e-01, -6.080432602e-09, 3.919698596e-01, 7.852272610e-09, 3.953557312e-01, -8.780732585e-09, 3.968431652e-01, -4.366350392e-09);
const float GELU_L_C[108] = float[](  // [piece][degree 1..12], zero padded
    4.627952542e-01, -5.651529060e-01, 6.321932469e-01, -6.853335579e-01, 7.348322343e-01, -7.850578852e-01, 8.379230617e-01, -8.938946872e-01, 9.464470810e-01, -1.009554958e+00, 1.237768132e+00, -1.320254561e+00,
    2.099746207e-01, -1.928753611e-01, 1.592034904e-01, -1.255019976e-01, 9.689502960e-02, -7.423092760e-02, 5.940337905e-02, -4.529158615e-02, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    8.662328954e-02, -5.901154158e-02, 3.562446704e-02, -2.025794446e-02, 1.116317800e-02, -6.027267183e-03, 3.239744000e-03, -1.927257420e-03, 1.029394452e-03, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    3.585551488e-02, -1.834577476e-02, 8.268999768e-03, -3.481669184e-03, 1.407174618e-03, -5.554779644e-04, 2.266285303e-04, -8.732266988e-05, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    1.345929783e-02, -5.030082667e-03, 1.655314258e-03, -5.073520505e-04, 1.486619827e-04, -4.208914089e-05, 1.172524151e-05, -3.589926432e-06, 9.749587937e-07, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    5.167014583e-03, -1.418544831e-03, 3.436871069e-04, -7.753818473e-05, 1.672651741e-05, -3.663491804e-06, 7.468702687e-07, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    1.828861304e-03, -3.580286363e-04, 6.202572676e-05, -1.003184528e-05, 1.545338312e-06, -2.317311505e-07, 3.782811078e-08, -5.425771745e-09, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    6.772211222e-04, -9.564487782e-05, 1.197572135e-05, -1.401010950e-06, 1.571285440e-07, -1.799222733e-08, 1.910508953e-09, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00,
    3.037532041e-04, -3.291124637e-05, 3.163125346e-06, -2.847051682e-07, 2.549826306e-08, -2.132540205e-09, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00
);
const float GELU_CUTS[10] = float[](7.500000000e-01, 1.125000000e+00, 1.500000000e+00, 2.250000000e+00, 3.000000000e+00, 4.500000000e+00, 6.000000000e+00, 9.000000000e+00, 1.200000000e+01, 1.550000000e+01);
// GELU_S: degree 8
const float GELU_S_C0_HI = 3.989422917e-01, GELU_S_C0_LO = -1.133517014e-08;
const float GELU_S[8] = float[](-6.649038007e-02, 9.973557010e-03, -1.187328213e-03, 1.154346710e-04, -9.444580617e-06, 6.657637892e-07, -4.089628613e-08, 1.981755473e-09);
// GELU_U: degree 8
const float GELU_U_C0_HI = 7.978845835e-01, GELU_U_C0_LO = -2.267034027e-08;
const float GELU_U[8] = float[](-2.659615203e-01, 5.984134206e-02, -9.498625701e-03, 1.154346673e-03, -1.133348373e-04, 9.320442534e-06, -6.540953482e-07, 3.557803802e-08);

const vec2 INV_SQRT_2PI = vec2(3.98942292e-01, -1.13351701e-08);  // 1/sqrt(2 pi) as a float pair

/// Horner with the constant term added last as hi + (lo + u q): rounding c0 to float alone would cost 0.5 ULP.
float gelu_piece_h(int k, float u) {
  float q = 0.0;
  for (int j = 8; j >= 1; --j) q = q * u + GELU_H_C[k * 8 + j - 1];
  precise float r = GELU_H_C0[2 * k] + (GELU_H_C0[2 * k + 1] + u * q);
  return r;
}
float gelu_piece_l(int k, float u) {
  float q = 0.0;
  for (int j = 12; j >= 1; --j) q = q * u + GELU_L_C[k * 12 + j - 1];
  precise float r = GELU_L_C0[2 * k] + (GELU_L_C0[2 * k + 1] + u * q);
  return r;
}
int gelu_piece_index(float t) {
  int k = 0;
  while (k < 8 && t >= GELU_CUTS[k + 1]) ++k;
  return k;
}
float gelu_s(float v) {  // (Phi(x) - 1/2) / x, v = x^2 <= 0.5625
  float q = 0.0;
  for (int j = 7; j >= 0; --j) q = q * v + GELU_S[j];
  precise float r = GELU_S_C0_HI + (GELU_S_C0_LO + v * q);
  return r;
}
float gelu_u(float v) {  // (gelu'(x) - 1/2) / x, v = x^2 <= 0.5625
  float q = 0.0;
  for (int j = 7; j >= 0; --j) q = q * v + GELU_U[j];
  precise float r = GELU_U_C0_HI + (GELU_U_C0_LO + v * q);
  return r;
}

/// gelu'(x) in double for x in [-1.3, -0.35] (around its root -0.75179): Phi by its series,
/// f' = 1/2 + phi(x) (2x + x^3/3 + x^5/15 + ...).
float gelu_d1_rescue(float xf) {
  double x = double(xf), x2 = x * x;
  double term = x, sum = x;
  for (int n = 1; n < 40; ++n) {
    term *= x2 / double(2 * n + 1);
    sum += term;
  }
  double phi = 0.398942280401432677940LF * exp_d(-0.5LF * x2);
  return float(0.5LF + phi * (sum + x));
}

float act_gelu(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  float t = abs(x);
  if (order == 0) {
    if (t <= 0.75) {
      precise float phi = 0.5 + x * gelu_s(x * x);
      return x * phi;
    }
    if (x > 15.5) return x;      // Q(15.5) < 2^-150: also +inf
    if (x < -15.5) return -0.0;  // underflow; also -inf -> -0
    int k = gelu_piece_index(t);
    float h = gelu_piece_h(k, t - GELU_H_MID[k]);
    vec2 t2 = ff_two_prod(t, t);
    if (x < 0.0) return exp_scaled(-0.5 * t2.x, -0.5 * t2.y, vec2(-h, 0.0));
    precise float r = x - exp_ff(-0.5 * t2.x, -0.5 * t2.y) * h;
    return r;
  }
  if (order == 1) {
    if (x >= -1.3 && x <= -0.35) return gelu_d1_rescue(x);
    if (t <= 0.75) {
      precise float r = 0.5 + x * gelu_u(x * x);
      return r;
    }
    if (x > 15.5) return 1.0;
    if (x < -15.5) return -0.0;
    int k = gelu_piece_index(t);
    float l = gelu_piece_l(k, t - GELU_L_MID[k]);
    vec2 t2 = ff_two_prod(t, t);
    if (x < 0.0) return exp_scaled(-0.5 * t2.x, -0.5 * t2.y, -ff_two_prod(t, l));
    precise float r = 1.0 + exp_ff(-0.5 * t2.x, -0.5 * t2.y) * (t * l);
    return r;
  }
  if (t > 40.0) return -0.0;
  vec2 x2 = ff_two_prod(x, x);
  precise float two_minus = (2.0 - x2.x) - x2.y;
  return exp_scaled(-0.5 * x2.x, -0.5 * x2.y, ff_mul_f(INV_SQRT_2PI, two_minus));
}

// [SECTION] The sigmoid family: x sigma(k x) (QuickGELU, SiLU/Swish) and GELU's tanh form x sigma(2u).

/// m sigma(z): for z < 0 sigma is exp-dominated and may be subnormal, so m is applied inside exp_scaled.
float mul_sigmoid(float m, vec2 z) {
  if (z.x >= 0.0) return m * sigmoid_pair(z).x;
  vec2 d = ff_two_sum(1.0, exp_ff(z.x, z.y));
  return exp_scaled(z.x, z.y, vec2(ff_div(vec2(m, 0.0), d), 0.0));
}
/// m sigma(z) (1 - sigma(z)) = m e / (1 + e)^2, e = exp(-|z|), with m inside exp_scaled.
float mul_sigmoid_q(vec2 m, vec2 z) {
  vec2 az = z.x >= 0.0 ? -z : z;
  vec2 d = ff_two_sum(1.0, exp_ff(az.x, az.y));
  vec2 d2 = ff_mul(d, d);
  return exp_scaled(az.x, az.y, vec2(ff_div(m, d2), 0.0));
}
/// (sigma, 1 - sigma) of z in double.
dvec2 sigmoid_d(double z) {
  double e = exp_d(-abs(z));
  double big = 1.0LF / (1.0LF + e), small = e / (1.0LF + e);
  return z >= 0.0LF ? dvec2(big, small) : dvec2(small, big);
}

float x_sigmoid_rescue(float xf, double k, int order) {
  double x = double(xf), z = k * x;
  dvec2 g = sigmoid_d(z);
  if (order == 1) return float(g.x + z * g.x * g.y);
  return float(k * g.x * g.y * (2.0LF + z * (g.y - g.x)));
}

float act_x_sigmoid(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  vec2 k = p.xy;
  if (abs(x) > 1e30 || abs(k.x * x) > 1000.0) {  // sigma is 0 or 1: the limits, without inf * 0
    if (order == 0) return x > 0.0 ? x : x * 0.0;
    if (order == 1) return x > 0.0 ? 1.0 : -0.0;
    return -0.0;
  }
  vec2 z = ff_mul_f(k, x);
  if (order == 0) return mul_sigmoid(x, z);
  if (order == 1) {
    vec2 g = sigmoid_pair(z);
    precise float b = 1.0 + z.x * g.y;  // root at z = -1.2785: recompute in its neighbourhood
    if (z.x < 0.0 && abs(b) < 1.5) return x_sigmoid_rescue(x, param_d(k), 1);
    return mul_sigmoid(b, z);
  }
  vec2 g = sigmoid_pair(z);
  precise float b = 2.0 + z.x * (g.y - g.x);  // roots at z = +-2.3994; cancels for |z| < 6
  if (abs(z.x) < 6.0) return x_sigmoid_rescue(x, param_d(k), 2);
  return mul_sigmoid_q(ff_mul_f(k, b), z);
}

const vec2 TWO_SQRT_2_OVER_PI = vec2(1.595769167e+00, -4.534068054e-08);

float gelu_tanh_rescue(float xf, double c, int order) {
  double x = double(xf);
  double a = 1.5957691216057308LF;
  double w = a * (x + c * x * x * x);
  dvec2 g = sigmoid_d(w);
  double dw = a * (1.0LF + 3.0LF * c * x * x), ddw = a * 6.0LF * c * x;
  if (order == 1) return float(g.x + x * g.x * g.y * dw);
  return float(g.x * g.y * (2.0LF * dw + x * dw * dw * (g.y - g.x) + x * ddw));
}

float act_gelu_tanh(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  if (abs(x) > 1e5) {  // sigma(2u) is 0 or 1 (as on the CPU, c >= 0)
    if (order == 0) return x > 0.0 ? x : -0.0;
    return (order == 1 && x > 0.0) ? 1.0 : -0.0;
  }
  vec2 c = p.xy;
  // 2u = 2 sqrt(2/pi) (x + c x^3) as a float pair: the negative tail is exp(2u)-dominated.
  vec2 x3 = ff_mul_f(ff_two_prod(x, x), x);
  vec2 w = ff_mul(ff_add(vec2(x, 0.0), ff_mul(x3, c)), TWO_SQRT_2_OVER_PI);
  vec2 g = sigmoid_pair(w);
  if (order == 0) return mul_sigmoid(x, w);
  // w' = 2 sqrt(2/pi) (1 + 3 c x^2) as a pair: f'' uses w'^2, which would double a plain float's error.
  vec2 dwp = ff_mul(ff_add(vec2(1.0, 0.0), 3.0 * ff_mul(ff_two_prod(x, x), c)), TWO_SQRT_2_OVER_PI);
  float dw = dwp.x;
  if (order == 1) {
    precise float b = 1.0 + x * g.y * dw;  // cancels around its negative root (x in about [-2.5, 0])
    if (x < 0.0 && x > -6.0) return gelu_tanh_rescue(x, param_d(c), 1);
    return mul_sigmoid(b, w);
  }
  float ddw = TWO_SQRT_2_OVER_PI.x * 6.0 * c.x * x;
  precise float b = 2.0 * dw + x * ff_mul(dwp, dwp).x * (g.y - g.x) + x * ddw;
  // Roots near +-1.5, and the three terms partly cancel out to |x| ~ 6: double inside |x| < 10.
  if (abs(x) < 10.0) return gelu_tanh_rescue(x, param_d(c), 2);
  return mul_sigmoid_q(vec2(b, 0.0), w);
}

// [SECTION] The ReLU family.

float act_relu(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  if (order == 0) return x > 0.0 ? x : 0.0;
  if (order == 1) return x > 0.0 ? 1.0 : 0.0;
  return 0.0;
}

float act_leaky_relu(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  if (order == 2) return 0.0;
  if (x > 0.0) return order == 0 ? x : 1.0;
  if (order == 1) return p.x;
  if (abs(x) > 1e30) return p.x * x;  // beyond Dekker's split range; also -inf (0 * -inf = NaN as on the CPU)
  return ff_round_mul(x, p.xy);
}

float act_elu(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  if (x > 0.0) return order == 0 ? x : (order == 1 ? 1.0 : 0.0);
  if (order == 0) return ff_round_mul(expm1_neg(x), p.xy);
  return exp_scaled(x, 0.0, p.xy);
}

// SELU: λ·x for x > 0, λ·α·(eˣ − 1) otherwise (the twin of formulas::selu; λ and λ·α as float pairs).
const vec2 SELU_LAMBDA = vec2(1.0507010221481323, -3.479265231476347e-08);
const vec2 SELU_LAMBDA_ALPHA = vec2(1.7580993175506592, 2.3296717444054593e-08);

float act_selu(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  if (x > 0.0) {
    if (order == 0) return abs(x) > 1e30 ? SELU_LAMBDA.x * x : ff_round_mul(x, SELU_LAMBDA);
    return order == 1 ? SELU_LAMBDA.x : 0.0;
  }
  if (order == 0) return ff_round_mul(expm1_neg(x), SELU_LAMBDA_ALPHA);
  return exp_scaled(x, 0.0, SELU_LAMBDA_ALPHA);
}

// [SECTION] Softplus: log(1 + exp(b x)) / b.

float act_softplus(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  vec2 b = p.xy;
  if (abs(x) > 1e30) {  // b x beyond float range: the limits
    if (order == 0) return x > 0.0 ? x : 0.0;
    return (order == 1 && x > 0.0) ? 1.0 : 0.0;
  }
  vec2 z = ff_mul_f(b, x);
  if (order == 0) {
    if (z.x > 0.0) return ff_div(ff_add(z, vec2(log1p_unit(exp_ff(-z.x, -z.y)), 0.0)), b);
    float e = exp_ff(z.x, z.y);
    // log1p(e) = e to float precision below 2^-24: then e / b with the division inside exp_scaled.
    if (e < 5.9604645e-08) return exp_scaled(z.x, z.y, vec2(ff_div(vec2(1.0, 0.0), b), 0.0));
    return ff_div(vec2(log1p_unit(e), 0.0), b);
  }
  if (order == 1) return mul_sigmoid(1.0, z);
  return mul_sigmoid_q(b, z);
}

// [SECTION] Mish: x tanh(softplus(x)) = x n / (n + 2), n = e^x (e^x + 2).

struct MishParts {
  float t;      // tanh(softplus(x))
  float one_t;  // 1 - t
  float sig;    // sigma(x)
  float one_sig;
};
MishParts mish_parts(float x) {
  MishParts m;
  if (x > 0.0) {  // in w = e^-x: t = (1 + 2w) / (1 + 2w + 2w^2)
    float w = exp_f(-x);
    vec2 num = ff_two_sum(1.0, 2.0 * w);
    vec2 w2 = 2.0 * ff_two_prod(w, w);
    vec2 den = ff_add(num, w2);
    vec2 d1 = ff_two_sum(1.0, w);
    m.t = ff_div(num, den);
    m.one_t = ff_div(w2, den);
    m.sig = ff_div(vec2(1.0, 0.0), d1);
    m.one_sig = ff_div(vec2(w, 0.0), d1);
  } else {
    float e = exp_f(x);
    vec2 n = ff_mul_f(ff_two_sum(e, 2.0), e);
    vec2 n2 = ff_add(n, vec2(2.0, 0.0));
    vec2 d1 = ff_two_sum(1.0, e);
    m.t = ff_div(n, n2);
    m.one_t = ff_div(vec2(2.0, 0.0), n2);
    m.sig = ff_div(vec2(e, 0.0), d1);
    m.one_sig = ff_div(vec2(1.0, 0.0), d1);
  }
  return m;
}

float mish_rescue(float xf, int order) {
  double x = double(xf), t, one_t, sig;
  if (x > 0.0LF) {
    double w = exp_d(-x), den = 1.0LF + 2.0LF * w + 2.0LF * w * w;
    t = (1.0LF + 2.0LF * w) / den;
    one_t = 2.0LF * w * w / den;
    sig = 1.0LF / (1.0LF + w);
  } else {
    double e = exp_d(x), n = e * (e + 2.0LF);
    t = n / (n + 2.0LF);
    one_t = 2.0LF / (n + 2.0LF);
    sig = e / (1.0LF + e);
  }
  double sech2 = one_t * (1.0LF + t);
  if (order == 1) return float(t + x * sech2 * sig);
  return float(sech2 * sig * (2.0LF + x * ((1.0LF - sig) - 2.0LF * t * sig)));
}

float act_mish(float x, int order, vec4 p) {
  if (isnan(x)) return x;
  if (isinf(x)) return order == 0 ? (x > 0.0 ? x : -0.0) : ((order == 1 && x > 0.0) ? 1.0 : -0.0);
  if (order == 2 && abs(x) > 1000.0) return -0.0;
  if (x < -20.0) {
    // t = e (e + 2) / (n + 2), sig = e / (1 + e) with e = e^x tiny: factor e out so a subnormal result
    // is rounded once (exp_scaled) instead of multiplying subnormal intermediates.
    float e = exp_f(x);
    vec2 n2 = ff_add(ff_mul_f(ff_two_sum(e, 2.0), e), vec2(2.0, 0.0));
    float t_e = ff_div(ff_two_sum(e, 2.0), n2);           // t / e
    float sig_e = ff_div(vec2(1.0, 0.0), ff_two_sum(1.0, e));  // sig / e
    float t = e * t_e, sig = e * sig_e;
    float sech2 = ff_div(vec2(2.0, 0.0), n2) * (1.0 + t);
    if (order == 0) return exp_scaled(x, 0.0, ff_two_prod(x, t_e));
    if (order == 1) return exp_scaled(x, 0.0, vec2(t_e + x * sech2 * sig_e, 0.0));
    return exp_scaled(x, 0.0, vec2(sech2 * sig_e * (2.0 + x * ((1.0 - sig) - 2.0 * t * sig)), 0.0));
  }
  if (x > 20.0 && order == 2) {
    // 1 - t = 2 w^2 / den with w = e^-x: factor w^2 = e^-2x out (see the x < -20 branch).
    float w = exp_f(-x);
    vec2 num = ff_two_sum(1.0, 2.0 * w);
    vec2 den = ff_add(num, 2.0 * ff_two_prod(w, w));
    float t = ff_div(num, den), sig = ff_div(vec2(1.0, 0.0), ff_two_sum(1.0, w));
    float one_sig = ff_div(vec2(w, 0.0), ff_two_sum(1.0, w));
    float b = 2.0 + x * (one_sig - 2.0 * t * sig);
    return exp_scaled(-2.0 * x, 0.0, vec2(ff_div(vec2(2.0, 0.0), den) * (1.0 + t) * sig * b, 0.0));
  }
  MishParts m = mish_parts(x);
  if (order == 0) return x * m.t;
  float sech2 = m.one_t * (1.0 + m.t);
  if (order == 1) {
    precise float r = m.t + x * sech2 * m.sig;  // root at x = -1.1924; the terms cancel for x in [-5, 0]
    if (x < 0.0 && x > -5.0) return mish_rescue(x, 1);
    return r;
  }
  // Roots, and up to ~5.5 ULP of accumulated float rounding between the tail branches: double there.
  return mish_rescue(x, 2);
}

#endif  // GELU_ACTIVATIONS_GLSL
