// gelulab list [--json]: the activation registry.
#include <cstdio>
#include <string>

#include "cli/cli.hpp"
#include "cli/json_writer.hpp"
#include "gelu/activation.hpp"
#include "gelu/numio.hpp"

namespace gelu::cli {
namespace {

int run_list(Args& args) {
  const bool json = args.flag("json");
  args.finish();
  if (dry_run()) return 0;
  if (json) {
    JsonWriter w;
    w.begin_array();
    for (const Activation& a : registry()) {
      w.begin_object();
      w.key("id").value(a.id);
      w.key("name").value(a.name);
      w.key("formula").value(a.formula);
      w.key("description").value(a.description);
      w.key("params").begin_array();
      for (const ParamSpec& p : a.params) {
        w.begin_object();
        w.key("name").value(p.name);
        w.key("default").value(p.default_value);
        w.key("min").value(p.min);
        w.key("max").value(p.max);
        w.key("description").value(p.description);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
    std::printf("%s\n", w.str().c_str());
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
             "  --json   one JSON array with ids, names, formulas and parameter ranges\n",
             run_list);

}  // namespace gelu::cli
