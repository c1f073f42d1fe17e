// [SECTION] Export: C++, GLSL, CUDA C source of a candidate, and its test vectors.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "fit_internal.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/numio.hpp"

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
  for (double x : xs) {
    const long double f = c.value_ld(x);
    const double exact = D(compose_ld(s.target, x, target_ld(s.target, x)));
    v.x.push_back(x);
    v.y.push_back(fmt.round(D(compose_ld(s.target, x, f))));
    for (double impl : {as_exported<true>(c, fmt, x), as_exported<false>(c, fmt, x)}) {
      const std::uint64_t d = fmt.ulp_distance(impl, exact);
      if (d > v.measured_ulp) {
        v.measured_ulp = d;
        v.x_at_measured = x;
      }
    }
  }
  v.max_ulp = v.measured_ulp + 1;
  return v;
}

std::string check_command(const Candidate& c, const TestVectors& v, std::string_view pairs) {
  std::string cmd = "gelulab check --fn gelu";
  if (c.function_order() == 1) cmd += " --order 1";
  cmd.append(" --dtype ").append(number_format(v.format).name);
  cmd.append(" --pairs ").append(pairs);
  cmd.append(" --max-ulp ").append(std::to_string(v.max_ulp));
  return cmd;
}

// [SECTION] Source text

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char ch : s)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  static const std::set<std::string_view> kKeywords = {
      "auto",     "bool",    "break",  "case",    "char",     "const",    "continue", "default",   "do",
      "double",   "else",    "enum",   "extern",  "float",    "for",      "goto",     "if",        "inline",
      "int",      "long",    "return", "short",   "signed",   "sizeof",   "static",   "struct",    "switch",
      "union",    "void",    "while",  "class",   "new",      "delete",   "template", "this",      "true",
      "false",    "main",    "in",     "out",     "inout",    "uniform",  "buffer",   "layout",    "vec2",
      "vec3",     "vec4",    "uint",   "discard", "precise",  "abs",      "fma",      "namespace", "using",
      "operator", "private", "public", "virtual", "typename", "unsigned", "register"};
  return !kKeywords.count(s) && s.rfind("gl_", 0) != 0 && s.rfind("__", 0) != 0;
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
      line("y = x < " + k(s.a) + " ? " + left + " : y;");
      line("y = x > " + k(s.b) + " ? " + right + " : y;");
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
    l("Test vectors: " + o.vectors_file + " (x and the expected " + number_format(s.format).name +
      " value).");
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
  out += "#pragma once\n\n#include <cmath>\n#include <cstddef>\n\n";
  w.tables("inline constexpr ");
  if (!w.out.empty()) w.out += "\n";
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
