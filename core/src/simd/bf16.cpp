// [SECTION] bf16 arrays (gelu/kernels.hpp): dispatch to the AVX-512 loop (gathers from the float tables of
// bf16_table.hpp, with AVX512_BF16 conversions where the CPU has them) or to the lookup of the correctly
// rounded results (f and f′, whichever is faster on this CPU), or the portable path: the lookup, and the
// float tables one element at a time for the backward pass.
#include "bf16.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bf16_table.hpp"
#include "formulas.hpp"
#include "gelu/activation.hpp"
#include "gelu/format.hpp"
#include "gelu/kernels.hpp"
#include "simd_config.hpp"
#include "simd_fast.hpp"
#include "simd_gelu.hpp"

namespace gelu::bf16 {
namespace {

#ifdef GELU_AVX512
bool cpu_has_bf16() {
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
}
#endif

double xval(std::uint16_t b) {
  return static_cast<double>(to_float(b));
}

}  // namespace

float to_float(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::uint16_t from_float(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

}  // namespace gelu::bf16

namespace gelu::simd {

double bf16_reference(Bf16Op op, bool tanh_form, double x, double dy) {
  namespace F = formulas;
  double r;
  if (op == Bf16Op::F) {
    r = tanh_form ? F::gelu_tanh(x, kBf16TanhC) : F::gelu(x);
    // The correctly rounded bf16 value (the registry's tie rule: at tiny x the double is x/2 exactly, a tie
    // of bf16's subnormals at 128 inputs, while the exact value lies above it).
    static const Activation& gelu = *find_activation("gelu");
    static const Activation& gelu_tanh = *find_activation("gelu_tanh");
    r = correctly_rounded(tanh_form ? gelu_tanh : gelu, Format(FormatId::BF16), x, r);
  } else {
    r = tanh_form ? F::gelu_tanh_d1(x, kBf16TanhC) : F::gelu_d1(x);
  }
  return op == Bf16Op::Backward ? r * dy : r;
}

namespace {

/// The table of one (form, order), built at its own first use (a few milliseconds each) by make(form, op);
/// each call site (each Make) has its own four.
template <class Table, class Make>
const Table& table_of(bool tanh_form, bool d1, const Make& make) {
  static std::once_flag once[2][2];
  static std::optional<Table> tables[2][2];
  const int f = tanh_form ? 1 : 0, o = d1 ? 1 : 0;
  std::call_once(once[f][o], [&] { tables[f][o].emplace(make(tanh_form, d1 ? Bf16Op::D1 : Bf16Op::F)); });
  return *tables[f][o];
}

/// The correctly rounded bf16 result at every bf16 value.
struct Results {
  std::vector<std::uint16_t> v;
  Results(bool t, Bf16Op op) : v(std::size_t(1) << 16) {
    for (std::uint32_t b = 0; b < (1u << 16); ++b)
      v[b] = bf16_from_double(bf16_reference(op, t, bf16::xval(static_cast<std::uint16_t>(b)), 1.0));
  }
};

}  // namespace

const float* bf16_table(bool tanh_form, bool d1) {
  return table_of<Bf16Table>(tanh_form, d1,
                             [](bool t, Bf16Op op) {
                               return Bf16Table([t, op](double v) { return bf16_reference(op, t, v, 1.0); });
                             })
      .data();
}

const std::uint16_t* bf16_result_table(bool tanh_form, bool d1) {
  return table_of<Results>(tanh_form, d1, [](bool t, Bf16Op op) { return Results(t, op); }).v.data();
}

void gelu_bf16_lookup(Bf16Op op, bool tanh_form, const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  const std::uint16_t* t = bf16_result_table(tanh_form, op != Bf16Op::F);
  // Scalar loads on purpose: the empty asm keeps each index in a general register, so the compiler cannot
  // turn the loop into the vgatherdps it is there to avoid.
  auto one = [t, x, y](std::size_t i) {
    std::uint32_t b = x[i];
    asm("" : "+r"(b));
    y[i] = t[b];
  };
  const std::size_t n4 = n / 4 * 4;
  for (std::size_t i = 0; i < n4; i += 4) {
    one(i);
    one(i + 1);
    one(i + 2);
    one(i + 3);
  }
  for (std::size_t i = n4; i < n; ++i) one(i);
}

/// The portable bf16 path: f and f′ by gelu_bf16_lookup; the backward pass from the float tables one element
/// at a time, the guard's lanes, and those where f′ is zero or subnormal in float (a large dy could bring the
/// lost precision back into range), from the double reference.
void gelu_bf16_portable(Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
                        std::uint16_t* y, std::size_t n) {
  if (op != Bf16Op::Backward) return gelu_bf16_lookup(op, tanh_form, x, y, n);
  const float* t = bf16_table(tanh_form, true);
  for (std::size_t i = 0; i < n; ++i) {
    const double g = bf16::xval(dy[i]);
    const bool lost = std::fabs(t[x[i]]) < 0x1p-126f && g != 0;
    const float v = t[x[i]] * static_cast<float>(g);
    y[i] = lost || bf16_near_boundary(v)
               ? bf16_from_double(bf16_reference(op, tanh_form, bf16::xval(x[i]), g))
               : bf16::from_float(v);
  }
}

}  // namespace gelu::simd

namespace gelu::bf16 {
namespace {

#ifdef GELU_AVX512
enum class Kernel { Gather, Lookup };

void run_with(Kernel k, simd::Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy,
              std::uint16_t* y, std::size_t n) {
  if (k == Kernel::Lookup) return simd::gelu_bf16_lookup(op, tanh_form, x, y, n);
  (tanh_form ? simd::gelu_tanh_bf16 : simd::gelu_bf16)(op, x, dy, y, n, cpu_has_bf16());
}

/// The faster of the two kernels for f or f′ of one form on this CPU: both run on the same 4,096 inputs (a
/// fixed draw, uniform over [−8, 8]), four calls per measurement, seven measurements each, alternated; the
/// smaller minimum wins. Both give the same bits, so the choice only moves time (core/src/simd/README.md,
/// "bf16 by table").
Kernel time_kernels(simd::Bf16Op op, bool tanh_form) {
  constexpr std::size_t kN = 4096;
  std::vector<std::uint16_t> x(kN), y(kN);
  std::uint32_t s = 12345u;
  for (std::uint16_t& v : x) {
    s = s * 1664525u + 1013904223u;  // a fixed LCG: the same inputs in every process
    v = from_float(static_cast<float>(static_cast<double>(s >> 8) * 0x1p-24 * 16.0 - 8.0));
  }
  using Clock = std::chrono::steady_clock;
  auto once = [&](Kernel k) {
    const Clock::time_point t0 = Clock::now();
    for (int rep = 0; rep < 4; ++rep) run_with(k, op, tanh_form, x.data(), nullptr, y.data(), kN);
    return Clock::now() - t0;
  };
  once(Kernel::Gather);  // builds the tables, warms both paths
  once(Kernel::Lookup);
  Clock::duration gather = Clock::duration::max(), lookup = Clock::duration::max();
  for (int m = 0; m < 7; ++m) {
    gather = std::min(gather, once(Kernel::Gather));
    lookup = std::min(lookup, once(Kernel::Lookup));
  }
  return lookup < gather ? Kernel::Lookup : Kernel::Gather;
}

/// The kernel for op: the backward pass always gathers (a lookup of dy·f′ would need f′ in float, dy's
/// product, the rounding and the guard per element); f and f′ take GELU_BF16_KERNEL=gather or =lookup where
/// set, else the faster one, timed once per form and order at its first call.
Kernel kernel_for(simd::Bf16Op op, bool tanh_form) {
  if (op == simd::Bf16Op::Backward) return Kernel::Gather;
  static const int forced = [] {
    const char* e = std::getenv("GELU_BF16_KERNEL");
    if (e && std::string(e) == "gather") return 0;
    if (e && std::string(e) == "lookup") return 1;
    return -1;
  }();
  if (forced >= 0) return forced ? Kernel::Lookup : Kernel::Gather;
  static std::once_flag once[2][2];
  static Kernel chosen[2][2];
  const int f = tanh_form ? 1 : 0, o = op == simd::Bf16Op::D1 ? 1 : 0;
  std::call_once(once[f][o], [&] { chosen[f][o] = time_kernels(op, tanh_form); });
  return chosen[f][o];
}
#endif

void run(simd::Bf16Op op, bool tanh_form, const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* y,
         std::size_t n) {
#ifdef GELU_AVX512
  run_with(kernel_for(op, tanh_form), op, tanh_form, x, dy, y, n);
#else
  simd::gelu_bf16_portable(op, tanh_form, x, dy, y, n);
#endif
}

}  // namespace

void gelu(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::F, false, x, nullptr, y, n);
}
void gelu_d1(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::D1, false, x, nullptr, y, n);
}
void gelu_tanh(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::F, true, x, nullptr, y, n);
}
void gelu_tanh_d1(const std::uint16_t* x, std::uint16_t* y, std::size_t n) {
  run(simd::Bf16Op::D1, true, x, nullptr, y, n);
}
void gelu_backward(const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* dx, std::size_t n) {
  run(simd::Bf16Op::Backward, false, x, dy, dx, n);
}
void gelu_tanh_backward(const std::uint16_t* x, const std::uint16_t* dy, std::uint16_t* dx, std::size_t n) {
  run(simd::Bf16Op::Backward, true, x, dy, dx, n);
}

const char* kernel(bool tanh_form, Op op) {
#ifdef GELU_AVX512
  const simd::Bf16Op o =
      op == Op::F ? simd::Bf16Op::F : (op == Op::D1 ? simd::Bf16Op::D1 : simd::Bf16Op::Backward);
  return kernel_for(o, tanh_form) == Kernel::Gather ? "gather" : "lookup";
#else
  (void)tanh_form;
  return op == Op::Backward ? "scalar" : "lookup";
#endif
}

const char* isa() {
#ifdef GELU_AVX512
#ifdef __AVX512BF16__
  if (cpu_has_bf16()) return "avx512bf16";
#endif
  return "avx512";
#else
  return "portable";
#endif
}

}  // namespace gelu::bf16
