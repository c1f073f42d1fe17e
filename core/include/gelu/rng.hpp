// [SECTION] The project's one random bit generator: xoshiro256** 1.0 (Blackman & Vigna), its state filled
// from the seed by splitmix64, uniforms from the top 53 bits.
//
// The standard library's distributions are implementation-defined, so everything seeded in GELU Lab
// (datasets, initial weights, batches, stochastic-GELU masks, the Monte-Carlo gate) draws from this: the same
// seed gives the same numbers on every platform.
#pragma once

#include <cstdint>

namespace gelu {

class RandomBits {
 public:
  explicit RandomBits(std::uint64_t seed = 1) { reseed(seed); }

  void reseed(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform on [0, 1): (next() >> 11)·2^-53.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& z) {
    std::uint64_t r = (z += 0x9E3779B97F4A7C15ull);
    r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ull;
    r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
    return r ^ (r >> 31);
  }
  std::uint64_t s_[4]{};
};

}  // namespace gelu
