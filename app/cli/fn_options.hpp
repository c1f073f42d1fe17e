// Options shared by the subcommands that take a registry function or a zoo entry (eval, error, props, check):
// --fn/--vs ids, --param NAME=VALUE checked against the ParamSpec range, --order, --dtype and --compute (the
// number-format table, gelu/format.hpp) with int8's quantization (--scale, --zero-point, --int8-range),
// --range A:B. Every bad value is a UsageError with a one-line message naming the option and the value.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/format.hpp"
#include "gelu/numio.hpp"
#include "gelu/zoo.hpp"

namespace gelu::cli {

inline const Activation& required_function(Args& args, const char* option) {
  const auto id = args.option(option);
  if (!id) throw UsageError("missing --" + std::string(option) + " ID (one of: " + activation_ids() + ")");
  const Activation* a = find_activation(*id);
  if (!a)
    throw UsageError("--" + std::string(option) + ": unknown function " + quote(*id) +
                     " (one of: " + activation_ids() + ")");
  return *a;
}

/// The function's defaults overridden by NAME=VALUE assignments, each checked against its ParamSpec. The
/// option repeats for different parameters; the same parameter twice is an error, as any option given twice.
inline Params parse_params(const Activation& a, const std::vector<std::string>& assignments,
                           const char* option) {
  Params p = a.defaults();
  std::vector<std::string> given(a.params.size());  // the assignment that set each parameter
  for (const std::string& s : assignments) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--" + std::string(option) + ": " + quote(s) + " is not NAME=VALUE");
    const std::string name = s.substr(0, eq), text = s.substr(eq + 1);
    const int i = a.param_index(name);
    if (i < 0) {
      std::string known;
      for (const ParamSpec& ps : a.params) known += (known.empty() ? "" : ", ") + std::string(ps.name);
      throw UsageError("--" + std::string(option) + ": unknown parameter " + quote(name) + " for " + a.id +
                       (known.empty() ? " (it has no parameters)" : " (parameters: " + known + ")"));
    }
    const auto v = parse_f64(text);
    if (!v)
      throw UsageError("--" + std::string(option) + ": " + name + "=" + quote(text) + " is not a number");
    const ParamSpec& ps = a.params[static_cast<std::size_t>(i)];
    if (!(*v >= ps.min && *v <= ps.max))
      throw UsageError("--" + std::string(option) + ": " + name + "=" + printable(text) + " is outside [" +
                       format_f64(ps.min) + ", " + format_f64(ps.max) + "]");
    std::string& first = given[static_cast<std::size_t>(i)];
    if (!first.empty())
      throw UsageError("--" + std::string(option) + ": " + name + " is given twice (" + quote(first) + ", " +
                       quote(s) + "); give it once");
    first = s;
    p[i] = *v;
  }
  return p;
}

inline int parse_order(Args& args) {
  const auto o = args.option("order");
  return o ? static_cast<int>(Args::to_int("order", *o, 0, kMaxOrder)) : 0;
}

/// A function named by --fn: a registry function, or an entry of the approximation zoo (gelu/zoo.hpp).
struct Subject {
  const Activation* fn = nullptr;   // set for a registry function
  std::optional<zoo::Entry> entry;  // set for a zoo entry
  std::string id() const { return fn ? std::string(fn->id) : entry->id; }
};

inline std::string function_choices() {
  return "registry: " + activation_ids() + "; zoo: " + zoo::ids();
}

/// A registry function or zoo entry by id; unknown ids are a UsageError naming the option.
inline Subject subject(const std::string& id, const char* option) {
  if (const Activation* a = find_activation(id)) return Subject{a, std::nullopt};
  if (std::optional<zoo::Entry> e = zoo::find(id)) return Subject{nullptr, std::move(e)};
  throw UsageError("--" + std::string(option) + ": unknown function " + quote(id) + " (" +
                   function_choices() + ")");
}

/// int8's quantization: --scale S [--zero-point Z], or --int8-range A:B (symmetric when A = -B: zero point 0
/// and ±B at codes ±127; else asymmetric over the 256 codes). nullopt when none is given.
inline std::optional<Quantization> parse_quantization(Args& args) {
  const auto scale = args.option("scale"), zero = args.option("zero-point"),
             range = args.option("int8-range");
  if (range && (scale || zero))
    throw UsageError("--int8-range: give either --int8-range A:B or --scale S [--zero-point Z], not both");
  if (zero && !scale) throw UsageError("--zero-point: needs --scale S");
  if (scale) {
    const double s = Args::to_double("scale", *scale);
    if (!(s > 0) || !std::isfinite(s) || s > 1e30)
      throw UsageError("--scale: " + printable(*scale) + " is not a number in (0, 1e30]");
    const int z = zero ? static_cast<int>(Args::to_int("zero-point", *zero, -128, 127)) : 0;
    return Quantization{s, z};
  }
  if (range) {
    const std::string what = "--int8-range: " + quote(*range);
    const auto colon = range->find(':');
    if (colon == std::string::npos) throw UsageError(what + " is not A:B");
    const auto a = parse_f64(range->substr(0, colon)), b = parse_f64(range->substr(colon + 1));
    if (!a || !b) throw UsageError(what + " is not A:B with numbers A and B");
    if (!std::isfinite(*a) || !std::isfinite(*b) || std::fabs(*a) > 1e30 || std::fabs(*b) > 1e30)
      throw UsageError(what + " must have finite ends within ±1e30");
    if (!(*a < *b)) throw UsageError(what + " needs A < B");
    const bool symmetric = *a == -*b;
    const Quantization q = symmetric ? Quantization::symmetric(*b) : Quantization::asymmetric(*a, *b);
    // Checked here, so that the message names --int8-range and its value (the format's own check would
    // speak of a zero point the user never gave).
    if (!(q.scale > 0) || !std::isfinite(q.scale))
      throw UsageError(what + " is too narrow: its scale " + (symmetric ? "B/127" : "(B - A)/255") + " is " +
                       format_f64(q.scale) + ", not a positive number; give a wider range");
    return q;
  }
  return std::nullopt;
}

/// A format by name (one of the format table's), with int8's quantization.
inline Format format_named(const std::string& name, const char* option, const Quantization& q) {
  if (std::optional<Format> f = Format::parse(name, q)) return *f;
  throw UsageError("--" + std::string(option) + ": " + quote(name) + " is not one of " +
                   number_format_names());
}

/// --dtype FMT (one format) with int8's quantization options; nullopt when --dtype is absent, so a caller can
/// pick a default that depends on other options. The quantization options are an error unless FMT is int8.
inline std::optional<Format> parse_dtype(Args& args) {
  const auto d = args.option("dtype");
  const std::optional<Quantization> q = parse_quantization(args);
  if (!d) {
    if (q) throw UsageError("--scale, --zero-point and --int8-range apply to --dtype int8 only");
    return std::nullopt;
  }
  const Format f = format_named(*d, "dtype", q.value_or(Quantization{}));
  if (q && f.id() != FormatId::Int8)
    throw UsageError("--scale, --zero-point and --int8-range apply to --dtype int8, not " + quote(*d));
  return f;
}

/// --dtype A,B,… (error: several formats at once); empty when absent.
inline std::vector<Format> parse_dtypes(Args& args) {
  const auto d = args.option("dtype");
  const std::optional<Quantization> q = parse_quantization(args);
  std::vector<Format> out;
  if (!d) {
    if (q) throw UsageError("--scale, --zero-point and --int8-range apply to --dtype int8 only");
    return out;
  }
  std::size_t at = 0;
  bool int8 = false;
  for (;;) {
    const std::size_t comma = d->find(',', at);
    const std::string name = d->substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const Format f = format_named(name, "dtype", q.value_or(Quantization{}));
    for (const Format& g : out)
      if (g.id() == f.id()) throw UsageError("--dtype: " + quote(name) + " is listed twice");
    int8 = int8 || f.id() == FormatId::Int8;
    out.push_back(f);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (q && !int8) throw UsageError("--scale, --zero-point and --int8-range apply to --dtype int8 only");
  return out;
}

/// --compute FMT: the format zoo entries compute their intermediates in (int8 is not one).
inline std::optional<Format> parse_compute(Args& args) {
  const auto c = args.option("compute");
  if (!c) return std::nullopt;
  const Format f = format_named(*c, "compute", Quantization{});
  if (f.id() == FormatId::Int8)
    throw UsageError(
        "--compute: int8 is a storage format, not one to compute in (f64, f32, bf16, f16, e4m3, e5m2)");
  if (f.row().unsigned_only)
    throw UsageError("--compute: " + std::string(f.name()) +
                     " is a scale format (no sign), not one to compute in (f64, f32, bf16, f16, e4m3, e5m2)");
  return f;
}

struct Range {
  double a, b;
};
/// "A:B" with A < B, both finite numbers (decimal or hex), and a finite width B - A (the samples are
/// A + i·(B - A)/(N - 1)).
inline Range parse_range(const std::string& text, const char* option) {
  const std::string what = "--" + std::string(option) + ": " + quote(text);
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw UsageError(what + " is not A:B");
  const auto a = parse_f64(text.substr(0, colon)), b = parse_f64(text.substr(colon + 1));
  if (!a || !b) throw UsageError(what + " is not A:B with numbers A and B");
  if (!std::isfinite(*a) || !std::isfinite(*b)) throw UsageError(what + " must have finite ends");
  if (*a == *b) throw UsageError(what + " is an empty range");
  if (*a > *b) throw UsageError(what + " is reversed (A must be less than B)");
  if (!std::isfinite(*b - *a)) throw UsageError(what + " is too wide (B - A overflows a double)");
  return {*a, *b};
}

}  // namespace gelu::cli
