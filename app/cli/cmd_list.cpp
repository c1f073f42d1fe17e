// gelulab list [--zoo] [--json]: the activation registry, or the approximation zoo.
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "gelu/activation.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "gelu/zoo.hpp"

namespace gelu::cli {
namespace {

const char* origin(zoo::Origin o) {
  switch (o) {
    case zoo::Origin::Builtin:
      return "builtin";
    case zoo::Origin::Registry:
      return "registry";
    case zoo::Origin::Peer:
      return "peer";
    case zoo::Origin::User:
      return "user";
  }
  return "?";
}

void list_zoo(bool json) {
  const std::vector<zoo::Entry> all = zoo::entries();
  if (json) {
    json::Builder w;
    w.begin_array();
    for (const zoo::Entry& e : all) {
      w.begin_object();
      w.key("id").value(e.id).key("name").value(e.name).key("formula").value(e.formula);
      w.key("used_in")
          .value(e.used_in)
          .key("citation")
          .value(e.citation)
          .key("origin")
          .value(origin(e.origin));
      w.key("cost").begin_object();
      w.key("multiply_adds").value(e.cost.multiply_adds).key("divisions").value(e.cost.divisions);
      w.key("transcendentals").value(e.cost.transcendentals).key("comparisons").value(e.cost.comparisons);
      w.key("table_bytes").value(e.cost.table_bytes).key("weighted").value(e.cost.weighted());
      w.end_object();
      w.key("derivative").value(e.has_d1());
      w.key("uses_compute").value(e.uses_compute);
      w.key("published_max_error");
      if (std::isnan(e.published_max_error))
        w.null();
      else
        w.value(e.published_max_error);
      w.end_object();
    }
    w.end_array();
    std::printf("%s\n", w.str().c_str());
    return;
  }
  for (const zoo::Entry& e : all)
    std::printf("%-15s %-36s %s\n%15s %s; %s\n", e.id.c_str(), e.name.c_str(), e.formula.c_str(), "",
                e.cost.text().c_str(), e.used_in.c_str());
}

int run_list(Args& args) {
  const bool json = args.flag("json");
  const bool zoo = args.flag("zoo");
  args.finish();
  if (dry_run()) return 0;
  if (zoo) {
    list_zoo(json);
    return 0;
  }
  if (json) {
    // Everything a generator needs (tools/gen_from_registry.py: the README's function table, the fuzz
    // dictionaries): the registry is the only list of functions.
    json::Array out;
    for (const Activation& a : registry()) {
      json::Object o;
      o["id"] = a.id;
      o["name"] = a.name;
      o["formula"] = a.formula;
      o["description"] = a.description;
      o["glsl"] = a.glsl_name;
      o["featured"] = a.featured;
      json::Array params;
      for (const ParamSpec& p : a.params)
        params.emplace_back(json::Object{{"name", p.name},
                                         {"default", p.default_value},
                                         {"min", p.min},
                                         {"max", p.max},
                                         {"description", p.description}});
      o["params"] = std::move(params);
      json::Array acc;
      for (const Accuracy& b : a.accuracy)
        acc.emplace_back(json::Object{{"f64_ulp", static_cast<double>(b.f64_ulp)},
                                      {"f32_ulp", static_cast<double>(b.f32_ulp)},
                                      {"near_root_abs", b.near_root_abs},
                                      {"subnormal_steps", b.subnormal_steps}});
      o["accuracy"] = std::move(acc);
      out.emplace_back(std::move(o));
    }
    std::printf("%s\n", json::write(json::Value(std::move(out))).c_str());
    return 0;
  }
  for (const Activation& a : registry()) {
    std::string params;
    for (const ParamSpec& p : a.params) {
      params += params.empty() ? "  [" : ", ";
      params += std::string(p.name) + "=" + format_f64(p.default_value);
    }
    if (!params.empty()) params += "]";
    std::printf("%-13s %-28s %s%s\n", a.id, a.name, a.formula, params.c_str());
  }
  return 0;
}

}  // namespace

GELU_COMMAND(
    list, "list", "list the activation functions in the registry (--zoo: the approximation zoo)",
    "usage: gelulab list [--zoo] [--json]\n\n"
    "Lists every registered activation: id, display name, formula and parameters.\n"
    "  --zoo    the approximation zoo instead: every GELU approximation as shipped, with its\n"
    "           formula, cost and where it is used (ids for error, eval and check --fn)\n"
    "  --json   one JSON array: ids, names, formulas, parameter ranges, the GLSL twin, whether it is\n"
    "           featured, its accuracy bounds for f, f', f'' (as the tests assert them) (with --zoo:\n"
    "           used_in, citation, cost, derivative, published_max_error)\n",
    run_list);

}  // namespace gelu::cli
