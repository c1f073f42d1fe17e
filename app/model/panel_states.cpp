// The panels' field tables (see panel_states.hpp and state_schema.hpp).
//
// Index of this file:
//   [SECTION] Samplers shared by the custom fields
//   [SECTION] Curves
//   [SECTION] Approximations
//   [SECTION] Dropout view
//   [SECTION] FFN lab
//   [SECTION] Benchmarks
//   [SECTION] Precision
//   [SECTION] Designer
#include "model/panel_states.hpp"

#include <algorithm>
#include <cmath>

#include "gelu/activation.hpp"
#include "gelu/ffn/dataset.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/numio.hpp"
#include "gelu/zoo.hpp"
#include "model/comparison.hpp"

namespace gelu::app::model {
namespace {

/// Registry ids in registry order, each once; throws with `bad` for a non-string and names an unknown id.
std::vector<std::string> read_registry_ids(const json::Value& v, const std::string& key,
                                           const std::string& bad) {
  if (!v.is_array()) throw json::JsonError(bad);
  std::vector<bool> on(registry().size(), false);
  for (const json::Value& id : v.as_array()) {
    if (!id.is_string()) throw json::JsonError(bad);
    const Activation* a = find_activation(id.as_string());
    if (!a)
      throw json::JsonError(quoted_key(key) + ": unknown function " + quote(id.as_string()) +
                            " (known: " + activation_ids() + ")");
    on[static_cast<std::size_t>(a - registry().data())] = true;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < on.size(); ++i)
    if (on[i]) out.emplace_back(registry()[i].id);
  return out;
}

json::Value string_array(const std::vector<std::string>& v) {
  json::Array a;
  for (const std::string& s : v) a.emplace_back(s);
  return a;
}

// [SECTION] Samplers shared by the custom fields
std::string random_registry_id(SampleRng& rng) {
  return registry()[static_cast<std::size_t>(rng.below(registry().size()))].id;
}

/// 0 to max_n registry ids, in any order, repeats included (the readers sort and merge them as they do).
json::Value random_registry_ids(SampleRng& rng, std::size_t max_n) {
  json::Array a;
  for (std::uint64_t n = rng.below(max_n + 1); n > 0; --n) a.emplace_back(random_registry_id(rng));
  return a;
}

/// Mostly small counts, sometimes up to `max`: the limits are valid, and a state of them all is slow.
std::size_t random_count(SampleRng& rng, std::size_t small, std::size_t max) {
  return static_cast<std::size_t>(rng.below((rng.chance(0.9) ? small : max) + 1));
}

/// `min_n` to `max_n` zoo entry ids (gelulab list --zoo), repeats included (the reader merges them).
json::Value random_zoo_ids(SampleRng& rng, std::size_t min_n, std::size_t max_n) {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> v;
    for (const zoo::Entry& e : zoo::builtin_entries()) v.push_back(e.id);
    return v;
  }();
  json::Array a;
  for (std::uint64_t n = min_n + rng.below(max_n - min_n + 1); n > 0; --n) a.emplace_back(rng.pick(ids));
  return a;
}

/// The file name base of a panel's exports (S::export_base). A NUL would end the path early (the file would
/// be written under another name), and a control character in a file name is a trap: both are refused.
template <class S>
Field<S> export_field(std::string help) {
  return {"export",
          "file name base",
          std::move(help),
          [](const json::Value& v, S& s) {
            const std::string& base = read_string_value(v, "export");
            const bool control = std::any_of(base.begin(), base.end(), [](char c) {
              return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
            });
            if (base.empty() || control)
              throw json::JsonError("'export' must be a non-empty file name base without control characters");
            s.export_base = base;
          },
          [](const S& s) { return json::Value(s.export_base); },
          [](SampleRng& rng, const json::Object&) {
            // Letters people type, spaces, quotes, backslashes and non-ASCII; a slash now and then (a folder
            // that may not exist: the export then says why it failed).
            return json::Value(rng.text(
                1, 24, rng.chance(0.9) ? "abcxyzXYZ019 _-.'\"\\\u00e9\u03a6\u221a\U0001F642" : "ab/."));
          }};
}

/// A rounding-point chain "ACC:COMPUTE:STORE" of the formats the Precision panel offers (parse_panel_chain).
template <class S, class Ref>
Field<S> chain_field(std::string key, Ref ref, std::string help) {
  return {
      key,
      "ACC:COMPUTE:STORE, e.g. f32:f32:mxfp4",
      std::move(help),
      [key, ref](const json::Value& v, S& s) {
        std::string why = "is not a string";
        if (!v.is_string() || !parse_panel_chain(v.as_string(), &why))
          throw json::JsonError(
              "'" + key + "' must be a chain ACC:COMPUTE:STORE (accumulator and compute " +
              choices_text(precision_chain_formats(0)) +
              "; storage also a block format): " + (v.is_string() ? quote(v.as_string()) + " " : "") + why);
        access(ref, s) = v.as_string();
      },
      [ref](const S& s) { return json::Value(access(ref, s)); },
      [](SampleRng& rng, const json::Object&) {
        return json::Value(rng.pick(precision_chain_formats(0)) + ":" + rng.pick(precision_chain_formats(1)) +
                           ":" + rng.pick(precision_chain_formats(2)));
      }};
}

}  // namespace

// [SECTION] Curves
std::vector<std::string> featured_functions() {
  std::vector<std::string> out;
  for (const Activation& a : registry())
    if (a.featured) out.emplace_back(a.id);
  return out;
}

const Schema<CurvesState>& curves_schema() {
  using S = CurvesState;
  static const Schema<S> schema(
      "panel state",
      {
          range_field<S>("x", &S::x, "the x range, shared by the f, f′ and f″ plots"),
          range_field<S>("y", &S::y, "the y range of the f plot"),
          {"functions", "[id, …]", "the registry functions shown (gelulab list)",
           [](const json::Value& v, S& s) {
             s.functions = read_registry_ids(v, "functions", "'functions' must be an array of registry ids");
           },
           [](const S& s) { return string_array(s.functions); },
           [](SampleRng& rng, const json::Object&) {
             return random_registry_ids(rng, registry().size() + 2);
           }},
          {"params", "{\"id.param\": value, …}", "parameters that differ from their defaults",
           [](const json::Value& v, S& s) {
             if (!v.is_object())
               throw json::JsonError("'params' must be an object like {\"gelu_sigmoid.k\": 1.702}");
             // The object is the whole set of parameters that differ from their defaults: one not named is at
             // its default ({} resets them all), as every field given replaces its value.
             std::map<std::string, double> params;
             for (const auto& [key, val] : v.as_object()) {
               const auto dot = key.find('.');
               const Activation* a = dot == std::string::npos ? nullptr : find_activation(key.substr(0, dot));
               const int pi = a ? a->param_index(key.substr(dot + 1)) : -1;
               if (pi < 0)
                 throw json::JsonError("unknown parameter " + quote(key) + " (write function_id.param)");
               const ParamSpec& ps = a->params[static_cast<std::size_t>(pi)];
               params[key] = read_number_value(val, key, ps.min, ps.max);
             }
             s.params = std::move(params);
           },
           [](const S& s) {
             json::Object o;
             for (const auto& [key, value] : s.params) {
               const auto dot = key.find('.');
               const Activation* a = find_activation(key.substr(0, dot));
               const int pi = a ? a->param_index(key.substr(dot + 1)) : -1;
               if (pi >= 0 && value != a->params[static_cast<std::size_t>(pi)].default_value) o[key] = value;
             }
             return json::Value(std::move(o));
           },
           [](SampleRng& rng, const json::Object&) {
             json::Object o;
             for (const Activation& a : registry())
               for (const ParamSpec& p : a.params)
                 if (rng.chance(0.3)) o[std::string(a.id) + "." + p.name] = rng.number(p.min, p.max);
             return json::Value(std::move(o));
           }},
          {"probe", "number in [-1e6, 1e6] or null", "the x of the probe line and readout (null: none)",
           [](const json::Value& v, S& s) {
             s.probe =
                 v.is_null() ? std::nullopt : std::optional<double>(read_number_value(v, "probe", -1e6, 1e6));
           },
           [](const S& s) { return s.probe ? json::Value(*s.probe) : json::Value(); },
           [](SampleRng& rng, const json::Object&) {
             return rng.chance(0.2) ? json::Value() : json::Value(rng.number(-1e6, 1e6));
           }},
          {"derivatives", "[1, 2]", "the derivative plots shown below f",
           [](const json::Value& v, S& s) {
             if (!v.is_array()) throw json::JsonError("'derivatives' must be an array like [1, 2]");
             bool d1 = false, d2 = false;
             for (const json::Value& o : v.as_array()) {
               if (!o.is_number() || (o.as_number() != 1 && o.as_number() != 2))
                 throw json::JsonError("'derivatives' may only hold 1 and 2");
               (o.as_number() == 1 ? d1 : d2) = true;
             }
             s.d1 = d1;
             s.d2 = d2;
           },
           [](const S& s) {
             json::Array a;
             if (s.d1) a.emplace_back(1);
             if (s.d2) a.emplace_back(2);
             return json::Value(std::move(a));
           },
           [](SampleRng& rng, const json::Object&) {
             json::Array a;
             for (std::uint64_t n = rng.below(4); n > 0; --n) a.emplace_back(rng.chance(0.5) ? 1 : 2);
             return json::Value(std::move(a));
           }},
          bool_field<S>("shade_dip", &S::shade_dip, "shade GELU's negative dip and mark its minimum"),
          bool_field<S>("shade_dead", &S::shade_dead, "shade ReLU's dead zone"),
          bool_field<S>("symlog", &S::symlog, "a symmetric-log y axis for f"),
          bool_field<S>("inflections", &S::inflections, "mark GELU's inflection points (f″ = 0) on f"),
          bool_field<S>("glu_diagram", &S::glu_diagram,
                        "draw the GLU block above the plots: x → x·W and x·V → g → ⊙ → W_down"),
      });
  return schema;
}

// [SECTION] Approximations
const Schema<ApproxState>& approx_schema() {
  using S = ApproxState;
  static const Schema<S> schema(
      "panel state",
      {
          range_field<S>("x", &S::x, "the x range of both plots"),
          range_field<S>("y", &S::y, "the y range of the function plot"),
          range_field<S>("error_y", &S::error_y,
                         "the y range of the error plot (absent: fitted to the errors)"),
          choice_field<S>("metric", &S::metric, {"abs", "rel", "ulp"}, "the error shown"),
          bool_field<S>("log", &S::log, "a log error axis"),
          choice_field<S>("dtype", &S::dtype, {"f32", "f64"},
                          "the precision the approximations are evaluated in"),
          {"tuned_form", "sigmoid|tanh", "the form whose coefficient the tuned curve varies (resets 'tuned')",
           [](const json::Value& v, S& s) {
             s.tuned_form = read_choice_value(v, "tuned_form", {"sigmoid", "tanh"});
             s.tuned = find_activation(s.tuned_form == "sigmoid" ? "gelu_sigmoid" : "gelu_tanh")
                           ->params[0]
                           .default_value;
           },
           [](const S& s) { return json::Value(s.tuned_form); },
           [](SampleRng& rng, const json::Object&) {
             return json::Value(rng.chance(0.5) ? "sigmoid" : "tanh");
           }},
          {"tuned", "number in the form's parameter range", "k of the sigmoid form or c of the tanh form",
           [](const json::Value& v, S& s) {
             const ParamSpec& ps =
                 find_activation(s.tuned_form == "sigmoid" ? "gelu_sigmoid" : "gelu_tanh")->params[0];
             s.tuned = read_number_value(v, "tuned", ps.min, ps.max);
           },
           [](const S& s) { return json::Value(s.tuned); },
           [](SampleRng& rng, const json::Object& drawn) {
             // Within the range of the form this state ends up with (drawn here, else the default's).
             const auto f = drawn.find("tuned_form");
             const std::string form = f != drawn.end() ? f->second.as_string() : S{}.tuned_form;
             const ParamSpec& ps =
                 find_activation(form == "sigmoid" ? "gelu_sigmoid" : "gelu_tanh")->params[0];
             return json::Value(rng.number(ps.min, ps.max));
           }},
          bool_field<S>("gpu", &S::gpu, "also evaluate on the GPU and compare"),
          {"compare", "[zoo id, …]",
           "zoo entries drawn beside the forms (gelulab list --zoo; the Designer's candidates are fit_…)",
           [](const json::Value& v, S& s) { s.compare = read_entry_ids(v, "compare"); },
           [](const S& s) { return entry_ids_json(s.compare); },
           [](SampleRng& rng, const json::Object&) { return random_zoo_ids(rng, 0, 4); }},
      });
  return schema;
}

// [SECTION] Dropout view
const Schema<DropoutState>& dropout_schema() {
  using S = DropoutState;
  static const Schema<S> schema(
      "panel state",
      {
          number_field<S>("x0", &S::x0, -3, 3, "the input whose masks are sampled"),
          integer_field<S>("samples", &S::samples, 1, static_cast<double>(S::kMaxSamples),
                           "masks drawn for a still shot"),
          integer_field<S>("seed", &S::seed, 0, 9007199254740992.0, "the random stream's seed"),
          number_field<S>("mu", &S::mu, -3, 3, "mean of the Gaussian pushed through GELU and ReLU"),
          number_field<S>("sigma", &S::sigma, 0.05, 3, "its standard deviation"),
          integer_field<S>("rate", &S::rate, 1, 500, "masks per frame while playing"),
          bool_field<S>("playing", &S::playing, "sampling runs"),
          bool_field<S>("gaussian", &S::gaussian, "show the histograms of N(μ, σ) through GELU and ReLU"),
      });
  return schema;
}

// [SECTION] FFN lab
namespace {

void read_net(const json::Value& v, NetChoice& n) {
  if (!v.is_object()) throw json::JsonError("'a' and 'b' must be objects like {\"activations\": [\"gelu\"]}");
  for (const auto& [k, x] : v.as_object())
    if (k != "activations" && k != "glu" && k != "stochastic")
      throw json::JsonError("'a'/'b': unknown key " + quote(k) + " (known: activations, glu, stochastic)");
  if (const json::Value* a = v.find("activations")) {
    if (!a->is_array() || a->as_array().empty())
      throw json::JsonError("'activations' must be a non-empty array");
    n.activations.clear();
    for (const json::Value& s : a->as_array()) {
      if (!s.is_string() || !find_activation(s.as_string()))
        throw json::JsonError("'activations' must hold registry ids (" + activation_ids() + ")");
      n.activations.push_back(s.as_string());
    }
  }
  if (const json::Value* g = v.find("glu")) {
    const auto k = g->is_string() ? ffn::parse_glu(g->as_string()) : std::nullopt;
    if (!k || *k == ffn::GluKind::None) throw json::JsonError("'glu' must be geglu, swiglu or reglu");
    n.glu_kind = *k;
  }
  if (const json::Value* s = v.find("stochastic")) n.stochastic = read_bool_value(*s, "stochastic");
}

json::Value net_json(const NetChoice& n) {
  json::Object o;
  o["activations"] = string_array(n.activations);
  o["glu"] = ffn::to_string(n.glu_kind);
  o["stochastic"] = n.stochastic;
  return o;
}

Field<FfnState> net_field(const char* key, int i) {
  return {key,
          "{activations, glu, stochastic}",
          i == 0 ? "network A: its activations per layer, GLU kind and stochastic GELU"
                 : "network B, trained beside A from the same weights",
          [i](const json::Value& v, FfnState& s) { read_net(v, s.cfg.nets[static_cast<std::size_t>(i)]); },
          [i](const FfnState& s) { return net_json(s.cfg.nets[static_cast<std::size_t>(i)]); },
          [](SampleRng& rng, const json::Object&) {
            json::Object o;
            if (rng.chance(0.8)) {
              json::Array acts;
              for (std::uint64_t n = 1 + rng.below(5); n > 0; --n) acts.emplace_back(random_registry_id(rng));
              o["activations"] = std::move(acts);
            }
            static const std::vector<std::string> kinds = {"geglu", "swiglu", "reglu"};
            if (rng.chance(0.5)) o["glu"] = rng.pick(kinds);
            if (rng.chance(0.5)) o["stochastic"] = rng.chance(0.5);
            return json::Value(std::move(o));
          }};
}

}  // namespace

const Schema<FfnState>& ffn_schema() {
  using S = FfnState;
  // clang-format off
  static const Schema<S> schema(
      "panel state",
      {
          {"dataset", "2-D classification dataset id", "the data the nets learn",
           [](const json::Value& v, S& s) {
             const ffn::DatasetInfo* info = v.is_string() ? ffn::find_dataset(v.as_string()) : nullptr;
             if (!info || info->task != ffn::Task::Classification || info->inputs != 2)
               throw json::JsonError("'dataset' must be a 2-D classification dataset");
             s.cfg.data.id = info->id;
           },
           [](const S& s) { return json::Value(s.cfg.data.id); },
           [](SampleRng& rng, const json::Object&) {
             std::vector<std::string> ids;
             for (const ffn::DatasetInfo& d : ffn::datasets())
               if (d.task == ffn::Task::Classification && d.inputs == 2) ids.emplace_back(d.id);
             return json::Value(rng.pick(ids));
           }},
          integer_field<S>("samples", [](auto& s) -> auto& { return s.cfg.data.samples; }, 8, 20000, "points"),
          {"noise", "number in [0, 2] (negative: the dataset's default)", "label noise / jitter",
           [](const json::Value& v, S& s) {
             s.cfg.data.noise = v.is_number() && v.as_number() < 0 ? -1.0 : read_number_value(v, "noise", 0, 2);
           },
           [](const S& s) { return json::Value(s.cfg.data.noise); },
           [](SampleRng& rng, const json::Object&) {
             return json::Value(rng.chance(0.2) ? rng.number(-1e300, -0.0) : rng.number(0, 2));
           }},
          integer_field<S>("classes", [](auto& s) -> auto& { return s.cfg.data.classes; }, 2, 8, "classes"),
          integer_field<S>("data_seed", [](auto& s) -> auto& { return s.cfg.data.seed; }, 0, 1e15,
                           "the dataset's seed"),
          {"edits", "[{op, x, y, label}, …]", "points added or removed by clicks, replayed on every reset",
           [](const json::Value& v, S& s) {
             // Each edit is replayed on every reset (a removal searches the points): bounded like the samples.
             constexpr std::size_t kMaxEdits = 20000;
             if (!v.is_array() || v.as_array().size() > kMaxEdits)
               throw json::JsonError("'edits' must be an array of at most " + std::to_string(kMaxEdits) + " edits");
             std::vector<PointEdit> edits;
             for (std::size_t i = 0; i < v.as_array().size(); ++i) {
               const json::Value& q = v.as_array()[i];
               try {
                 PointEdit p;
                 const std::string& op = q.at("op").as_string();
                 if (op != "add" && op != "remove") throw json::JsonError("'op' is add or remove");
                 p.add = op == "add";
                 p.x = read_number_value(q.at("x"), "x", -1e6, 1e6);
                 p.y = read_number_value(q.at("y"), "y", -1e6, 1e6);
                 if (p.add) p.label = static_cast<int>(read_number_value(q.at("label"), "label", 0, 7));
                 edits.push_back(p);
               } catch (const json::JsonError& e) {
                 throw json::JsonError("'edits[" + std::to_string(i) + "]': " + e.what() +
                                       " (an edit is {\"op\": \"add\"|\"remove\", \"x\", \"y\", \"label\"})");
               }
             }
             s.cfg.edits = std::move(edits);
           },
           [](const S& s) {
             json::Array e;
             for (const PointEdit& p : s.cfg.edits) {
               json::Object q;
               q["op"] = p.add ? "add" : "remove";
               q["x"] = p.x;
               q["y"] = p.y;
               if (p.add) q["label"] = p.label;
               e.emplace_back(std::move(q));
             }
             return json::Value(std::move(e));
           },
           [](SampleRng& rng, const json::Object&) {
             json::Array e;
             for (std::size_t n = random_count(rng, 6, 200); n > 0; --n) {
               json::Object q;
               const bool add = rng.chance(0.7);
               q["op"] = add ? "add" : "remove";
               q["x"] = rng.chance(0.8) ? rng.uniform(-3, 3) : rng.number(-1e6, 1e6);
               q["y"] = rng.chance(0.8) ? rng.uniform(-3, 3) : rng.number(-1e6, 1e6);
               if (add) q["label"] = rng.integer(0, 7);
               e.emplace_back(std::move(q));
             }
             return json::Value(std::move(e));
           }},
          {"widths", "[1 to 4 widths in [1, 128]]", "hidden layer widths",
           [](const json::Value& v, S& s) {
             if (!v.is_array() || v.as_array().empty() || v.as_array().size() > 4)
               throw json::JsonError("'widths' must be an array of 1 to 4 layer widths");
             std::vector<int> w;
             for (const json::Value& x : v.as_array()) w.push_back(static_cast<int>(read_number_value(x, "widths", 1, 128)));
             s.cfg.widths = std::move(w);
           },
           [](const S& s) {
             json::Array w;
             for (int x : s.cfg.widths) w.emplace_back(x);
             return json::Value(std::move(w));
           },
           [](SampleRng& rng, const json::Object&) {
             json::Array w;
             for (std::uint64_t n = 1 + rng.below(4); n > 0; --n) w.emplace_back(rng.chance(0.9) ? rng.integer(1, 24) : rng.integer(1, 128));
             return json::Value(std::move(w));
           }},
          bool_field<S>("glu", [](auto& s) -> auto& { return s.cfg.glu; }, "GLU blocks instead of plain layers"),
          net_field("a", 0),
          net_field("b", 1),
          bool_field<S>("ab", [](auto& s) -> auto& { return s.cfg.ab; }, "train B beside A"),
          {"optimizer", "sgd|adam", "the optimizer",
           [](const json::Value& v, S& s) {
             const auto o = v.is_string() ? ffn::parse_optimizer(v.as_string()) : std::nullopt;
             if (!o) throw json::JsonError("'optimizer' must be sgd or adam");
             s.cfg.optimizer = *o;
           },
           [](const S& s) { return json::Value(ffn::to_string(s.cfg.optimizer)); },
           [](SampleRng& rng, const json::Object&) { return json::Value(rng.chance(0.5) ? "sgd" : "adam"); }},
          number_field<S>("lr", [](auto& s) -> auto& { return s.cfg.lr; }, 1e-5, 1, "learning rate"),
          integer_field<S>("batch", [](auto& s) -> auto& { return s.cfg.batch; }, 1, 4096, "batch size"),
          integer_field<S>("init_seed", [](auto& s) -> auto& { return s.cfg.init_seed; }, 0, 1e15,
                           "the weights' seed (A and B start identical)"),
          {"backend", "cpu|gpu", "where the nets train",
           [](const json::Value& v, S& s) { s.cfg.gpu = read_choice_value(v, "backend", {"cpu", "gpu"}) == "gpu"; },
           [](const S& s) { return json::Value(s.cfg.gpu ? "gpu" : "cpu"); },
           [](SampleRng& rng, const json::Object&) { return json::Value(rng.chance(0.5) ? "gpu" : "cpu"); }},
          integer_field<S>("grid", [](auto& s) -> auto& { return s.cfg.grid; }, 8, 256, "decision map resolution"),
          integer_field<S>("speed", [](auto& s) -> auto& { return s.cfg.speed; }, 0, 1000000,
                           "training steps per second while playing (0: as fast as it goes)"),
          integer_field<S>("budget", [](auto& s) -> auto& { return s.cfg.step_budget; }, 0, 10000000,
                           "steps after which playing pauses, e.g. a lesson step's (0: it never does)"),
          integer_field<S>("shot_steps", &S::shot_steps, 0, 100000, "steps a headless shot trains"),
          bool_field<S>("playing", &S::playing, "training runs"),
          integer_field<S>("layer", &S::layer, 1, 4,
                           "the hidden layer whose histogram and dead units are shown (clamped to the layers there are)"),
          bool_field<S>("hidden_space", [](auto& s) -> auto& { return s.cfg.hidden.on; },
                        "the hidden-space view: the input grid and points in two hidden units' coordinates"),
          integer_field<S>("hidden_layer", [](auto& s) -> auto& { return s.cfg.hidden.layer; }, 1, 4,
                           "the hidden layer of the hidden-space view (clamped to the layers there are)"),
          integer_field<S>("unit_x", [](auto& s) -> auto& { return s.cfg.hidden.unit_x; }, 1, 512,
                           "the unit on the hidden-space view's x axis (clamped to the layer's width)"),
          integer_field<S>("unit_y", [](auto& s) -> auto& { return s.cfg.hidden.unit_y; }, 1, 512,
                           "the unit on the hidden-space view's y axis (clamped to the layer's width)"),
      });
  // clang-format on
  return schema;
}

// [SECTION] Benchmarks
const Schema<BenchState>& bench_schema() {
  using S = BenchState;
  static const Schema<S> schema(
      "panel state",
      {
          {"functions", "[id, …]", "the functions measured",
           [](const json::Value& v, S& s) {
             const std::string bad = "'functions' must hold registry ids (" + activation_ids() + ")";
             if (!v.is_array()) throw json::JsonError("'functions' must be an array of registry ids");
             std::vector<std::string> f;
             for (const json::Value& id : v.as_array()) {
               if (!id.is_string() || !find_activation(id.as_string())) throw json::JsonError(bad);
               f.push_back(id.as_string());
             }
             s.cfg.functions = std::move(f);
           },
           [](const S& s) { return string_array(s.cfg.functions); },
           [](SampleRng& rng, const json::Object&) { return random_registry_ids(rng, 4); }},
          {"sizes", "[element counts in [1, 67108864]]", "the array sizes",
           [](const json::Value& v, S& s) {
             if (!v.is_array() || v.as_array().empty())
               throw json::JsonError("'sizes' must be a non-empty array");
             std::vector<std::size_t> sizes;
             for (const json::Value& n : v.as_array()) {
               if (!n.is_number() || !(n.as_number() >= 1 && n.as_number() <= 67108864.0))
                 throw json::JsonError("'sizes' must hold element counts in [1, 67108864]");
               sizes.push_back(static_cast<std::size_t>(n.as_number()));
             }
             std::sort(sizes.begin(), sizes.end());
             sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
             s.cfg.sizes = std::move(sizes);
           },
           [](const S& s) {
             json::Array a;
             for (std::size_t n : s.cfg.sizes) a.emplace_back(static_cast<double>(n));
             return json::Value(std::move(a));
           },
           [](SampleRng& rng, const json::Object&) {
             json::Array a;
             for (std::uint64_t n = 1 + rng.below(4); n > 0; --n)
               a.emplace_back(rng.chance(0.9) ? rng.integer(1, 65536) : rng.integer(1, 67108864.0));
             return json::Value(std::move(a));
           }},
          {"backends", "[cpu_scalar, cpu_vector, gpu_kernel, gpu_end_to_end]", "what is measured",
           [](const json::Value& v, S& s) {
             if (!v.is_array()) throw json::JsonError("'backends' must be an array");
             bool on[kBenchBackends] = {};
             for (const json::Value& id : v.as_array()) {
               bool known = false;
               for (int i = 0; i < kBenchBackends; ++i)
                 if (id.is_string() && id.as_string() == to_string(static_cast<BenchBackend>(i)))
                   on[i] = known = true;
               if (!known)
                 throw json::JsonError("'backends' holds cpu_scalar, cpu_vector, gpu_kernel, gpu_end_to_end");
             }
             std::copy(std::begin(on), std::end(on), s.cfg.backends);
           },
           [](const S& s) {
             json::Array b;
             for (int i = 0; i < kBenchBackends; ++i)
               if (s.cfg.backends[i]) b.emplace_back(to_string(static_cast<BenchBackend>(i)));
             return json::Value(std::move(b));
           },
           [](SampleRng& rng, const json::Object&) {
             json::Array b;
             for (std::uint64_t n = rng.below(kBenchBackends + 2); n > 0; --n)
               b.emplace_back(to_string(static_cast<BenchBackend>(rng.below(kBenchBackends))));
             return json::Value(std::move(b));
           }},
          integer_field<S>(
              "reps", [](auto& s) -> auto& { return s.cfg.reps; }, 1, 1000, "repetitions per cell"),
          integer_field<S>("shown_size", &S::shown_size, 1, 67108864.0, "the size the bar chart shows"),
          {"shown_function", "registry id", "the function the size sweep shows",
           [](const json::Value& v, S& s) {
             const std::string& fn = read_string_value(v, "shown_function");
             if (!find_activation(fn)) throw json::JsonError("'shown_function' must be a registry id");
             s.shown_function = fn;
           },
           [](const S& s) { return json::Value(s.shown_function); },
           [](SampleRng& rng, const json::Object&) { return json::Value(random_registry_id(rng)); }},
          export_field<S>("what the CSV and JSON exports are called"),
      });
  return schema;
}

// [SECTION] Precision
const Schema<PrecisionState>& precision_schema() {
  using S = PrecisionState;
  static const Schema<S> schema(
      "panel state",
      {
          {"entries", "[zoo id, …]",
           "the zoo entries swept (gelulab list --zoo; the Designer's candidates are fit_…)",
           [](const json::Value& v, S& s) { s.cfg.entries = read_entry_ids(v, "entries"); },
           [](const S& s) { return entry_ids_json(s.cfg.entries); },
           // One or two: every value of every format is swept per entry, and the tests draw many states.
           [](SampleRng& rng, const json::Object&) { return random_zoo_ids(rng, 1, 2); }},
          {"formats", "[bf16, f16, e4m3, e5m2]", "the storage formats, every value of each",
           [](const json::Value& v, S& s) {
             const std::vector<std::string>& known = precision_storage_formats();
             const std::string bad = "'formats' must be a non-empty array of " + choices_text(known);
             if (!v.is_array() || v.as_array().empty()) throw json::JsonError(bad);
             std::vector<bool> on(known.size(), false);
             for (const json::Value& f : v.as_array()) {
               const auto it =
                   f.is_string() ? std::find(known.begin(), known.end(), f.as_string()) : known.end();
               if (it == known.end()) throw json::JsonError(bad);
               on[static_cast<std::size_t>(it - known.begin())] = true;
             }
             s.cfg.formats.clear();
             for (std::size_t i = 0; i < known.size(); ++i)
               if (on[i]) s.cfg.formats.push_back(known[i]);
           },
           [](const S& s) { return string_array(s.cfg.formats); },
           [](SampleRng& rng, const json::Object&) {
             const std::vector<std::string>& known = precision_storage_formats();
             json::Array a;
             a.emplace_back(rng.pick(known));
             if (rng.chance(0.15)) a.emplace_back(rng.pick(known));  // sometimes two, or one twice
             return json::Value(std::move(a));
           }},
          choice_field<S>(
              "compute", [](auto& s) -> auto& { return s.cfg.compute; }, precision_compute_formats(),
              "the format intermediates are rounded to (auto: f32, as frameworks upcast)"),
          {"derivatives", "true|false", "sweep f′ against GELU′ instead of f against GELU",
           [](const json::Value& v, S& s) { s.cfg.order = read_bool_value(v, "derivatives") ? 1 : 0; },
           [](const S& s) { return json::Value(s.cfg.order == 1); },
           [](SampleRng& rng, const json::Object&) { return json::Value(rng.chance(0.5)); }},
          number_field<S>(
              "int8_scale", [](auto& s) -> auto& { return s.cfg.int8_scale; }, 1e-4, 1,
              "the int8 view's scale: value = scale · code (zero point 0)"),
          range_field<S>("x", &S::x, "the x range of the ULP plot (the sweep covers every value regardless)"),
          export_field<S>("what the summary's CSV and Markdown files are called"),
          bool_field<S>("block_view", &S::block_view,
                        "show the block view (GELU and SiLU stored in one block) in place of int8 and cost"),
          choice_field<S>("block_format", &S::block_format, precision_block_formats(),
                          "the block format of the block view"),
          number_field<S>("block_max", &S::block_max, 0.0625, 64,
                          "the block view's block max: the largest magnitude in the block"),
          chain_field<S>("chain_a", &S::chain_a, "the first rounding-point chain ACC:COMPUTE:STORE"),
          chain_field<S>("chain_b", &S::chain_b, "the second rounding-point chain, beside the first"),
          bool_field<S>("chain_backward", &S::chain_backward,
                        "the chains' backward pass: GELU′ through the same chains"),
          choice_field<S>("block_table", &S::block_table, {"survival", "chains"},
                          "what the block view shows beside its plot: the survival table or the two chains"),
      });
  return schema;
}

std::vector<std::string> text_key_parts(std::string_view key) {
  std::vector<std::string> parts;
  for (std::size_t at = 0;;) {
    const std::size_t colon = key.find(':', at);
    parts.emplace_back(key.substr(at, colon == std::string_view::npos ? colon : colon - at));
    if (colon == std::string_view::npos) break;
    at = colon + 1;
  }
  return parts;
}

std::string precision_text_problem(const json::Value& state, std::string_view key) {
  PrecisionState s;
  try {
    precision_schema().read(state, s);
  } catch (const json::JsonError& e) {
    return e.what();
  }
  const std::vector<std::string> parts = text_key_parts(key);
  const std::string& what = parts[0];
  if (what != "verdict" && what != "zero" && what != "maxulp" && what != "overflow" && what != "lobe")
    return "the Precision panel computes {verdict:ENTRY[:FORMAT]}, {zero:ENTRY[:FORMAT]}, "
           "{maxulp:ENTRY[:FORMAT]}, {overflow:ENTRY[:FORMAT]} and {lobe:ENTRY}";
  if (parts.size() < 2 || parts.size() > (what == "lobe" ? 2u : 3u))
    return "write {verdict:ENTRY[:FORMAT]}, {zero:ENTRY[:FORMAT]}, {maxulp:ENTRY[:FORMAT]}, "
           "{overflow:ENTRY[:FORMAT]} or {lobe:ENTRY}";
  if (std::find(s.cfg.entries.begin(), s.cfg.entries.end(), parts[1]) == s.cfg.entries.end())
    return quote(parts[1]) + " is not among the step's entries";
  if (parts.size() == 3 &&
      std::find(s.cfg.formats.begin(), s.cfg.formats.end(), parts[2]) == s.cfg.formats.end())
    return quote(parts[2]) + " is not among the step's formats";
  if (what == "lobe" && s.cfg.order != 0) return "the int8 view is of f, not f′";
  return {};
}

// [SECTION] Designer
namespace {

/// A field holding one of a gelu::fit name table's values (an enum).
template <class E, class Ref>
Field<fit::Spec> enum_field(std::string key, Ref ref, std::span<const fit::Named<E>> table,
                            std::string help) {
  std::vector<std::string> names;
  for (const fit::Named<E>& n : table) names.emplace_back(n.name);
  std::string type;
  for (const std::string& n : names) type += (type.empty() ? "" : "|") + n;
  return {key,
          type,
          std::move(help),
          [key, ref, table, names](const json::Value& v, fit::Spec& s) {
            const std::string& name = read_choice_value(v, key, names);
            for (const fit::Named<E>& n : table)
              if (name == n.name) access(ref, s) = n.id;
          },
          [ref](const fit::Spec& s) { return json::Value(fit::name(access(ref, s))); },
          [names](SampleRng& rng, const json::Object&) { return json::Value(rng.pick(names)); }};
}

/// A small fit (cubic polynomial for GELU on [-4, 4], f32): the candidate the samplers put in a state.
fit::Spec sample_candidate_spec() {
  fit::Spec s;
  s.target = fit::Target::Gelu;
  s.form = fit::Form::Poly;
  s.degree = 3;
  s.a = -4;
  s.b = 4;
  s.format = FormatId::F32;
  return s;
}

}  // namespace

fit::Spec default_designer_spec() {
  fit::Spec s;
  s.format = FormatId::F32;
  return s;
}

const Schema<fit::Spec>& fit_spec_schema() {
  using S = fit::Spec;
  static const Schema<S> schema(
      "fit spec",
      {
          enum_field<fit::Target>("target", &S::target, fit::targets(),
                                  "what the form approximates: gelu, phi (GELU = x·f), erf, gelu_prime"),
          enum_field<fit::Form>("form", &S::form, fit::forms(), "the form fitted (docs/designer.md)"),
          integer_field<S>("degree", &S::degree, 0, fit::kMaxDegree,
                           "the degree (rational: of the numerator; piecewise: of each piece)"),
          integer_field<S>("denominator_degree", &S::denominator_degree, 0, fit::kMaxDegree,
                           "rational: the denominator's degree (at least 1; other forms store 0)"),
          integer_field<S>("pieces", &S::pieces, 1, fit::kMaxPieces, "piecewise: the number of pieces"),
          enum_field<fit::Breakpoints>(
              "breakpoints", &S::breakpoints, fit::breakpoint_rules(),
              "piecewise: uniform pieces, or breakpoints that equalize their errors"),
          {"range", "[A, B] within [-1e6, 1e6]", "the range [A, B] fitted",
           [](const json::Value& v, S& s) {
             const plot::Range r = read_range_value(v, "range");
             if (std::fabs(r.min) > fit::kMaxAbsRange || std::fabs(r.max) > fit::kMaxAbsRange ||
                 r.max - r.min < fit::kMinWidth)
               throw json::JsonError("'range' must be [A, B] within [-1e6, 1e6], at least 1e-6 wide");
             s.a = r.min;
             s.b = r.max;
           },
           [](const S& s) {
             return range_json(plot::Range{s.a, s.b});
           },
           [](SampleRng& rng, const json::Object&) {
             // Mostly ranges a person fits ([-8, 8] and the like), sometimes anywhere within the limits.
             double a = rng.number(-fit::kMaxAbsRange, fit::kMaxAbsRange);
             double b = rng.number(-fit::kMaxAbsRange, fit::kMaxAbsRange);
             if (rng.chance(0.7)) {
               b = rng.uniform(0.5, 10);
               a = -rng.uniform(0.5, 10);
             }
             if (a > b) std::swap(a, b);
             if (!(b - a >= fit::kMinWidth)) {  // too narrow: one unit wide, inside the limits
               if (b - 1 >= -fit::kMaxAbsRange)
                 a = b - 1;
               else
                 b = a + 1;
             }
             return range_json(plot::Range{a, b});
           }},
          enum_field<fit::Clamp>("clamp", &S::clamp, fit::clamps(),
                                 "outside [A, B]: limits (GELU's 0 and x), zero, x, or none"),
          enum_field<fit::Weight>("weight", &S::weight, fit::weights(),
                                  "the error minimized: abs, rel or ulp"),
          enum_field<fit::Method>("method", &S::method, fit::methods(), "minimax (Remez) or lsq"),
          {"format", "f64|f32|bf16|f16", "the coefficients' format",
           [](const json::Value& v, S& s) {
             s.format = Format::parse(read_choice_value(v, "format", {"f64", "f32", "bf16", "f16"}))->id();
           },
           [](const S& s) { return json::Value(number_format(s.format).name); },
           [](SampleRng& rng, const json::Object&) {
             return json::Value(rng.pick(std::vector<std::string>{"f64", "f32", "bf16", "f16"}));
           }},
          bool_field<S>("reoptimize", &S::reoptimize,
                        "after rounding: re-fit greedily and search the lattice (never worse than naive)"),
      });
  return schema;
}

const Schema<DesignerState>& designer_schema() {
  using S = DesignerState;
  static const Schema<S> schema = [] {
    std::vector<Field<S>> fields;
    for (const Field<fit::Spec>& f : fit_spec_schema().fields())
      fields.push_back({f.key, f.type, f.help, [f](const json::Value& v, S& s) { f.read(v, s.spec); },
                        [f](const S& s) { return f.write(s.spec); }, f.sample});
    fields.push_back(
        {"candidates", "[{id, compared, spec, coefficients, …}, …]",
         "the candidates kept in this session (saved as fitted: spec, coefficients, breakpoints, centres)",
         [](const json::Value& v, S& s) {
           if (!v.is_array() || v.as_array().size() > S::kMaxCandidates)
             throw json::JsonError("'candidates' must be an array of at most " +
                                   std::to_string(S::kMaxCandidates) + " candidates");
           std::vector<KeptCandidate> kept;
           for (std::size_t i = 0; i < v.as_array().size(); ++i) {
             const json::Value& q = v.as_array()[i];
             const std::string key = "candidates[" + std::to_string(i) + "]";
             if (!q.is_object()) throw json::JsonError(quoted_key(key) + " must be an object");
             KeptCandidate k;
             json::Object rest = q.as_object();
             const json::Value* id = q.find("id");
             if (!id || !id->is_string() || !is_candidate_id(id->as_string()))
               throw json::JsonError(quoted_key(key) +
                                     ": 'id' must be a candidate id (fit_ then a-z, 0-9, _)");
             k.id = id->as_string();
             for (const KeptCandidate& other : kept)
               if (other.id == k.id)
                 throw json::JsonError(quoted_key(key) + ": the id " + quote(k.id) + " is taken");
             if (const json::Value* c = q.find("compared")) k.compared = read_bool_value(*c, "compared");
             rest.erase("id");
             rest.erase("compared");
             k.c = std::make_shared<const fit::Candidate>(read_candidate(json::Value(std::move(rest)), key));
             if (k.compared && k.c->spec.target == fit::Target::GeluPrime)
               throw json::JsonError(quoted_key(key) +
                                     ": a gelu_prime candidate cannot be compared with GELU");
             kept.push_back(std::move(k));
           }
           s.candidates = std::move(kept);
         },
         [](const S& s) {
           json::Array a;
           for (const KeptCandidate& k : s.candidates) {
             json::Object o = candidate_json(*k.c).as_object();
             o["id"] = k.id;
             o["compared"] = k.compared;
             a.emplace_back(std::move(o));
           }
           return json::Value(std::move(a));
         },
         [](SampleRng& rng, const json::Object&) {
           // Mostly none; else one or two copies of a small fit (made once), compared or not, under ids
           // the reader accepts.
           static const json::Value one = candidate_json(fit::fit(sample_candidate_spec()));
           json::Array a;
           if (rng.chance(0.6)) return json::Value(std::move(a));
           for (std::uint64_t n = 1 + rng.below(2); n > 0; --n) {
             json::Object o = one.as_object();
             o["id"] = "fit_sample_" + std::to_string(n);
             o["compared"] = rng.chance(0.5);
             a.emplace_back(std::move(o));
           }
           return json::Value(std::move(a));
         }});
    fields.push_back(bool_field<S>("log_error", &S::log_error, "the error plot shows |error| on a log axis"));
    fields.push_back({"export_name", "C identifier", "the exported function's name",
                      [](const json::Value& v, S& s) {
                        const std::string& n = read_string_value(v, "export_name");
                        if (!fit::is_identifier(n))
                          throw json::JsonError("'export_name' must be a C identifier (letters, digits, _)");
                        s.export_name = n;
                      },
                      [](const S& s) { return json::Value(s.export_name); },
                      [](SampleRng& rng, const json::Object&) {
                        // Keywords, gl_ and __ prefixes are refused: draw again (rarely needed).
                        for (;;) {
                          std::string n =
                              rng.text(1, 1, "abcxyzABC_") + rng.text(0, 30, "abcxyzABCXYZ0123456789_");
                          if (fit::is_identifier(n)) return json::Value(std::move(n));
                        }
                      }});
    fields.push_back(export_field<S>("what the exported files are called (BASE.hpp, BASE.glsl, …)"));
    return Schema<S>("panel state", std::move(fields));
  }();
  return schema;
}

}  // namespace gelu::app::model
