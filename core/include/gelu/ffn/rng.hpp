// [SECTION] Draws for datasets, weights, batches and masks on top of the project generator (gelu/rng.hpp).
//
// The standard library's distributions are implementation-defined, so datasets, initial weights, batches
// and stochastic-GELU masks use this generator: the same seed gives the same numbers on every platform,
// which is what makes training deterministic and lets the GPU start from the CPU's exact weights.
#pragma once

#include <cmath>
#include <cstdint>

#include "gelu/rng.hpp"

namespace gelu::ffn {

/// The project's generator (gelu/rng.hpp) with the draws the nets and datasets need.
class Rng : public RandomBits {
 public:
  explicit Rng(std::uint64_t seed = 1) : RandomBits(seed) {}

  void reseed(std::uint64_t seed) {
    RandomBits::reseed(seed);
    has_spare_ = false;
  }

  using RandomBits::uniform;
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n) (n > 0), without modulo bias worth mentioning for n < 2^32.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>(uniform() * static_cast<double>(n));
  }
  /// Standard normal (Box-Muller; the second value is kept for the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    constexpr double kTwoPi = 6.283185307179586476925;
    spare_ = r * std::sin(kTwoPi * u2);
    has_spare_ = true;
    return r * std::cos(kTwoPi * u2);
  }

 private:
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace gelu::ffn
