// gelulab list [--json]: the activation registry.
#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "gelu/activation.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"

namespace gelu::cli {
namespace {

int run_list(Args& args) {
  const bool json = args.flag("json");
  args.finish();
  if (dry_run()) return 0;
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

GELU_COMMAND(list, "list", "list the activation functions in the registry",
             "usage: gelulab list [--json]\n\n"
             "Lists every registered activation: id, display name, formula and parameters.\n"
             "  --json   one JSON array: ids, names, formulas, parameter ranges, the GLSL twin, whether it\n"
             "           is featured, and its accuracy bounds for f, f', f'' (as the tests assert them)\n",
             run_list);

}  // namespace gelu::cli
