// [SECTION] Export: C++, GLSL, CUDA C source of a candidate, and its test vectors.
//
// Index of this file:
//   [SECTION] Test vectors
//   [SECTION] Source text
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "fit_internal.hpp"
#include "gelu/activation.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"

namespace gelu::fit {

using detail::D;
using detail::L;

// [SECTION] Test vectors

std::string TestVectors::text() const {
  std::string out;
  out.reserve(x.size() * 32);
  const bool f64 = format == FormatId::F64;
  for (std::size_t i = 0; i < x.size(); ++i) {
    // Every value of f32, bf16 and f16 is a float: its shortest float text reads back to it in the format.
    if (f64) {
      append_f64(out, x[i]);
      out += ' ';
      append_f64(out, y[i]);
    } else {
      append_f32(out, static_cast<float>(x[i]));
      out += ' ';
      append_f32(out, static_cast<float>(y[i]));
    }
    out += '\n';
  }
  return out;
}

namespace {

/// The candidate as the exported code computes it, for one x (a value of the format): float arithmetic for
/// f32/bf16/f16 (then rounded to the format), double for f64.
template <bool Fused>
double as_exported(const Candidate& c, const Format& fmt, double x) {
  if (fmt.id() == FormatId::F64) {
    double y;
    detail::eval_block<double, Fused>(c, &x, &y, 1);
    return y;
  }
  const float xf = static_cast<float>(x);
  float y;
  detail::eval_block<float, Fused>(c, &xf, &y, 1);
  return fmt.round(static_cast<double>(y));
}

}  // namespace

TestVectors test_vectors(const Candidate& c, std::size_t count) {
  const Spec& s = c.spec;
  const Format fmt(s.format);
  TestVectors v;
  v.format = s.format;
  std::vector<double> xs;
  if (fmt.enumerable() && fmt.enumerate(s.a, s.b).size() <= 65536) {
    xs = fmt.enumerate(s.a, s.b);
  } else {
    count = std::max<std::size_t>(count, 2);
    for (std::size_t i = 0; i < count; ++i)
      xs.push_back(fmt.round(D(L(s.a) + (L(s.b) - L(s.a)) * L(double(i)) / L(double(count - 1)))));
    std::vector<double> special = {s.a, s.b, fmt.next_up(s.a), fmt.next_down(s.b)};
    if (s.a <= 0 && s.b >= 0) special.insert(special.end(), {0.0, -0.0});
    for (double b : c.breakpoints) special.insert(special.end(), {fmt.next_down(b), b, fmt.next_up(b)});
    for (const ErrorPoint& e : c.extrema) special.push_back(fmt.round(e.x));
    for (const ErrorPoint& e : c.reference) special.push_back(fmt.round(e.x));
    xs.insert(xs.end(), special.begin(), special.end());
  }
  xs.erase(std::remove_if(xs.begin(), xs.end(), [&s](double x) { return !(x >= s.a && x <= s.b); }),
           xs.end());
  std::stable_sort(xs.begin(), xs.end());
  // Unique by value and sign (−0 and +0 both stay).
  xs.erase(std::unique(xs.begin(), xs.end(),
                       [](double a, double b) { return a == b && std::signbit(a) == std::signbit(b); }),
           xs.end());
  // The reference of `gelulab check --fn gelu [--order 1]`: the registry's double evaluation rounded once.
  const Activation* target = find_activation("gelu");
  precision::PairCheck ref(zoo::from_registry(*target), fmt, c.function_order());
  for (double x : xs) {
    // y: what the exported code computes — its operation order, fma, float (double for f64) arithmetic —
    // rounded to the format.
    const double y = as_exported<true>(c, fmt, x);
    const double want = ref.expected(x);
    v.x.push_back(x);
    v.y.push_back(y);
    const std::uint64_t d = fmt.ulp_distance(y, want);
    if (d > v.measured_ulp || v.x.size() == 1) {
      v.measured_ulp = d;
      v.x_at_measured = x;
    }
    if (d) ++v.mismatch;
    v.ulp.push_back(d);
    v.abs_error.push_back(std::fabs(y - want));
    const double a = std::fabs(y - want);
    if (a > v.max_abs) v.max_abs = a, v.x_at_max_abs = x;
  }
  v.max_ulp = v.measured_ulp;
  v.abs_weight = s.weight == Weight::Abs;
  return v;
}

std::string TestVectors::budget_json(std::size_t parts) const {
  json::Builder w;
  w.begin_object();
  w.key("specials").value("exact");
  w.key("ranges").begin_array();
  const std::size_t n = x.size();
  parts = std::max<std::size_t>(1, std::min(parts, n));
  for (std::size_t p = 0; p < parts; ++p) {
    const double lo = x[p * n / parts], hi = x[(p + 1) * n / parts - 1];
    std::uint64_t worst = 0;
    double worst_abs = 0;
    std::size_t in = 0, differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!(x[i] >= lo && x[i] <= hi)) continue;
      ++in;
      worst = std::max(worst, ulp[i]);
      worst_abs = std::max(worst_abs, abs_error[i]);
      differ += ulp[i] != 0;
    }
    w.begin_object();
    w.key("range").begin_array().value(lo).value(hi).end_array();
    if (abs_weight)
      w.key("max_abs").value(worst_abs);
    else
      w.key("max_ulp").value(static_cast<unsigned long long>(worst));
    if (differ < in) w.key("max_mismatch").value(differ);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str(2) + "\n";
}

std::string check_command(const Candidate& c, const TestVectors& v, std::string_view pairs,
                          std::string_view budget) {
  std::string cmd = "gelulab check --fn gelu";
  if (c.function_order() == 1) cmd += " --order 1";
  cmd.append(" --dtype ").append(number_format(v.format).name);
  cmd.append(" --pairs ").append(pairs);
  if (!budget.empty()) {
    cmd.append(" --budget ").append(budget);
    return cmd;
  }
  // The gate at the vectors' own figures: an absolute-error fit by its largest absolute error, a relative or
  // ULP fit by its largest ULP error; the exported code meets it exactly, a moved coefficient does not.
  if (c.spec.weight == Weight::Abs)
    cmd.append(" --max-abs ").append(format_f64(v.max_abs));
  else
    cmd.append(" --max-ulp ").append(std::to_string(v.max_ulp));
  // Where most values are correctly rounded (the narrow formats), the count of those that are not: a shift
  // too small to raise the maximum still moves values across rounding boundaries.
  if (v.mismatch < v.x.size()) cmd.append(" --max-mismatch ").append(std::to_string(v.mismatch));
  return cmd;
}

// [SECTION] Source text

std::optional<std::string> why_not_identifier(std::string_view s) {
  if (s.empty() || s.size() > 64 || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return "is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64 characters)";
  for (char ch : s)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'))
      return "is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 64 characters)";
  static const std::set<std::string_view> kCpp = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq",      "restrict",  "_Bool",      "_Complex",  "main"};
  // Names the export's own headers (<cmath>, <cstddef>) define, as macros or in the global namespace.
  static const std::set<std::string_view> kHeaders = {"std",
                                                      "size_t",
                                                      "ptrdiff_t",
                                                      "nullptr_t",
                                                      "max_align_t",
                                                      "offsetof",
                                                      "NULL",
                                                      "NAN",
                                                      "INFINITY",
                                                      "HUGE_VAL",
                                                      "HUGE_VALF",
                                                      "HUGE_VALL",
                                                      "FP_NAN",
                                                      "FP_INFINITE",
                                                      "FP_ZERO",
                                                      "FP_NORMAL",
                                                      "FP_SUBNORMAL",
                                                      "FP_FAST_FMA",
                                                      "FP_FAST_FMAF",
                                                      "FP_ILOGB0",
                                                      "FP_ILOGBNAN",
                                                      "MATH_ERRNO",
                                                      "MATH_ERREXCEPT",
                                                      "math_errhandling",
                                                      "M_E",
                                                      "M_LOG2E",
                                                      "M_LOG10E",
                                                      "M_LN2",
                                                      "M_LN10",
                                                      "M_PI",
                                                      "M_PI_2",
                                                      "M_PI_4",
                                                      "M_1_PI",
                                                      "M_2_PI",
                                                      "M_2_SQRTPI",
                                                      "M_SQRT2",
                                                      "M_SQRT1_2",
                                                      "float_t",
                                                      "double_t",
                                                      "errno",
                                                      "abs",
                                                      "fabs",
                                                      "fabsf",
                                                      "fma",
                                                      "fmaf",
                                                      "fmin",
                                                      "fmax",
                                                      "fminf",
                                                      "fmaxf",
                                                      "sqrt",
                                                      "sqrtf",
                                                      "cbrt",
                                                      "exp",
                                                      "expf",
                                                      "exp2",
                                                      "expm1",
                                                      "log",
                                                      "logf",
                                                      "log2",
                                                      "log10",
                                                      "log1p",
                                                      "pow",
                                                      "powf",
                                                      "sin",
                                                      "cos",
                                                      "tan",
                                                      "asin",
                                                      "acos",
                                                      "atan",
                                                      "atan2",
                                                      "sinh",
                                                      "cosh",
                                                      "tanh",
                                                      "tanhf",
                                                      "asinh",
                                                      "acosh",
                                                      "atanh",
                                                      "erf",
                                                      "erff",
                                                      "erfc",
                                                      "erfcf",
                                                      "tgamma",
                                                      "lgamma",
                                                      "ceil",
                                                      "floor",
                                                      "trunc",
                                                      "round",
                                                      "lround",
                                                      "llround",
                                                      "rint",
                                                      "lrint",
                                                      "nearbyint",
                                                      "fmod",
                                                      "remainder",
                                                      "remquo",
                                                      "copysign",
                                                      "nan",
                                                      "nanf",
                                                      "nextafter",
                                                      "nexttoward",
                                                      "frexp",
                                                      "ldexp",
                                                      "modf",
                                                      "scalbn",
                                                      "scalbln",
                                                      "ilogb",
                                                      "logb",
                                                      "hypot",
                                                      "fdim",
                                                      "isnan",
                                                      "isinf",
                                                      "isfinite",
                                                      "isnormal",
                                                      "signbit",
                                                      "fpclassify",
                                                      "isgreater",
                                                      "isless",
                                                      "gamma",
                                                      "j0",
                                                      "j1",
                                                      "jn",
                                                      "y0",
                                                      "y1",
                                                      "yn",
                                                      "div",
                                                      "labs",
                                                      "min",
                                                      "max",
                                                      "sincos",
                                                      "exp10",
                                                      "pow10"};
  // GLSL 4.60 keywords and reserved words, built-in types and the functions the export calls.
  static const std::set<std::string_view> kGlsl = {"attribute",
                                                   "const",
                                                   "uniform",
                                                   "varying",
                                                   "buffer",
                                                   "shared",
                                                   "coherent",
                                                   "volatile",
                                                   "restrict",
                                                   "readonly",
                                                   "writeonly",
                                                   "atomic_uint",
                                                   "layout",
                                                   "centroid",
                                                   "flat",
                                                   "smooth",
                                                   "noperspective",
                                                   "patch",
                                                   "sample",
                                                   "subroutine",
                                                   "in",
                                                   "out",
                                                   "inout",
                                                   "invariant",
                                                   "precise",
                                                   "discard",
                                                   "lowp",
                                                   "mediump",
                                                   "highp",
                                                   "precision",
                                                   "struct",
                                                   "common",
                                                   "partition",
                                                   "active",
                                                   "asm",
                                                   "class",
                                                   "union",
                                                   "enum",
                                                   "typedef",
                                                   "template",
                                                   "this",
                                                   "resource",
                                                   "goto",
                                                   "inline",
                                                   "noinline",
                                                   "public",
                                                   "static",
                                                   "extern",
                                                   "external",
                                                   "interface",
                                                   "long",
                                                   "short",
                                                   "half",
                                                   "fixed",
                                                   "unsigned",
                                                   "superp",
                                                   "input",
                                                   "output",
                                                   "hvec2",
                                                   "hvec3",
                                                   "hvec4",
                                                   "fvec2",
                                                   "fvec3",
                                                   "fvec4",
                                                   "filter",
                                                   "sizeof",
                                                   "cast",
                                                   "namespace",
                                                   "using",
                                                   "sampler3DRect",
                                                   "int",
                                                   "uint",
                                                   "float",
                                                   "double",
                                                   "bool",
                                                   "void",
                                                   "vec2",
                                                   "vec3",
                                                   "vec4",
                                                   "ivec2",
                                                   "ivec3",
                                                   "ivec4",
                                                   "uvec2",
                                                   "uvec3",
                                                   "uvec4",
                                                   "bvec2",
                                                   "bvec3",
                                                   "bvec4",
                                                   "dvec2",
                                                   "dvec3",
                                                   "dvec4",
                                                   "mat2",
                                                   "mat3",
                                                   "mat4",
                                                   "dmat2",
                                                   "dmat3",
                                                   "dmat4",
                                                   "sampler2D",
                                                   "image2D",
                                                   "true",
                                                   "false",
                                                   "return",
                                                   "break",
                                                   "continue",
                                                   "do",
                                                   "for",
                                                   "while",
                                                   "switch",
                                                   "case",
                                                   "default",
                                                   "if",
                                                   "else",
                                                   "uintBitsToFloat",
                                                   "floatBitsToUint",
                                                   "floatBitsToInt",
                                                   "intBitsToFloat",
                                                   "clamp",
                                                   "mix",
                                                   "step",
                                                   "smoothstep",
                                                   "sign",
                                                   "fract",
                                                   "mod",
                                                   "length",
                                                   "dot",
                                                   "cross",
                                                   "normalize",
                                                   "texture",
                                                   "inversesqrt",
                                                   "radians",
                                                   "degrees"};
  // CUDA's built-in variables, types and the functions the export calls.
  static const std::set<std::string_view> kCuda = {
      "threadIdx",   "blockIdx",     "blockDim",    "gridDim",      "warpSize", "dim3",          "uint3",
      "float2",      "float3",       "float4",      "int2",         "int3",     "int4",          "half2",
      "nv_bfloat16", "nv_bfloat162", "cudaError_t", "cudaStream_t", "__half",   "__nv_bfloat16", "rsqrtf",
      "rsqrt",       "fdividef",     "saturate",    "clock",        "printf",   "malloc",        "free",
      "assert",      "memcpy",       "memset"};
  if (kCpp.count(s)) return "is a C++ keyword (or reserved: main)";
  if (kHeaders.count(s)) return "is taken in C++: <cmath> or <cstddef>, which the export includes, define it";
  if (kGlsl.count(s)) return "is a GLSL keyword, reserved word or built-in";
  if (kCuda.count(s)) return "is a CUDA built-in";
  if (s.rfind("gl_", 0) == 0) return "starts with gl_, which GLSL reserves";
  if (s.rfind("__", 0) == 0 || s.find("__") != std::string_view::npos)
    return "contains __, which C++ and GLSL reserve";
  if (s.size() >= 2 && s[0] == '_' && std::isupper(static_cast<unsigned char>(s[1])))
    return "starts with _ and a capital letter, which C++ reserves";
  return std::nullopt;
}

bool is_identifier(std::string_view s) {
  return !why_not_identifier(s).has_value();
}

std::string hex_literal(double v, bool is_float) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", is_float ? static_cast<double>(static_cast<float>(v)) : v);
  return std::string(buf) + (is_float ? "f" : "");
}

namespace {

enum class Lang { Cpp, Glsl, Cuda };

struct Writer {
  const Candidate& c;
  Lang lang;
  bool dbl;          // double arithmetic (C++/CUDA for f64 candidates)
  std::string name;  // the function's name
  std::string out;

  const char* T() const {
    if (lang == Lang::Glsl && !c.spec.fma) return "precise float";  // no contraction into fma
    return dbl ? "double" : "float";
  }
  /// A constant of the arithmetic type, exactly.
  std::string k(double v) const {
    if (lang != Lang::Glsl) return hex_literal(v, !dbl);
    const float f = static_cast<float>(v);
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    char buf[48];
    std::snprintf(buf, sizeof buf, "uintBitsToFloat(0x%08xu)", bits);
    return buf;
  }
  std::string fma(const std::string& a, const std::string& b, const std::string& cc) const {
    if (!c.spec.fma) {  // each product and sum rounded apart (C++: compile with -ffp-contract=off)
      if (lang == Lang::Cuda)
        return std::string(dbl ? "__dadd_rn(__dmul_rn(" : "__fadd_rn(__fmul_rn(") + a + ", " + b + "), " +
               cc + ")";
      return "(" + a + " * " + b + " + " + cc + ")";
    }
    if (lang == Lang::Glsl) return "fma(" + a + ", " + b + ", " + cc + ")";
    if (lang == Lang::Cuda) return std::string(dbl ? "fma(" : "fmaf(") + a + ", " + b + ", " + cc + ")";
    return "std::fma(" + a + ", " + b + ", " + cc + ")";
  }
  std::string fabs(const std::string& a) const {
    if (lang == Lang::Glsl) return "abs(" + a + ")";
    if (lang == Lang::Cuda) return std::string(dbl ? "fabs(" : "fabsf(") + a + ")";
    return "std::fabs(" + a + ")";
  }
  std::string zero() const { return lang == Lang::Glsl ? "0.0" : (dbl ? "0.0" : "0.0f"); }
  std::string one() const { return lang == Lang::Glsl ? "1.0" : (dbl ? "1.0" : "1.0f"); }
  std::string half() const { return lang == Lang::Glsl ? "0.5" : (dbl ? "0.5" : "0.5f"); }
  std::string hexc(double v) const {  // a coefficient's hex text for comments
    return hex_literal(v, !dbl);
  }
  void line(const std::string& s) { out += "  " + s + "\n"; }
  /// An element of a piecewise table (GLSL keeps float bits: it has no hex float literals).
  std::string table(const std::string& which, const std::string& index) const {
    if (lang == Lang::Glsl) return "uintBitsToFloat(" + name + "_" + which + "_bits[" + index + "])";
    return name + "_" + which + "[" + index + "]";
  }

  /// Horner over coefficients c[first .. first + n) in variable v into `acc` (declared here).
  void horner(const std::string& acc, std::size_t first, std::size_t n, const std::string& v) {
    const std::vector<double>& C = c.coefficients;
    line(std::string(T()) + " " + acc + " = " + k(C[first + n - 1]) + ";" +
         (lang == Lang::Glsl ? "  // " + hexc(C[first + n - 1]) : ""));
    for (std::size_t j = n - 1; j-- > 0;)
      line(acc + " = " + fma(acc, v, k(C[first + j])) + ";" +
           (lang == Lang::Glsl ? "  // " + hexc(C[first + j]) : ""));
  }

  void body() {
    const Spec& s = c.spec;
    const std::size_t n = static_cast<std::size_t>(s.degree) + 1;
    const std::string cT = std::string(lang == Lang::Glsl ? "" : "const ") + T();
    switch (s.form) {
      case Form::Poly:
        horner("p", 0, n, "x");
        line(std::string(T()) + " y = p;");
        break;
      case Form::HalfXPolyAbs:
      case Form::Even:
        line(cT + " t = " + (s.form == Form::Even ? std::string("x * x") : fabs("x")) + ";");
        horner("p", 0, n, "t");
        line(std::string(T()) + " y = " + fma(half(), "x", "p") + ";");
        break;
      case Form::Rational:
        horner("p", 0, n, "x");
        horner("q", n, static_cast<std::size_t>(s.denominator_degree) + 1, "x");
        line(std::string(T()) + " y = p / q;");
        break;
      case Form::Piecewise: {
        const std::size_t K = static_cast<std::size_t>(s.pieces);
        if (s.breakpoints == Breakpoints::Uniform) {
          const double inv_h = static_cast<double>(K) / (s.b - s.a);
          const double inv = dbl ? inv_h : static_cast<double>(static_cast<float>(inv_h));
          line(std::string(T()) + " s = (x - " + k(s.a) + ") * " + k(inv) + ";  // (x - A)·K/(B - A)");
          line("s = s >= " + zero() + " ? s : " + zero() + ";  // NaN → piece 0");
          const std::string top =
              lang == Lang::Glsl ? std::to_string(K - 1) + ".0" : k(static_cast<double>(K - 1));
          line("s = s <= " + top + " ? s : " + top + ";");
          line(std::string(lang == Lang::Glsl ? "" : "const ") + "int j = int(s);");
        } else {
          std::string sum;
          for (std::size_t i = 1; i < K; ++i)
            sum += std::string(i > 1 ? " + " : "") + "(x >= " + k(c.breakpoints[i]) +
                   (lang == Lang::Glsl ? " ? 1 : 0)" : ")");
          line(std::string(lang == Lang::Glsl ? "" : "const ") + "int j = " + (K > 1 ? sum : "0") + ";");
        }
        line(cT + " u = x - " + table("center", "j") + ";");
        const std::string row = "j * " + std::to_string(n) + " + ";
        line(std::string(T()) + " p = " + table("c", row + std::to_string(n - 1)) + ";");
        for (std::size_t j = n - 1; j-- > 0;)
          line("p = " + fma("p", "u", table("c", row + std::to_string(j))) + ";");
        line(std::string(T()) + " y = p;");
        break;
      }
    }
    if (s.target == Target::Phi) line("y = x * y;  // GELU = x·Φ");
    if (s.target == Target::Erf) {
      line(cT + " h = " + half() + " * x;");
      line("y = " + fma("h", "y", "h") + ";  // GELU = ½·x·(1 + erf)");
    }
    if (s.clamp != Clamp::None) {
      const std::string left = s.clamp == Clamp::X ? "x" : zero();
      const std::string right = s.clamp == Clamp::Zero ? zero()
                                : s.clamp == Clamp::X  ? "x"
                                                       : (s.target == Target::GeluPrime ? one() : "x");
      if (lang == Lang::Cpp) {  // on the bits (NAME_select): GCC vectorizes the loop without AVX-512 too
        line("y = " + name + "_select(x < " + k(s.a) + ", " + left + ", y);");
        line("y = " + name + "_select(x > " + k(s.b) + ", " + right + ", y);");
      } else {
        line("y = x < " + k(s.a) + " ? " + left + " : y;");
        line("y = x > " + k(s.b) + " ? " + right + " : y;");
      }
    }
    line("return y;");
  }

  /// Piecewise tables (centres and coefficients, piece after piece).
  void tables(const std::string& qualifier) {
    if (c.spec.form != Form::Piecewise) return;
    const auto list = [this](const std::vector<double>& v) {
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (lang == Lang::Glsl) {
          const float f = static_cast<float>(v[i]);
          std::uint32_t bits;
          std::memcpy(&bits, &f, sizeof bits);
          char buf[16];
          std::snprintf(buf, sizeof buf, "0x%08xu", bits);
          s += buf;
        } else {
          s += hex_literal(v[i], !dbl);
        }
        s += i + 1 < v.size() ? (i % 4 == 3 ? ",\n    " : ", ") : "";
      }
      return s;
    };
    const std::string et = lang == Lang::Glsl ? "uint" : T();
    const auto arr = [&](const std::string& nm, const std::vector<double>& v) {
      out += qualifier + et + " " + nm + "[" + std::to_string(v.size()) + "] = ";
      out += lang == Lang::Glsl ? "uint[](\n    " : "{\n    ";
      out += list(v) + (lang == Lang::Glsl ? ");\n" : "};\n");
    };
    if (lang == Lang::Glsl) {
      out += "// Tables as float bits (GLSL has no hex float literals); read with uintBitsToFloat.\n";
      arr(name + "_center_bits", c.centers);
      arr(name + "_c_bits", c.coefficients);
    } else {
      arr(name + "_center", c.centers);
      arr(name + "_c", c.coefficients);
    }
  }
};

std::string header_comment(const Candidate& c, const ExportOptions& o, const char* lead,
                           bool arithmetic_double, bool glsl) {
  const Spec& s = c.spec;
  std::string h;
  const auto l = [&](const std::string& t) { h += std::string(lead) + t + "\n"; };
  const char* what = s.target == Target::GeluPrime ? "GELU′(x)" : "GELU(x)";
  l(o.name + ": " + what + " ≈ " + c.formula());
  l("Fitted by GELU Lab" + (o.command.empty() ? std::string(".") : ": " + o.command));
  if (!o.note.empty()) l(o.note);
  l(std::string("Coefficients: ") + number_format(s.format).name + " values, lowest power first" +
    (s.form == Form::Rational ? " (numerator, then denominator)" : "") + "; arithmetic in " +
    (arithmetic_double ? "double" : "float") +
    (s.fma ? " with fma" : " without fma (each product and sum rounded; C++: -ffp-contract=off)") +
    ", in the designer's order" +
    (glsl && s.format == FormatId::F64 ? " (f64 coefficients rounded to float: GLSL export is float)" : "") +
    ".");
  l("Max " + std::string(name(s.weight)) + " error " + format_f64(c.max_error) +
    " at x = " + format_f64(c.x_at_max) +
    (c.certified ? " (certified by Sollya's supnorm: [" + format_f64(c.certified_lo) + ", " +
                       format_f64(c.certified_hi) + "])"
                 : " (sampled: dense sampling + local maximization)") +
    "; max |" + (s.target == Target::GeluPrime ? "GELU′" : "GELU") + " - this| " +
    format_f64(c.gelu_abs_error) + ".");
  l("Cost: " + c.cost().text() + ".");
  if (!o.vectors_file.empty())
    l("Test vectors: " + o.vectors_file + " (x and what this code computes, rounded to " +
      number_format(s.format).name + ").");
  if (!o.check.empty()) {
    l("Verify an implementation's outputs (x y pairs) with:");
    l("  " + o.check);
  }
  return h;
}

}  // namespace

std::string export_cpp(const Candidate& c, const ExportOptions& o) {
  const bool dbl = c.spec.format == FormatId::F64;
  Writer w{c, Lang::Cpp, dbl, o.name, {}};
  std::string out = header_comment(c, o, "// ", dbl, false);
  out += "#pragma once\n\n#include <cmath>\n#include <cstddef>\n";
  if (c.spec.clamp != Clamp::None) out += "#include <cstdint>\n#include <cstring>\n";
  out += "\n";
  w.tables("inline constexpr ");
  if (!w.out.empty()) w.out += "\n";
  if (c.spec.clamp != Clamp::None) {
    // A select on the bits: GCC 12 turns `c ? a : b` in a loop into vector selects only with AVX-512's masks
    // (elsewhere -ftrapping-math keeps the branch and the loop stays scalar); this form vectorizes on AVX2
    // too.
    const std::string T = w.T(), U = dbl ? "std::uint64_t" : "std::uint32_t";
    w.out += "// c ? a : b, on the bits (so the array loop below vectorizes without AVX-512 as well).\n";
    w.out += "inline " + T + " " + o.name + "_select(bool c, " + T + " a, " + T + " b) {\n";
    w.out += "  const " + U + " m = " + U + "(0) - static_cast<" + U + ">(c);\n";
    w.out += "  " + U + " ua, ub;\n";
    w.out += "  std::memcpy(&ua, &a, sizeof ua);\n";
    w.out += "  std::memcpy(&ub, &b, sizeof ub);\n";
    w.out += "  const " + U + " r = (ua & m) | (ub & ~m);\n";
    w.out += "  " + T + " y;\n";
    w.out += "  std::memcpy(&y, &r, sizeof y);\n";
    w.out += "  return y;\n}\n\n";
  }
  w.out += "inline " + std::string(w.T()) + " " + o.name + "(" + w.T() + " x) {\n";
  w.body();
  w.out += "}\n\n";
  w.out +=
      "// y[i] = " + o.name + "(x[i]). Branch-free (the clamps are selects), so GCC and Clang vectorize it\n";
  w.out += "// (-O3 -march=native; x and y must not overlap partially).\n";
  w.out += "inline void " + o.name + "_n(const " + w.T() + "* x, " + w.T() + "* y, std::size_t n) {\n";
  w.out += "  for (std::size_t i = 0; i < n; ++i) y[i] = " + o.name + "(x[i]);\n}\n";
  return out + w.out;
}

std::string export_glsl(const Candidate& c, const ExportOptions& o) {
  Writer w{c, Lang::Glsl, false, o.name, {}};
  std::string out = header_comment(c, o, "// ", false, true);
  out += "// GLSL 4.30 (or ES 3.20): fma() needs 4.00 / ES 3.20.\n";
  w.tables("const ");
  if (!w.out.empty()) w.out += "\n";
  w.out += "float " + o.name + "(float x) {\n";
  w.body();
  w.out += "}\n";
  return out + w.out;
}

std::string export_cuda(const Candidate& c, const ExportOptions& o) {
  const bool dbl = c.spec.format == FormatId::F64;
  Writer w{c, Lang::Cuda, dbl, o.name, {}};
  std::string out = header_comment(c, o, "// ", dbl, false);
  out += "// CUDA C (nvcc, C++17 for the hex float literals).\n#pragma once\n\n";
  // Host code cannot read __constant__ memory: a piecewise candidate's function is __device__ only.
  w.tables("__constant__ ");
  if (!w.out.empty()) w.out += "\n";
  const std::string quals = c.spec.form == Form::Piecewise ? "__device__" : "__host__ __device__";
  w.out += quals + " __forceinline__ " + std::string(w.T()) + " " + o.name + "(" + w.T() + " x) {\n";
  w.body();
  w.out += "}\n\n";
  w.out += "// y[i] = " + o.name + "(x[i]) for i < n, grid-stride.\n";
  w.out += "__global__ void " + o.name + "_kernel(const " + w.T() + "* __restrict__ x, " + w.T() +
           "* __restrict__ y, int n) {\n";
  w.out +=
      "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = " +
      o.name + "(x[i]);\n}\n";
  return out + w.out;
}

}  // namespace gelu::fit
