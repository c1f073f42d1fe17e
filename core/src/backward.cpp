// [SECTION] The backward pass over float arrays (gelu/kernels.hpp): the registry entry's fused kernel, or f'
// followed by the product, split across the pool like Activation::eval.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "gelu/kernels.hpp"
#include "parallel.hpp"

namespace gelu {

void backward(const Activation& a, std::span<const float> x, std::span<const float> dy, std::span<float> dx,
              const Params* p, Path path) {
  if (dy.size() < x.size() || dx.size() < x.size()) throw std::invalid_argument("dy or dx shorter than x");
  const Params d = p ? *p : a.defaults();
  const BatchGradF32 fused = path == Path::Fast ? a.batch_backward_f32 : nullptr;
  const BatchF32 d1 = (path == Path::Fast ? a.batch_f32 : a.batch_f32_accurate)[1];
  if (fused && (x.size() < detail::kParallelMinFloat || thread_count() == 1))
    return fused(x.data(), dy.data(), dx.data(), x.size(), d);
  parallel_for(x.size(), detail::kParallelMinFloat / 2, [&](std::size_t b, std::size_t e) {
    if (fused) {
      fused(x.data() + b, dy.data() + b, dx.data() + b, e - b, d);
      return;
    }
    // f' into a small buffer, then the product (dy and dx may alias).
    float buf[1024];
    for (std::size_t i = b; i < e; i += 1024) {
      const std::size_t m = std::min<std::size_t>(1024, e - i);
      d1(x.data() + i, buf, m, d);
      for (std::size_t j = 0; j < m; ++j) dx[i + j] = dy[i + j] * buf[j];
    }
  });
}

}  // namespace gelu
