// Options shared by the subcommands that take a registry function (eval, error, props): --fn/--vs ids,
// --param NAME=VALUE checked against the ParamSpec range, --order, --dtype, --range A:B.
// Every bad value is a UsageError with a one-line message naming the option and the value.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/numio.hpp"

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

/// nullopt when --dtype is absent, so a caller can pick a default that depends on other options.
inline std::optional<analysis::Dtype> parse_dtype(Args& args) {
  const auto d = args.option("dtype");
  if (!d) return std::nullopt;
  if (*d == "f32") return analysis::Dtype::F32;
  if (*d == "f64") return analysis::Dtype::F64;
  throw UsageError("--dtype: " + quote(*d) + " is not one of f32, f64");
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
