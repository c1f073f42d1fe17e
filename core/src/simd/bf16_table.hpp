// [SECTION] bf16 by table: a bf16 input has only 65,536 values, so f and f′ of a function on bf16 arrays are
// a lookup in a float table of its double reference (one per function and order, built on first use),
// followed by the rounding to bf16 with a guard. Shared by the AVX-512 loop (simd_bf16.hpp, a gather per 16
// lanes) and the portable path (bf16.cpp, one load per element).
//
// The guard: a float within E float ULPs of the exact value rounds to the same bf16 as the exact value unless
// a bf16 rounding boundary (a float whose low 16 bits are 0x8000) lies within E ULPs of it. A table entry is
// within 1/2 ULP (and a double rounding of it) of the exact value, dy·entry within ~1 ULP; floats whose low
// 16 bits lie within 8 below or 7 above 0x8000 are recomputed from the double reference and rounded once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gelu::simd {

/// One float per bf16 bit pattern: the double reference at that value, rounded to float. 256 KB; ~1 ms to
/// build from formulas.hpp.
class Bf16Table {
 public:
  template <class Ref>
  explicit Bf16Table(const Ref& ref) : v_(std::size_t(1) << 16) {
    for (std::uint32_t b = 0; b < (1u << 16); ++b) {
      const std::uint32_t u = b << 16;
      float x;
      std::memcpy(&x, &u, 4);
      v_[b] = static_cast<float>(ref(static_cast<double>(x)));
    }
  }
  const float* data() const { return v_.data(); }

 private:
  std::vector<float> v_;
};
/// The guard for one float (see above): its low 16 bits within [0x8000 − 8, 0x8000 + 7].
inline bool bf16_near_boundary(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  return ((b + 0x8008u) & 0xFFF0u) == 0;
}

}  // namespace gelu::simd
