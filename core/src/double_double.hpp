// A double-double number: an unevaluated sum hi + lo of two doubles with |lo| <= ulp(hi)/2, about 106
// significant bits, for ext_math.hpp's series in WebAssembly. There long double is binary128 in software
// (each + − × ÷ a library call of ~100 double operations), and these error-free transformations need no FMA,
// which WebAssembly does not have: a product is exact through Dekker's split (Dekker 1971; the algorithms as
// in Hida, Li and Bailey's QD library, "accurate" addition). Relative error per operation ≤ ~2^-104 within
// double's exponent range; no underflow or overflow handling beyond that range: callers keep their values
// between 2^-960 and 2^960 (ext_math.hpp's scaled exponential).
#pragma once

#include <cmath>

namespace gelu::ext {

class DoubleDouble {
 public:
  constexpr DoubleDouble() = default;
  constexpr DoubleDouble(double v) : hi_(v) {}  // NOLINT(google-explicit-constructor): as a built-in float
  constexpr DoubleDouble(int v) : hi_(v) {}     // NOLINT(google-explicit-constructor)
  /// The nearest double-double to a wider value (long double, __float128): its high part and the rest.
  template <class W>
  static DoubleDouble from(W v) {
    const double h = static_cast<double>(v);
    return pair(h, std::isfinite(h) ? static_cast<double>(v - static_cast<W>(h)) : 0.0);
  }
  /// hi + lo as a wider type.
  template <class W>
  W to() const {
    return static_cast<W>(hi_) + static_cast<W>(lo_);
  }
  explicit operator double() const { return hi_; }
  double hi() const { return hi_; }
  double lo() const { return lo_; }

  friend DoubleDouble operator-(DoubleDouble a) { return pair(-a.hi_, -a.lo_); }
  friend DoubleDouble operator+(DoubleDouble a, DoubleDouble b) {
    double s, e, t, f;
    two_sum(a.hi_, b.hi_, s, e);
    two_sum(a.lo_, b.lo_, t, f);
    if (!std::isfinite(s)) return DoubleDouble(s);
    e += t;
    quick_two_sum(s, e, s, e);
    e += f;
    quick_two_sum(s, e, s, e);
    return pair(s, e);
  }
  friend DoubleDouble operator-(DoubleDouble a, DoubleDouble b) { return a + -b; }
  friend DoubleDouble operator*(DoubleDouble a, DoubleDouble b) {
    double p, e;
    two_prod(a.hi_, b.hi_, p, e);
    if (!std::isfinite(p)) return DoubleDouble(p);
    e += a.hi_ * b.lo_ + a.lo_ * b.hi_;
    quick_two_sum(p, e, p, e);
    return pair(p, e);
  }
  friend DoubleDouble operator/(DoubleDouble a, DoubleDouble b) {
    const double q1 = a.hi_ / b.hi_;
    if (!std::isfinite(q1) || b.hi_ == 0) return DoubleDouble(q1);
    if (b.lo_ == 0) {  // by a double (the series' small integers): one correction, a quarter of the work
      double p, e;
      two_prod(q1, b.hi_, p, e);
      const double q2 = (((a.hi_ - p) - e) + a.lo_) / b.hi_;
      double s, t;
      quick_two_sum(q1, q2, s, t);
      return pair(s, t);
    }
    DoubleDouble r = a - b * DoubleDouble(q1);
    const double q2 = r.hi_ / b.hi_;
    r = r - b * DoubleDouble(q2);
    const double q3 = r.hi_ / b.hi_;
    double s, e;
    quick_two_sum(q1, q2, s, e);
    return pair(s, e) + DoubleDouble(q3);
  }
  DoubleDouble& operator+=(DoubleDouble b) { return *this = *this + b; }
  DoubleDouble& operator-=(DoubleDouble b) { return *this = *this - b; }
  DoubleDouble& operator*=(DoubleDouble b) { return *this = *this * b; }
  DoubleDouble& operator/=(DoubleDouble b) { return *this = *this / b; }

  friend bool operator<(DoubleDouble a, DoubleDouble b) {
    return a.hi_ < b.hi_ || (a.hi_ == b.hi_ && a.lo_ < b.lo_);
  }
  friend bool operator>(DoubleDouble a, DoubleDouble b) { return b < a; }
  friend bool operator<=(DoubleDouble a, DoubleDouble b) { return !(b < a) && a == a && b == b; }
  friend bool operator>=(DoubleDouble a, DoubleDouble b) { return b <= a; }
  friend bool operator==(DoubleDouble a, DoubleDouble b) { return a.hi_ == b.hi_ && a.lo_ == b.lo_; }
  friend bool operator!=(DoubleDouble a, DoubleDouble b) { return !(a == b); }

 private:
  static DoubleDouble pair(double h, double l) {
    DoubleDouble d;
    d.hi_ = h;
    d.lo_ = l;
    return d;
  }
  /// s + e = a + b exactly (Knuth).
  static void two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    const double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
  }
  /// s + e = a + b exactly, for |a| >= |b| (Dekker).
  static void quick_two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    e = b - (s - a);
  }
  /// a = hi + lo with 26 and 27 significant bits (Veltkamp), |a| < 2^996.
  static void split(double a, double& hi, double& lo) {
    const double t = 134217729.0 * a;  // 2^27 + 1
    hi = t - (t - a);
    lo = a - hi;
  }
  /// p + e = a·b exactly (Dekker), without an FMA.
  static void two_prod(double a, double b, double& p, double& e) {
    p = a * b;
    double ah, al, bh, bl;
    split(a, ah, al);
    split(b, bh, bl);
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  }

  double hi_ = 0, lo_ = 0;
};

}  // namespace gelu::ext
