// Live peers of the approximation zoo: oneDNN's own eltwise gelu_erf and gelu_tanh — what PyTorch's CPU path
// returns when it runs through mkldnn — evaluated through oneDNN itself, f' through its backward primitive.
//
// Built only when cmake/GeluOptional.cmake found oneDNN (target gelu::dnnl), as the OBJECT library
// gelu_zoo_dnnl: core never depends on oneDNN; a program that links gelu_zoo_dnnl gets the two entries added
// to the zoo at start-up by the static registrar below (object files are not dropped the way unreferenced
// members of a static library are).
//
// Data type: bf16 when the compute format is bf16 (oneDNN computes in f32 internally and rounds its output
// to bf16; on a CPU where oneDNN has no bf16 eltwise, the f32 primitive on the bf16 inputs, rounded the same
// way), f32 for every other compute format (oneDNN 2.x has no f64 eltwise); the precision lab then
// rounds to the storage format.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <span>
#include <vector>

#include "gelu/format.hpp"
#include "gelu/zoo.hpp"

namespace {

using dnnl::memory;

struct Engine {
  std::mutex mutex;  // one evaluation at a time: the GUI's worker and the app may both ask
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
Engine& engine() {
  static Engine e;
  return e;
}

std::uint16_t to_bf16(double v) {
  static const gelu::Format bf16(gelu::FormatId::BF16);
  return static_cast<std::uint16_t>(bf16.encode(v));
}
double from_bf16(std::uint16_t b) {
  static const gelu::Format bf16(gelu::FormatId::BF16);
  return bf16.decode(b);
}

/// y = f (order 0) or f' (order 1, backward with diff_dst = 1) of oneDNN's algorithm at x.
template <class T>
void run_typed(dnnl::algorithm alg, memory::data_type dt, std::span<const double> x, std::span<double> y,
               int order) {
  const std::size_t n = x.size();
  std::vector<T> src(n), dst(n), ones(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 2) {
      src[i] = to_bf16(x[i]);
      ones[i] = to_bf16(1.0);
    } else {
      src[i] = static_cast<float>(x[i]);
      ones[i] = 1.0f;
    }
  }
  Engine& e = engine();
  const std::lock_guard<std::mutex> lock(e.mutex);
  const memory::desc md({static_cast<memory::dim>(n)}, dt, memory::format_tag::a);
  memory m_src(md, e.engine, src.data()), m_dst(md, e.engine, dst.data()), m_ones(md, e.engine, ones.data());
  const auto fwd_pd = dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, md, 0.f, 0.f), e.engine);
  if (order == 0) {
    dnnl::eltwise_forward(fwd_pd).execute(e.stream, {{DNNL_ARG_SRC, m_src}, {DNNL_ARG_DST, m_dst}});
  } else {
    const auto bwd_pd = dnnl::eltwise_backward::primitive_desc(
        dnnl::eltwise_backward::desc(alg, md, md, 0.f, 0.f), e.engine, fwd_pd);
    dnnl::eltwise_backward(bwd_pd).execute(
        e.stream, {{DNNL_ARG_SRC, m_src}, {DNNL_ARG_DIFF_DST, m_ones}, {DNNL_ARG_DIFF_SRC, m_dst}});
  }
  e.stream.wait();
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 2) {
      y[i] = from_bf16(dst[i]);
    } else {
      y[i] = dst[i];
    }
  }
}

void run(dnnl::algorithm alg, std::span<const double> x, std::span<double> y, int order,
         const gelu::Format& compute) {
  if (x.empty()) return;
  if (compute.id() == gelu::FormatId::BF16) {
    // oneDNN implements bf16 eltwise only on some CPUs (it did on the AVX-512 machines; on a Zen 4 showing
    // AVX2 alone it created no primitive). Its bf16 eltwise widens the inputs to f32, computes in
    // f32 and rounds the outputs to bf16 (round to nearest even): so does this fallback, with the f32
    // primitive on the bf16 inputs.
    static std::atomic<bool> no_bf16{false};
    if (!no_bf16.load(std::memory_order_relaxed)) {
      try {
        run_typed<std::uint16_t>(alg, memory::data_type::bf16, x, y, order);
        return;
      } catch (const dnnl::error& e) {
        if (e.status != dnnl_unimplemented) throw;
        no_bf16.store(true, std::memory_order_relaxed);
      }
    }
    std::vector<double> xb(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) xb[i] = from_bf16(to_bf16(x[i]));
    run_typed<float>(alg, memory::data_type::f32, xb, y, order);
    for (double& v : y) v = from_bf16(to_bf16(v));
  } else {
    run_typed<float>(alg, memory::data_type::f32, x, y, order);
  }
}

gelu::zoo::Entry peer(const char* id, const char* name, const char* formula, dnnl::algorithm alg,
                      gelu::Cost cost) {
  gelu::zoo::Entry e;
  e.id = id;
  e.name = name;
  e.formula = formula;
  e.used_in = "oneDNN eltwise primitive: PyTorch's CPU path through mkldnn, OpenVINO";
  e.citation = "oneDNN " + std::to_string(dnnl_version()->major) + "." +
               std::to_string(dnnl_version()->minor) + "." + std::to_string(dnnl_version()->patch) +
               ", evaluated live";
  e.cost = cost;
  e.batch = [alg](std::span<const double> x, std::span<double> y, int order, const gelu::Format& c) {
    run(alg, x, y, order, c);
  };
  e.f = [alg](double x, const gelu::Format& c) {
    double y = 0;
    run(alg, std::span<const double>(&x, 1), std::span<double>(&y, 1), 0, c);
    return y;
  };
  e.d1 = [alg](double x, const gelu::Format& c) {
    double y = 0;
    run(alg, std::span<const double>(&x, 1), std::span<double>(&y, 1), 1, c);
    return y;
  };
  e.origin = gelu::zoo::Origin::Peer;
  return e;
}

struct Registrar {
  Registrar() {
    gelu::zoo::add(peer("dnnl_gelu_erf", "oneDNN gelu_erf", "oneDNN eltwise_gelu_erf: ½·x·(1 + erf(x/√2))",
                        dnnl::algorithm::eltwise_gelu_erf, gelu::Cost{4, 0, 1, 0, 0}));
    gelu::zoo::add(peer("dnnl_gelu_tanh", "oneDNN gelu_tanh",
                        "oneDNN eltwise_gelu_tanh: ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))",
                        dnnl::algorithm::eltwise_gelu_tanh, gelu::Cost{8, 0, 1, 0, 0}));
  }
};
const Registrar registrar;

}  // namespace
