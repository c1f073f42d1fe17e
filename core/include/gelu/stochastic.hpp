// GELU Lab core: the stochastic view of GELU.
//
// GELU(x) = x·Φ(x) is the expected output of the stochastic gate x·m with m ~ Bernoulli(Φ(x)): the input is
// kept with probability Φ(x) and dropped with probability 1 − Φ(x). This file has those probabilities,
// a seeded Monte-Carlo estimator of E[x·m], and the Gaussian pre-activation view (X ~ N(μ, σ²) pushed
// through an activation: exact expectations for GELU and ReLU and a seeded sampler with histograms).
//
// Reproducibility: the random stream is xoshiro256** seeded through splitmix64 (both specified bit for bit
// below), uniforms are the top 53 bits scaled by 2^-53, and normals come from Marsaglia's polar method.
// The bit stream is identical on every platform; derived values go through std::log/std::sqrt/std::erfc,
// so across C libraries they can differ in the last bit only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/rng.hpp"

namespace gelu::stochastic {

/// The project generator (gelu/rng.hpp) with normals from Marsaglia's polar method.
class Rng : public RandomBits {
 public:
  explicit Rng(std::uint64_t seed) : RandomBits(seed) {}
  /// Standard normal (Marsaglia polar method; the second value of each pair is kept for the next call).
  double normal();

 private:
  double spare_ = 0;
  bool has_spare_ = false;
};

/// P(keep) = Φ(x), accurate in relative terms on both tails.
double keep_probability(double x);
/// P(drop) = 1 − Φ(x) = Φ(−x), without cancellation for large x.
double drop_probability(double x);

struct MonteCarloResult {
  double x = 0;
  std::size_t samples = 0;
  double mean = 0;                     // (1/n) Σ x·m_i
  double std_error = 0;                // sample standard deviation / sqrt(n) (0 for n < 2)
  double exact = 0;                    // GELU(x), what the mean converges to
  std::vector<std::size_t> running_n;  // running_mean[j] is the mean of the first running_n[j] draws
  std::vector<double> running_mean;
};

/// n draws of x·m, m = [u < Φ(x)] with u uniform from Rng(seed). The running mean is recorded at about
/// `running_points` evenly spaced draw counts (always including n), for a convergence plot.
MonteCarloResult monte_carlo_gate(double x, std::size_t n, std::uint64_t seed,
                                  std::size_t running_points = 512);

/// The same gate drawn a few masks at a time, for a live view: after draw_to(n) the masks are exactly the
/// first n of monte_carlo_gate(x, n, seed) (one rule, m = [u < Φ(x)] from Rng(seed)), `recent()` holds the
/// last of them for display, and `result()` is that estimator.
class GateStream {
 public:
  GateStream(double x, std::uint64_t seed, std::size_t recent_capacity = 64);
  /// Extends the stream to n draws in total (n below count() does nothing).
  void draw_to(std::size_t n);
  std::size_t count() const { return drawn_; }
  std::size_t kept() const { return kept_; }
  double x() const { return x_; }
  double keep() const { return keep_; }
  /// The last masks drawn, oldest first (true = kept), at most recent_capacity of them.
  const std::vector<bool>& recent() const { return recent_; }
  /// monte_carlo_gate(x, count(), seed, running_points): the estimate, its standard error and running means.
  MonteCarloResult result(std::size_t running_points = 512) const;

 private:
  double x_, keep_;
  std::uint64_t seed_;
  Rng rng_;
  std::size_t drawn_ = 0, kept_ = 0, capacity_;
  std::vector<bool> recent_;
};

// [SECTION] Gaussian pre-activations X ~ N(mu, sigma^2), sigma >= 0.

/// E[ReLU(X)] = μΦ(μ/σ) + σφ(μ/σ); σ = 0 gives ReLU(μ).
double expected_relu(double mu, double sigma);
/// E[GELU(X)] = μΦ(μ/s) + (σ²/s)φ(μ/s), s = √(1 + σ²) (since Φ(X) = P(Z ≤ X) for an independent Z ~ N(0,1)).
double expected_gelu(double mu, double sigma);

struct Histogram {
  double lo = 0, hi = 0;  // bins cover [lo, hi) evenly; the last bin also takes x == hi
  std::vector<std::size_t> counts;
  std::size_t below = 0, above = 0;  // samples outside [lo, hi]
  std::size_t nan = 0;
  double bin_width() const { return counts.empty() ? 0.0 : (hi - lo) / static_cast<double>(counts.size()); }
  /// counts[i] / (total * bin_width): comparable with a probability density.
  double density(std::size_t i) const;
  std::size_t total() const;
};

/// Histogram of v over [lo, hi] with `bins` bins; lo >= hi picks the range [min v, max v] of the finite
/// values.
Histogram histogram(std::span<const double> v, std::size_t bins, double lo = 0, double hi = 0);

/// n draws of X ~ N(mu, sigma^2) from Rng(seed).
std::vector<double> sample_normal(double mu, double sigma, std::size_t n, std::uint64_t seed);

struct Pushforward {
  std::vector<double> input;   // the draws of X
  std::vector<double> output;  // f(X), in double
  double mean = 0, std_error = 0;
  Histogram input_hist, output_hist;
};

/// X ~ N(mu, sigma^2) (n draws, Rng(seed)) through f = fn at its params, histograms with `bins` bins over
/// the samples' range. The same seed gives the same X for every fn, so GELU and ReLU are compared on one
/// sample.
Pushforward pushforward(const Activation& fn, const Params& params, double mu, double sigma, std::size_t n,
                        std::uint64_t seed, std::size_t bins = 64);

}  // namespace gelu::stochastic
