#include "gelu/stochastic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "formulas.hpp"
#include "gelu/kernels.hpp"

namespace gelu::stochastic {

// [SECTION] Random numbers.

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double k = std::sqrt(-2.0 * std::log(s) / s);
  spare_ = v * k;
  has_spare_ = true;
  return u * k;
}

// [SECTION] The gate.

double keep_probability(double x) {
  return formulas::normal_cdf(x);
}
double drop_probability(double x) {
  return std::isnan(x) ? x : formulas::normal_upper_tail(x);
}

MonteCarloResult monte_carlo_gate(double x, std::size_t n, std::uint64_t seed, std::size_t running_points) {
  MonteCarloResult r;
  r.x = x;
  r.samples = n;
  r.exact = formulas::gelu(x);
  if (n == 0) return r;
  GateStream stream(x, seed, 0);
  const std::size_t stride = running_points ? std::max<std::size_t>(1, n / running_points) : n;
  // x·m takes only the values 0 and x, so counting keeps is exact and the moments follow from the count.
  for (std::size_t i = stride; i <= n || stream.count() < n; i += stride) {
    stream.draw_to(std::min(i, n));
    if (running_points) {
      r.running_n.push_back(stream.count());
      r.running_mean.push_back(x *
                               (static_cast<double>(stream.kept()) / static_cast<double>(stream.count())));
    }
  }
  const double nd = static_cast<double>(n);
  const double phat = static_cast<double>(stream.kept()) / nd;
  r.mean = x * phat;
  // Unbiased sample variance of x·m: x² p̂ (1 − p̂) n / (n − 1).
  r.std_error = n < 2 ? 0.0 : std::fabs(x) * std::sqrt(phat * (1.0 - phat) / (nd - 1.0));
  return r;
}

GateStream::GateStream(double x, std::uint64_t seed, std::size_t recent_capacity)
    : x_(x), keep_(keep_probability(x)), seed_(seed), rng_(seed), capacity_(recent_capacity) {}

void GateStream::draw_to(std::size_t n) {
  for (; drawn_ < n; ++drawn_) {
    const bool kept = rng_.uniform() < keep_;
    kept_ += kept;
    if (capacity_ == 0) continue;
    if (recent_.size() == capacity_) recent_.erase(recent_.begin());
    recent_.push_back(kept);
  }
}

MonteCarloResult GateStream::result(std::size_t running_points) const {
  return monte_carlo_gate(x_, drawn_, seed_, running_points);
}

// [SECTION] Gaussian pre-activations.

double expected_relu(double mu, double sigma) {
  if (!(sigma >= 0)) throw std::invalid_argument("sigma must be >= 0");
  if (sigma == 0) return formulas::relu(mu);
  const double t = mu / sigma;
  return mu * formulas::normal_cdf(t) + sigma * formulas::normal_pdf(t);
}

double expected_gelu(double mu, double sigma) {
  if (!(sigma >= 0)) throw std::invalid_argument("sigma must be >= 0");
  const double s = std::sqrt(1.0 + sigma * sigma);
  const double t = mu / s;
  return mu * formulas::normal_cdf(t) + (sigma * sigma / s) * formulas::normal_pdf(t);
}

double Histogram::density(std::size_t i) const {
  const std::size_t n = total();
  return n == 0 || bin_width() <= 0 ? 0.0
                                    : static_cast<double>(counts[i]) / (static_cast<double>(n) * bin_width());
}

std::size_t Histogram::total() const {
  std::size_t n = below + above + nan;
  for (std::size_t c : counts) n += c;
  return n;
}

Histogram histogram(std::span<const double> v, std::size_t bins, double lo, double hi) {
  Histogram h;
  if (bins == 0) throw std::invalid_argument("histogram needs at least one bin");
  if (!(lo < hi)) {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (double x : v)
      if (std::isfinite(x)) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
    if (!(lo <= hi)) lo = hi = 0;  // no finite values
    if (lo == hi) {
      // A degenerate sample (e.g. ReLU of all-negative inputs) still gets a visible bin around it.
      lo -= 0.5;
      hi += 0.5;
    }
  }
  h.lo = lo;
  h.hi = hi;
  h.counts.assign(bins, 0);
  const double scale = static_cast<double>(bins) / (hi - lo);
  for (double x : v) {
    if (std::isnan(x)) {
      ++h.nan;
    } else if (x < lo) {
      ++h.below;
    } else if (x > hi) {
      ++h.above;
    } else {
      const auto i = static_cast<std::size_t>((x - lo) * scale);
      ++h.counts[std::min(i, bins - 1)];
    }
  }
  return h;
}

namespace {

/// Reserves n doubles in x and, on Linux, has the pool's threads fault their pages in (MADV_POPULATE_WRITE,
/// 2 MiB at a time): the stream below writes x in order on one thread, and would otherwise take every page
/// fault of a 256 MB array there (docs/perf-log/2026-12-03-block-pipeline.md). Only advice: where the kernel
/// refuses it, the faults happen as before.
void prefault(std::vector<double>& x, std::size_t n) {
  x.reserve(n);
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr std::size_t kPage = 4096, kChunk = std::size_t{1} << 21;
  const std::size_t bytes = n * sizeof(double);
  if (bytes < 16 * kChunk) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(x.data()) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(x.data()) + bytes) & ~(kPage - 1);
  const std::size_t chunks = (end - begin + kChunk - 1) / kChunk;
  parallel_for(chunks, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t c = b; c < e; ++c) {
      const std::uintptr_t lo = begin + c * kChunk, hi = std::min<std::uintptr_t>(end, lo + kChunk);
      madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
    }
  });
#endif
}

}  // namespace

std::vector<double> sample_normal(double mu, double sigma, std::size_t n, std::uint64_t seed) {
  if (!(sigma >= 0)) throw std::invalid_argument("sigma must be >= 0");
  // Rng::normal's polar method in two passes, with the same values: the uniforms and the rejections in order
  // (the stream), each accepted pair (u, v) written where its two normals go; then k = √(−2·ln s / s) and the
  // two normals u·k, v·k of each pair on the pool (the logarithms are most of the time).
  RandomBits rng(seed);
  std::vector<double> x;
  prefault(x, n);
  x.resize(n);
  const std::size_t pairs = (n + 1) / 2;
  double last_v = 0;  // an odd n's last pair keeps its v here
  for (std::size_t i = 0; i < pairs; ++i) {
    double u, v, s;
    do {
      u = 2.0 * rng.uniform() - 1.0;
      v = 2.0 * rng.uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    x[2 * i] = u;
    (2 * i + 1 < n ? x[2 * i + 1] : last_v) = v;
  }
  parallel_for(pairs, 1 << 14, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const double u = x[2 * i], v = 2 * i + 1 < n ? x[2 * i + 1] : last_v;
      const double s = u * u + v * v;
      const double k = std::sqrt(-2.0 * std::log(s) / s);
      x[2 * i] = mu + sigma * (u * k);
      if (2 * i + 1 < n) x[2 * i + 1] = mu + sigma * (v * k);
    }
  });
  return x;
}

Pushforward pushforward(const Activation& fn, const Params& params, double mu, double sigma, std::size_t n,
                        std::uint64_t seed, std::size_t bins) {
  Pushforward r;
  r.input = sample_normal(mu, sigma, n, seed);
  r.output.resize(n);
  fn.eval(std::span<const double>(r.input), std::span<double>(r.output), 0, &params);
  double sum = 0;
  for (double y : r.output) sum += y;
  const double nd = static_cast<double>(n);
  r.mean = n ? sum / nd : 0.0;
  if (n >= 2) {
    double ss = 0;
    for (double y : r.output) ss += (y - r.mean) * (y - r.mean);
    r.std_error = std::sqrt(ss / (nd - 1.0) / nd);
  }
  r.input_hist = histogram(r.input, bins);
  r.output_hist = histogram(r.output, bins);
  return r;
}

}  // namespace gelu::stochastic
