#include "simd_kernels.hpp"

#include "formulas.hpp"

namespace gelu::simd {

void gelu_f32(const float* x, float* y, std::size_t n, const Params&) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::gelu(x[i]));
}
void gelu_d1_f32(const float* x, float* y, std::size_t n, const Params&) {
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(formulas::gelu_d1(x[i]));
}
const char* isa() { return "scalar"; }

}  // namespace gelu::simd
