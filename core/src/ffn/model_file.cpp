#include "gelu/ffn/model_file.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "gelu/fileio.hpp"
#include "gelu/numio.hpp"

namespace gelu::ffn {
namespace {

json::Value spec_to_json(const NetworkSpec& s) {
  json::Array hidden;
  for (const HiddenSpec& h : s.hidden) {
    const Activation* a = find_activation(h.activation);
    json::Array params;
    for (std::size_t p = 0; a && p < a->params.size(); ++p)
      params.emplace_back(h.params[static_cast<int>(p)]);
    hidden.emplace_back(json::Object{{"width", h.width},
                                     {"activation", h.activation},
                                     {"params", std::move(params)},
                                     {"glu_hidden", h.glu_hidden}});
  }
  return json::Object{{"inputs", s.inputs},      {"outputs", s.outputs},       {"bias", s.bias},
                      {"glu", to_string(s.glu)}, {"stochastic", s.stochastic}, {"hidden", std::move(hidden)}};
}

// Typed members; ModelFileError names the path ("spec.bias must be true or false, not a string").
const json::Value& member(const json::Value& o, std::string_view key, const std::string& where) {
  if (!o.is_object()) throw ModelFileError(where + " must be an object, not " + o.type_name());
  const json::Value* v = o.find(key);
  if (!v) throw ModelFileError(where + "." + std::string(key) + " is missing");
  return *v;
}

int get_int(const json::Value& o, std::string_view key, const std::string& where) {
  const json::Value& v = member(o, key, where);
  const double d = v.is_number() ? v.as_number() : 0.5;
  if (!(d >= -2147483648.0 && d <= 2147483647.0) || d != std::floor(d))
    throw ModelFileError(where + "." + std::string(key) + " must be an integer" +
                         (v.is_number() ? std::string() : std::string(", not ") + v.type_name()));
  return static_cast<int>(d);
}

bool get_bool(const json::Value& o, std::string_view key, const std::string& where) {
  const json::Value& v = member(o, key, where);
  if (!v.is_bool())
    throw ModelFileError(where + "." + std::string(key) + " must be true or false, not " + v.type_name());
  return v.as_bool();
}

const std::string& get_string(const json::Value& o, std::string_view key, const std::string& where) {
  const json::Value& v = member(o, key, where);
  if (!v.is_string())
    throw ModelFileError(where + "." + std::string(key) + " must be a string, not " + v.type_name());
  return v.as_string();
}

// Wraps JsonError from typed accessors with the key path, so "expected a number" says where.
template <class F>
auto at_path(const std::string& where, F&& f) {
  try {
    return f();
  } catch (const ModelFileError&) {
    throw;
  } catch (const json::JsonError& e) {
    throw ModelFileError(where + ": " + e.what());
  }
}

NetworkSpec spec_from_json(const json::Value& v) {
  NetworkSpec s;
  at_path("spec", [&] {
    s.inputs = get_int(v, "inputs", "spec");
    s.outputs = get_int(v, "outputs", "spec");
    s.bias = get_bool(v, "bias", "spec");
    s.stochastic = get_bool(v, "stochastic", "spec");
    const std::string& glu = get_string(v, "glu", "spec");
    const auto g = parse_glu(glu);
    if (!g) throw ModelFileError("spec.glu: unknown GLU variant " + quote(glu));
    s.glu = *g;
    return 0;
  });
  const json::Array& hidden =
      at_path("spec", [&]() -> const json::Array& { return v.at("hidden").as_array(); });
  if (hidden.empty() || hidden.size() > static_cast<std::size_t>(kMaxHiddenLayers))
    throw ModelFileError("spec.hidden must list 1 to " + std::to_string(kMaxHiddenLayers) + " layers");
  for (std::size_t i = 0; i < hidden.size(); ++i) {
    const std::string where = "spec.hidden[" + std::to_string(i) + "]";
    HiddenSpec h;
    at_path(where, [&] {
      h.width = get_int(hidden[i], "width", where);
      h.activation = get_string(hidden[i], "activation", where);
      h.glu_hidden = get_int(hidden[i], "glu_hidden", where);
      const Activation* a = find_activation(h.activation);
      if (!a) throw ModelFileError(where + ": unknown activation " + quote(h.activation));
      h.params = a->defaults();
      const json::Array& p = hidden[i].at("params").as_array();
      if (p.size() != a->params.size())
        throw ModelFileError(where + ".params: " + h.activation + " takes " +
                             std::to_string(a->params.size()) + " parameter(s), the file has " +
                             std::to_string(p.size()));
      for (std::size_t k = 0; k < p.size(); ++k) h.params[static_cast<int>(k)] = p[k].as_number();
      return 0;
    });
    s.hidden.push_back(std::move(h));
  }
  try {
    validate(s);
  } catch (const SpecError& e) {
    throw ModelFileError(std::string("spec: ") + e.what());
  }
  return s;
}

}  // namespace

std::string model_to_json(const NetworkSpec& spec, const Eigen::VectorXd& parameters,
                          const json::Object& meta) {
  const Network<double> layout(spec);
  if (static_cast<std::size_t>(parameters.size()) != layout.parameter_count())
    throw ModelFileError("parameter count does not match the spec");
  json::Array tensors;
  for (const TensorInfo& t : layout.tensors()) {
    json::Array data;
    data.reserve(static_cast<std::size_t>(t.rows * t.cols));
    for (int k = 0; k < t.rows * t.cols; ++k) {
      const double x = parameters(static_cast<Eigen::Index>(t.offset) + k);
      if (!std::isfinite(x))
        throw ModelFileError("cannot save a model with non-finite parameters (" + t.name + ")");
      data.emplace_back(x);
    }
    tensors.emplace_back(
        json::Object{{"name", t.name}, {"rows", t.rows}, {"cols", t.cols}, {"data", std::move(data)}});
  }
  json::Object root{{"format", kModelFormat},
                    {"version", kModelVersion},
                    {"spec", spec_to_json(spec)},
                    {"tensors", std::move(tensors)},
                    {"meta", meta}};
  return json::write(json::Value(std::move(root)), 1) + "\n";
}

ModelFile model_from_json(std::string_view text) {
  json::Value root;
  try {
    root = json::parse(text);
  } catch (const json::JsonError& e) {
    throw ModelFileError(std::string("not valid JSON: ") + e.what());
  }
  if (!root.is_object()) throw ModelFileError("not a GELU Lab model file (the top level is not an object)");
  const json::Value* fmt = root.find("format");
  if (!fmt || !fmt->is_string() || fmt->as_string() != kModelFormat)
    throw ModelFileError(std::string("not a GELU Lab model file (no \"format\": \"") + kModelFormat + "\")");
  const json::Value* ver = root.find("version");
  if (!ver || !ver->is_number()) throw ModelFileError("model file has no numeric \"version\"");
  if (ver->as_number() != kModelVersion)
    throw ModelFileError("model file version " + json::write(*ver) +
                         " is not supported (this build reads version " + std::to_string(kModelVersion) +
                         ")");
  ModelFile m;
  m.spec = spec_from_json(at_path("file", [&]() -> const json::Value& { return root.at("spec"); }));
  const Network<double> layout(m.spec);
  const json::Array& tensors =
      at_path("file", [&]() -> const json::Array& { return root.at("tensors").as_array(); });
  if (tensors.size() != layout.tensors().size())
    throw ModelFileError("the spec needs " + std::to_string(layout.tensors().size()) +
                         " tensors, the file has " + std::to_string(tensors.size()));
  m.parameters = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(layout.parameter_count()));
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = layout.tensors()[i];
    const std::string where = "tensors[" + std::to_string(i) + "]";
    at_path(where, [&] {
      const json::Value& tv = tensors[i];
      if (get_string(tv, "name", where) != t.name)
        throw ModelFileError(where + ": expected tensor '" + t.name + "', found " +
                             quote(tv.at("name").as_string()));
      if (get_int(tv, "rows", where) != t.rows || get_int(tv, "cols", where) != t.cols)
        throw ModelFileError(where + " (" + t.name + "): shape does not match the spec (" +
                             std::to_string(t.rows) + " x " + std::to_string(t.cols) + ")");
      const json::Array& data = tv.at("data").as_array();
      if (data.size() != static_cast<std::size_t>(t.rows * t.cols))
        throw ModelFileError(where + " (" + t.name + "): " + std::to_string(data.size()) +
                             " values, expected " + std::to_string(t.rows * t.cols));
      for (std::size_t k = 0; k < data.size(); ++k) {
        if (!data[k].is_number())
          throw ModelFileError(where + " (" + t.name + "): data[" + std::to_string(k) +
                               "] must be a number, not " + data[k].type_name());
        const double x = data[k].as_number();
        // The networks train in float: a weight beyond its range would start them at infinity.
        if (!(std::fabs(x) <= std::numeric_limits<float>::max()))
          throw ModelFileError(where + " (" + t.name + "): data[" + std::to_string(k) +
                               "] = " + format_f64(x) + " is outside the float range");
        m.parameters(static_cast<Eigen::Index>(t.offset + k)) = x;
      }
      return 0;
    });
  }
  if (const json::Value* meta = root.find("meta"); meta && meta->is_object()) m.meta = meta->as_object();
  return m;
}

template <class T>
void save_model(const std::string& path, const Network<T>& net, const json::Object& meta) {
  const std::string text = model_to_json(net.spec(), net.parameters().template cast<double>(), meta);
  try {
    write_output(path, text);  // "-": standard output
  } catch (const FileError& e) {
    throw ModelFileError(e.what());
  }
}

ModelFile load_model(const std::string& path) {
  std::string text;
  try {
    text = read_file(path, kMaxModelFileBytes);
  } catch (const FileError& e) {
    throw ModelFileError(e.what());
  }
  try {
    return model_from_json(text);
  } catch (const ModelFileError& e) {
    throw ModelFileError(path + ": " + e.what());
  }
}

template void save_model<float>(const std::string&, const Network<float>&, const json::Object&);
template void save_model<double>(const std::string&, const Network<double>&, const json::Object&);

}  // namespace gelu::ffn
