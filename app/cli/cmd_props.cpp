// gelulab props: properties of a registry function solved numerically (gelu::analysis::properties):
// global minimum, zeros of f' and f'', asymptotes, values at notable points.
#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/analysis.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"

namespace gelu::cli {
namespace {

std::string line_text(const analysis::Asymptote& a) {
  if (!a.exists) return "none (no linear asymptote)";
  std::string s = "y = ";
  if (a.slope == 0) return s + format_f64(a.intercept);
  s += a.slope == 1 ? "x" : format_f64(a.slope) + "·x";
  if (a.intercept != 0) s.append(a.intercept > 0 ? " + " : " - ").append(format_f64(std::fabs(a.intercept)));
  return s;
}

void json_asymptote(json::Builder& w, const char* key, const analysis::Asymptote& a) {
  w.key(key);
  if (!a.exists) {
    w.null();
    return;
  }
  w.begin_object().key("slope").value(a.slope).key("intercept").value(a.intercept).end_object();
}

int run_props(Args& args) {
  const Activation& fn = required_function(args, "fn");
  const Params params = parse_params(fn, args.options("param"), "param");
  const auto range_text = args.option("range");
  const Range range = range_text ? parse_range(*range_text, "range") : Range{-20.0, 20.0};
  const bool json = args.flag("json");
  args.finish();
  if (dry_run()) return 0;

  const analysis::Properties p = analysis::properties({&fn, params, 0}, range.a, range.b);

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(fn.id);
    w.key("params").begin_object();
    for (std::size_t i = 0; i < fn.params.size(); ++i)
      w.key(fn.params[i].name).value(params[static_cast<int>(i)]);
    w.end_object();
    w.key("search_range").begin_array().value(p.lo).value(p.hi).end_array();
    w.key("global_minimum");
    if (p.global_minimum)
      w.begin_object()
          .key("x")
          .value(p.global_minimum->x)
          .key("f")
          .value(p.global_minimum->value)
          .end_object();
    else
      w.null();
    w.key("infimum").value(p.infimum);
    w.key("zeros_d1").begin_array();
    for (const analysis::CriticalPoint& c : p.critical_points)
      w.begin_object()
          .key("x")
          .value(c.x)
          .key("f")
          .value(c.value)
          .key("d2")
          .value(c.d2)
          .key("kind")
          .value(c.minimum ? "minimum" : "maximum")
          .end_object();
    w.end_array();
    w.key("zeros_d2").begin_array();
    for (double x : p.inflection_points) w.value(x);
    w.end_array();
    json_asymptote(w, "asymptote_minus_inf", p.minus_inf);
    json_asymptote(w, "asymptote_plus_inf", p.plus_inf);
    w.key("notable").begin_array();
    for (const analysis::NotablePoint& n : p.notable)
      w.begin_object()
          .key("x")
          .value(n.x)
          .key("f")
          .value(n.f)
          .key("d1")
          .value(n.d1)
          .key("d2")
          .value(n.d2)
          .end_object();
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return 0;
  }

  std::string title = std::string(fn.id) + " — " + fn.name + ": " + fn.formula;
  for (std::size_t i = 0; i < fn.params.size(); ++i)
    title.append(i ? ", " : "   [")
        .append(fn.params[i].name)
        .append("=")
        .append(format_f64(params[static_cast<int>(i)]))
        .append(i + 1 == fn.params.size() ? "]" : "");
  std::printf("%s\n", title.c_str());
  if (p.global_minimum)
    std::printf("global minimum:  f(%s) = %s\n", format_f64(p.global_minimum->x).c_str(),
                format_f64(p.global_minimum->value).c_str());
  else
    std::printf("global minimum:  none (infimum %s, not attained at an isolated point)\n",
                format_f64(p.infimum).c_str());
  std::string where = "[";
  where.append(format_f64(p.lo)).append(", ").append(format_f64(p.hi)).append("]");
  std::printf("zeros of f′ in %s:%s\n", where.c_str(), p.critical_points.empty() ? " none" : "");
  for (const analysis::CriticalPoint& c : p.critical_points)
    std::printf("  x = %-24s f = %-24s f″ = %-24s (%s)\n", format_f64(c.x).c_str(),
                format_f64(c.value).c_str(), format_f64(c.d2).c_str(), c.minimum ? "minimum" : "maximum");
  std::printf("zeros of f″ in %s:%s\n", where.c_str(), p.inflection_points.empty() ? " none" : "");
  for (double x : p.inflection_points) std::printf("  x = %s\n", format_f64(x).c_str());
  std::printf("asymptote x → −∞:  %s\n", line_text(p.minus_inf).c_str());
  std::printf("asymptote x → +∞:  %s\n", line_text(p.plus_inf).c_str());
  std::printf("notable points:\n  %-4s %-24s %-24s %s\n", "x", "f", "f′", "f″");
  for (const analysis::NotablePoint& n : p.notable)
    std::printf("  %-4s %-24s %-24s %s\n", format_f64(n.x).c_str(), format_f64(n.f).c_str(),
                format_f64(n.d1).c_str(), format_f64(n.d2).c_str());
  return 0;
}

}  // namespace

GELU_COMMAND(props, "props", "minimum, zeros of f' and f'', asymptotes and notable values of a function",
             "usage: gelulab props --fn ID [--param NAME=VALUE]... [--range A:B] [--json]\n\n"
             "Solves numerically, to full double precision: the zeros of f' (with f and f'' there, and\n"
             "whether each is a minimum or a maximum), the global minimum, the zeros of f'', the linear\n"
             "asymptotes as x -> -inf and x -> +inf, and f, f', f'' at x = -3 .. 3.\n\n"
             "  --fn ID             the function (see gelulab list)\n"
             "  --param NAME=VALUE  override a parameter, within its range (repeatable)\n"
             "  --range A:B         where zeros are searched (default -20:20)\n"
             "  --json              one JSON object\n",
             run_props);

}  // namespace gelu::cli
