// [SECTION] Model files: a network's spec and parameters as versioned JSON.
//
//   {"format": "gelulab-ffn", "version": 1,
//    "spec": {"inputs": 2, "outputs": 1, "bias": true, "glu": "none", "stochastic": false,
//             "hidden": [{"width": 32, "activation": "gelu", "params": [], "glu_hidden": 0}, ...]},
//    "tensors": [{"name": "h0.W", "rows": 32, "cols": 2, "data": [... column-major ...]}, ...],
//    "meta": {... free-form: dataset, loss, steps ...}}
//
// Loading checks everything (format tag, version, types, shapes against the spec, finite values) and
// throws ModelFileError with a message naming the file position or the offending key; it never crashes.
#pragma once

#include <string>
#include <string_view>

#include "gelu/ffn/network.hpp"
#include "gelu/json.hpp"

namespace gelu::ffn {

inline constexpr const char* kModelFormat = "gelulab-ffn";
inline constexpr int kModelVersion = 1;
/// The largest model file load_model reads: the largest network (8 GLU blocks of width 512, ~17M
/// parameters at ~22 bytes each) fits.
inline constexpr std::size_t kMaxModelFileBytes = std::size_t{512} << 20;

struct ModelFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ModelFile {
  NetworkSpec spec;
  Eigen::VectorXd parameters;  // flat, in Network's tensor order
  json::Object meta;
};

/// Serializes (parameters are written in shortest round-trip form of the given scalar type via double).
std::string model_to_json(const NetworkSpec& spec, const Eigen::VectorXd& parameters,
                          const json::Object& meta = {});
ModelFile model_from_json(std::string_view text);

template <class T>
void save_model(const std::string& path, const Network<T>& net, const json::Object& meta = {});
/// Reads and validates a model file; ModelFileError names the file and the problem.
ModelFile load_model(const std::string& path);
template <class T>
Network<T> make_network(const ModelFile& m) {
  Network<T> n(m.spec);
  n.parameters() = m.parameters.cast<T>();
  return n;
}

}  // namespace gelu::ffn
