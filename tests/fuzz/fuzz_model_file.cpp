// Checks the JSON parser (gelu/ffn/json.hpp) and the model-file loader (model_from_json, what load_model
// runs on a file's text): they return or throw JsonError/ModelFileError, nothing else; parsed JSON writes and
// re-parses to the same text; a model that loads evaluates a few points in float and double and saves and
// reloads to the same spec and bit-identical parameters.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "gelu/ffn/model_file.hpp"
#include "gelu/json.hpp"

namespace {

using namespace gelu;

void check_json(std::string_view text) {
  json::Value v;
  try {
    v = json::parse(text);
  } catch (const json::JsonError&) {
    return;
  }
  const std::string compact = json::write(v);
  const std::string pretty = json::write(v, 2);
  if (json::write(json::parse(compact)) != compact || json::write(json::parse(pretty)) != compact)
    __builtin_trap();
}

template <class T>
void evaluate(const ffn::ModelFile& m) {
  const ffn::Network<T> net = ffn::make_network<T>(m);
  using Mat = typename ffn::Network<T>::Mat;
  constexpr T kPoints[] = {
      0, T(0.75), T(-3), T(1e6), std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN()};
  constexpr int kCols = static_cast<int>(std::size(kPoints));
  Mat x(m.spec.inputs, kCols);
  for (int c = 0; c < kCols; ++c) x.col(c).setConstant(kPoints[c]);
  ffn::Workspace<T> ws;
  const Mat& y = net.forward(x, ws, ffn::Mode::Eval);
  if (y.rows() != m.spec.outputs || y.cols() != kCols) __builtin_trap();
}

void check_model(std::string_view text) {
  ffn::ModelFile m;
  try {
    m = ffn::model_from_json(text);
  } catch (const ffn::ModelFileError&) {
    return;
  }
  evaluate<float>(m);
  evaluate<double>(m);
  const ffn::ModelFile again = ffn::model_from_json(ffn::model_to_json(m.spec, m.parameters, m.meta));
  if (!(again.spec == m.spec) || again.parameters.size() != m.parameters.size()) __builtin_trap();
  for (Eigen::Index i = 0; i < m.parameters.size(); ++i)
    if (std::signbit(again.parameters(i)) != std::signbit(m.parameters(i)) ||
        again.parameters(i) != m.parameters(i))
      __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_json(text);
  check_model(text);
  return 0;
}
