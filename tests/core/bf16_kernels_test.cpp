// bf16 arrays (gelu/kernels.hpp): every one of the 65,536 inputs through gelu and gelu_tanh, f and f', on
// every path that this build has (AVX512_BF16 conversions, AVX-512 with integer rounding, portable), against
// the double reference rounded once to bf16 by a rounding written here (integer arithmetic on the binary64
// bits, no float step in between). The backward pass dx = dy·f'(x) is checked the same way for every x
// against 40 gradients.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "formulas.hpp"
#include "gelu/kernels.hpp"
#include "simd/bf16.hpp"
#include "simd/simd_fast.hpp"
#include "simd/simd_gelu.hpp"

namespace {

namespace F = gelu::formulas;
using gelu::simd::Bf16Op;

float bf16_value(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Round-to-nearest-even of a double to bf16, on the binary64 bit pattern: keep 8 significant bits (normal)
/// or the multiple of 2^-133 (subnormal), ties to the even pattern.
std::uint16_t rne_bf16(double v) {
  if (std::isnan(v)) return 0x7FC0;
  const bool neg = std::signbit(v);
  double a = std::fabs(v);
  std::uint16_t out;
  if (a >= 0x1p-126) {
    std::uint64_t b;
    std::memcpy(&b, &a, 8);
    const std::uint64_t drop = 52 - 7;  // binary64 keeps 52 fraction bits, bf16 7
    const std::uint64_t half = std::uint64_t{1} << (drop - 1);
    const std::uint64_t rem = b & ((std::uint64_t{1} << drop) - 1);
    b >>= drop;
    if (rem > half || (rem == half && (b & 1))) ++b;  // may carry into the exponent: still right
    const std::int64_t exp = static_cast<std::int64_t>(b >> 7) - 1023;  // unbiased binary64 exponent
    if (exp > 127)
      out = 0x7F80;
    else
      out = static_cast<std::uint16_t>(((exp + 127) << 7) | (b & 0x7F));
  } else {
    // a·2^133 in [0, 128): the subnormal bf16 mantissa, rounded to an integer by hand.
    const double s = a * 0x1p133;
    const double fl = std::floor(s), frac = s - fl;
    std::uint64_t m = static_cast<std::uint64_t>(fl);
    if (frac > 0.5 || (frac == 0.5 && (m & 1))) ++m;  // m = 128 is the smallest normal: the pattern is right
    out = static_cast<std::uint16_t>(m);
  }
  return static_cast<std::uint16_t>(out | (neg ? 0x8000 : 0));
}

double f_ref(bool tanh_form, Bf16Op op, double x) {
  if (op == Bf16Op::F) return tanh_form ? F::gelu_tanh(x, 0.044715) : F::gelu(x);
  return tanh_form ? F::gelu_tanh_d1(x, 0.044715) : F::gelu_d1(x);
}

/// Equal bit patterns, except that any NaN matches any NaN and, for f' and dy·f', +0 matches −0: the double
/// reference underflows to +0 where the exact value is a tiny negative number (gelu_tanh f' below x ≈ −21.6),
/// so its sign says nothing there. f itself is compared with the sign of zero.
bool same(std::uint16_t a, std::uint16_t b, bool derivative) {
  const bool na = (a & 0x7FFF) > 0x7F80, nb = (b & 0x7FFF) > 0x7F80;
  if (na || nb) return na && nb;
  if (derivative && (a & 0x7FFF) == 0 && (b & 0x7FFF) == 0) return true;
  return a == b;
}

struct Path {
  std::string name;
  std::function<void(Bf16Op, bool, const std::uint16_t*, const std::uint16_t*, std::uint16_t*, std::size_t)>
      run;
  bool backward = true;  // the path has a backward pass
};

std::vector<Path> paths() {
  std::vector<Path> p;
  p.push_back({"public", [](Bf16Op op, bool t, const std::uint16_t* x, const std::uint16_t* dy,
                            std::uint16_t* y, std::size_t n) {
                 namespace B = gelu::bf16;
                 if (op == Bf16Op::F) (t ? B::gelu_tanh : B::gelu)(x, y, n);
                 if (op == Bf16Op::D1) (t ? B::gelu_tanh_d1 : B::gelu_d1)(x, y, n);
                 if (op == Bf16Op::Backward) (t ? B::gelu_tanh_backward : B::gelu_backward)(x, dy, y, n);
               }});
  p.push_back(
      {"portable", [](Bf16Op op, bool t, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y,
                      std::size_t n) { gelu::simd::gelu_bf16_portable(op, t, x, dy, y, n); }});
  p.push_back({"lookup (f, f' only)",
               [](Bf16Op op, bool t, const std::uint16_t* x, const std::uint16_t*, std::uint16_t* y,
                  std::size_t n) { gelu::simd::gelu_bf16_lookup(op, t, x, y, n); },
               false});
#if defined(__AVX512F__) && defined(__AVX512DQ__)
  p.push_back({"avx512 (integer rounding)", [](Bf16Op op, bool t, const std::uint16_t* x,
                                               const std::uint16_t* dy, std::uint16_t* y, std::size_t n) {
                 (t ? gelu::simd::gelu_tanh_bf16 : gelu::simd::gelu_bf16)(op, x, dy, y, n, false);
               }});
#ifdef __AVX512BF16__
  if (__builtin_cpu_supports("avx512bf16"))
    p.push_back({"avx512bf16", [](Bf16Op op, bool t, const std::uint16_t* x, const std::uint16_t* dy,
                                  std::uint16_t* y, std::size_t n) {
                   (t ? gelu::simd::gelu_tanh_bf16 : gelu::simd::gelu_bf16)(op, x, dy, y, n, true);
                 }});
#endif
#endif
  return p;
}

std::vector<std::uint16_t> all_inputs() {
  std::vector<std::uint16_t> x(65536);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint16_t>(i);
  return x;
}

TEST(Bf16, RoundingHelpersAgree) {
  // The library's float -> bf16 and the test's double -> bf16 agree on every float that is exact in double.
  for (std::uint32_t hi = 0; hi < 65536; ++hi)
    for (std::uint32_t lo : {0u, 1u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) {
      const std::uint32_t u = (hi << 16) | lo;
      float f;
      std::memcpy(&f, &u, 4);
      if (std::isnan(f)) continue;
      ASSERT_EQ(gelu::bf16::from_float(f), rne_bf16(static_cast<double>(f))) << std::hex << u;
      ASSERT_EQ(gelu::simd::bf16_from_double(static_cast<double>(f)), rne_bf16(static_cast<double>(f)))
          << std::hex << u;
    }
  EXPECT_EQ(gelu::bf16::to_float(0x3F80), 1.0f);
}

TEST(Bf16, EveryInputCorrectlyRoundedOnEveryPath) {
  const std::vector<std::uint16_t> x = all_inputs();
  std::vector<std::uint16_t> y(x.size());
  for (bool tanh_form : {false, true})
    for (Bf16Op op : {Bf16Op::F, Bf16Op::D1}) {
      std::vector<std::uint16_t> want(x.size());
      double closest = INFINITY;  // relative distance of the reference to a bf16 rounding boundary
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double r = f_ref(tanh_form, op, static_cast<double>(bf16_value(x[i])));
        // f at tiny x: the double is x/2 exactly, the exact value a little above it (both forms exceed x/2
        // for x ≠ 0), which decides the 128 ties of bf16's subnormals.
        const double xv = static_cast<double>(bf16_value(x[i]));
        want[i] =
            op == Bf16Op::F && xv != 0 && r == xv * 0.5 ? rne_bf16(std::nextafter(r, HUGE_VAL)) : rne_bf16(r);
        if (std::isfinite(r) && r != 0) {
          int e;
          std::frexp(r, &e);
          const double spacing = std::ldexp(1.0, std::max(e - 8, -133));
          const double t = std::fabs(r) / spacing;  // in units of bf16 spacing
          const double d = std::fabs(t - std::floor(t) - 0.5) * spacing / std::fabs(r);
          if (std::fabs(r) >= 0x1p-126) closest = std::min(closest, d);
        }
      }
      std::printf("[ bf16 ] %s %s: closest reference to a rounding boundary: %.3g relative\n",
                  tanh_form ? "gelu_tanh" : "gelu", op == Bf16Op::F ? "f" : "f'", closest);
      EXPECT_GT(closest, 0x1p-45) << "the double reference cannot decide the rounding there";
      for (const Path& p : paths()) {
        p.run(op, tanh_form, x.data(), nullptr, y.data(), x.size());
        std::size_t bad = 0, first = 0;
        for (std::size_t i = 0; i < x.size(); ++i)
          if (!same(y[i], want[i], op != Bf16Op::F) && bad++ == 0) first = i;
        EXPECT_EQ(bad, 0u) << p.name << (tanh_form ? " gelu_tanh" : " gelu")
                           << (op == Bf16Op::F ? " f" : " f'") << ": first at x=" << bf16_value(x[first])
                           << " (0x" << std::hex << x[first] << ") got 0x" << y[first] << " want 0x"
                           << want[first];
      }
    }
}

TEST(Bf16, BackwardCorrectlyRoundedForEveryInputAndFortyGradients) {
  const std::vector<std::uint16_t> x = all_inputs();
  std::vector<float> grads = {1.0f, -1.0f, 0.5f,   3.0f,   -0.0078125f, 1e-3f,
                              7.5f, 1e30f, -2e38f, 1e-38f, 1e-40f,      0.0f};
  for (int i = 0; grads.size() < 40; ++i)
    grads.push_back(std::ldexp(1.0f + 0.0371f * static_cast<float>(i), i % 17 - 8));
  std::vector<std::uint16_t> dy(x.size()), want(x.size()), y(x.size());
  for (bool tanh_form : {false, true})
    for (float g : grads) {
      const std::uint16_t gb = gelu::bf16::from_float(g);
      for (std::size_t i = 0; i < x.size(); ++i) {
        dy[i] = gb;
        want[i] = rne_bf16(static_cast<double>(bf16_value(gb)) *
                           f_ref(tanh_form, Bf16Op::D1, static_cast<double>(bf16_value(x[i]))));
      }
      for (const Path& p : paths()) {
        if (!p.backward) continue;
        p.run(Bf16Op::Backward, tanh_form, x.data(), dy.data(), y.data(), x.size());
        std::size_t bad = 0, first = 0;
        for (std::size_t i = 0; i < x.size(); ++i)
          if (!same(y[i], want[i], true) && bad++ == 0) first = i;
        ASSERT_EQ(bad, 0u) << p.name << (tanh_form ? " gelu_tanh" : " gelu") << " backward dy=" << g
                           << ": first at x=" << bf16_value(x[first]) << " got 0x" << std::hex << y[first]
                           << " want 0x" << want[first];
      }
    }
}

TEST(Bf16, AnyLengthAndOffsetGivesTheSameBits) {
  const std::vector<std::uint16_t> x = all_inputs();
  std::vector<std::uint16_t> whole(x.size()), part(x.size());
  gelu::bf16::gelu_tanh(x.data(), whole.data(), x.size());
  for (const Path& p : paths())
    for (std::size_t n : {0, 1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 1000}) {
      for (std::size_t off : {0, 1, 7}) {
        std::fill(part.begin(), part.end(), 0xABCD);
        p.run(Bf16Op::F, true, x.data() + 40000 + off, nullptr, part.data() + off, n);
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(part[off + i], whole[40000 + off + i]) << p.name << " n=" << n << " off=" << off;
        ASSERT_EQ(part[off + n], 0xABCD) << p.name << " wrote past the end, n=" << n;
      }
    }
}

// Which kernel the public functions run is reported: on an AVX-512 build the timed choice for f and f′, the
// gathers for the backward pass (EveryInputCorrectlyRoundedOnEveryPath checks each kernel on its own).
TEST(Bf16, KernelChoiceIsReported) {
  using gelu::bf16::Op;
  const char* env = std::getenv("GELU_BF16_KERNEL");  // set by the Bf16.ForcedKernel_* CTest entries
  const std::string forced = env ? env : "";
  for (bool t : {false, true})
    for (Op op : {Op::F, Op::D1, Op::Backward}) {
      const std::string k = gelu::bf16::kernel(t, op);
      if (op == Op::Backward)
        EXPECT_TRUE(k == "gather" || k == "scalar") << k;
      else
        EXPECT_TRUE(k == "gather" || k == "lookup") << k;
#if defined(__AVX512F__) && defined(__AVX512DQ__)
      EXPECT_NE(k, "scalar");
      if (op != Op::Backward && (forced == "gather" || forced == "lookup")) {
        EXPECT_EQ(k, forced);
      }
#else
      EXPECT_NE(k, "gather");
#endif
    }
}

}  // namespace
