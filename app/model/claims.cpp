// Claims and quantities computed by the core (see claims.hpp).
//
// Index of this file:
//   [SECTION] Shape facts, from gelu
//   [SECTION] Cost, measured as the Benchmarks panel measures
#include "model/claims.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/analysis.hpp"
#include "gelu/bench.hpp"
#include "gelu/block_format.hpp"
#include "model/threads.hpp"

namespace gelu::app::model {

namespace {

using analysis::Properties;
using analysis::properties;
using analysis::spec;

std::vector<std::string_view> split(std::string_view key) {
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = key.find(':', from);
    parts.push_back(key.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return parts;
    from = at + 1;
  }
}

// A plain decimal number as a lesson writes it: -?digits(.digits)?
bool plain_number(std::string_view s) {
  std::size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
  const std::size_t int_from = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == int_from) return false;
  if (i < s.size() && s[i] == '.') {
    const std::size_t frac_from = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == frac_from) return false;
  }
  return i == s.size() && s.size() <= 24;
}
double number(std::string_view s) {
  return std::strtod(std::string(s).c_str(), nullptr);
}

// The text with '-' written as the minus sign U+2212 (as the plots write numbers).
std::string minus(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("−") : std::string(1, c);
  return out;
}

// "−0.008415": %.*g with a Unicode minus.
std::string num(double v, int digits = 4) {
  if (std::isinf(v)) return v > 0 ? "∞" : "−∞";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v == 0 ? 0.0 : v);
  return minus(buf);
}

std::string name_of(const Activation& a) {
  if (std::string_view(a.id) == "gelu") return "GELU";
  return a.name;
}

std::string fn_problem(std::string_view id) {
  if (find_activation(id)) return {};
  std::string ids;
  for (const Activation& a : registry()) {
    if (!ids.empty()) ids += '|';
    ids += a.id;
  }
  return std::string("unknown function '") + std::string(id) + "' (" + ids + ")";
}
const Activation& fn(std::string_view id) {
  const Activation* a = find_activation(id);
  if (!a) throw std::invalid_argument(fn_problem(id));
  return *a;
}

// [SECTION] Shape facts, from gelu::core's analysis (default_properties: cached per function).

const Properties& props(const Activation& a) {
  return analysis::default_properties(a);
}

double d1(const Activation& a, double x) {
  return a.eval(x, 1);
}

// The largest x where f′ changes sign (f rises beyond it), or nothing.
std::optional<double> rising_from(const Activation& a) {
  const Properties& p = props(a);
  if (p.critical_points.empty()) return std::nullopt;
  return p.critical_points.back().x;
}

// Where f′ peaks: the zero of f″ with the largest f′ (nothing when f″ never changes sign).
std::optional<double> slope_peak(const Activation& a) {
  const Properties& p = props(a);
  std::optional<double> best;
  for (double x : p.inflection_points)
    if (!best || d1(a, x) > d1(a, *best)) best = x;
  return best;
}

struct MaxDiff {
  double value = 0, x = 0;
};
// max |f − g| on [−10, 10]: a grid of 0.001, refined by golden-section search around the best grid point.
MaxDiff max_diff(const Activation& f, const Activation& g) {
  auto d = [&](double x) { return std::abs(f.eval(x) - g.eval(x)); };
  MaxDiff best{-1, 0};
  for (int i = 0; i <= 20000; ++i) {
    const double x = -10.0 + 0.001 * i;
    if (const double v = d(x); v > best.value) best = {v, x};
  }
  double lo = best.x - 0.001, hi = best.x + 0.001;
  for (int it = 0; it < 80; ++it) {
    const double a = lo + (hi - lo) * 0.381966, b = hi - (hi - lo) * 0.381966;
    (d(a) > d(b) ? hi : lo) = d(a) > d(b) ? b : a;
  }
  const double x = (lo + hi) / 2;
  if (d(x) > best.value) best = {d(x), x};
  return best;
}

// [SECTION] Cost, measured as the Benchmarks panel measures: the registry's scalar float evaluator and its
// batched vectorized path over 32,768 floats (below the thread pool's threshold: one thread), medians of
// interleaved repetitions, so both functions see the same machine.

struct Cost {
  double vec_ratio = 0, scalar_ratio = 0;
  double vec_ns[2] = {0, 0}, scalar_ns[2] = {0, 0};  // [function, base] ns per element
};

Cost measure_cost(const Activation& f, const Activation& base) {
#ifdef GELU_NO_THREADS
  constexpr std::size_t n = 4096;  // measured on the page's own frame: the page waits for it
#else
  constexpr std::size_t n = 32768;
#endif
  std::vector<float> x(n), y(n);
  bench::fill_inputs(x);
  auto scalar = bench::cpu_scalar_target();
  auto vec = bench::cpu_vector_target();
  const Activation* fns[2] = {&f, &base};
  bench::Target* targets[2] = {vec.get(), scalar.get()};
  std::vector<double> t[2][2];
  for (int rep = -1; rep < 15; ++rep)
    for (int ti = 0; ti < 2; ++ti)
      for (int fi = 0; fi < 2; ++fi) {
        const int inner = ti == 0 ? 16 : 1;  // the vectorized kernels take microseconds: time 16 calls
        const Params p = spec(*fns[fi]).params;
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < inner; ++k) {
          bench::Sample s;
          if (auto err = targets[ti]->run(*fns[fi], 0, p, x, y, s)) throw std::runtime_error(*err);
        }
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (rep >= 0) t[ti][fi].push_back(sec * 1e9 / (static_cast<double>(inner) * n));
      }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  Cost c;
  for (int fi = 0; fi < 2; ++fi) {
    c.vec_ns[fi] = median(t[0][fi]);
    c.scalar_ns[fi] = median(t[1][fi]);
  }
  c.vec_ratio = c.vec_ns[0] / c.vec_ns[1];
  c.scalar_ratio = c.scalar_ns[0] / c.scalar_ns[1];
  return c;
}

// One measurement per pair per process, on a worker thread; nothing while it runs (unless `wait`).
std::optional<Cost> cost(const Activation& f, const Activation& base, bool wait) {
  static std::mutex m;
  static std::map<std::string, std::shared_future<Cost>> runs;
  std::shared_future<Cost> fut;
  {
    std::lock_guard lock(m);
    auto& r = runs[std::string(f.id) + ":" + base.id];
#ifdef GELU_NO_THREADS
    if (!r.valid())
      r = std::async(std::launch::deferred, [&f, &base] { return measure_cost(f, base); }).share();
#else
    if (!r.valid()) r = std::async(std::launch::async, [&f, &base] { return measure_cost(f, base); }).share();
#endif
    fut = r;
  }
#ifdef GELU_NO_THREADS  // deferred: measured now, on the caller's thread
  (void)wait;
#else
  if (!wait && fut.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
#endif
  return fut.get();
}

const std::string kHolds = "✓ holds: ";
const std::string kFails = "✗ does not hold: ";

// What each key takes after its kind: 'f' a function id, 'n' a plain number.
struct Kind {
  const char* name;
  const char* args;
  const char* help;
};
constexpr Kind kClaims[] = {
    {"value", "fnn", "claim:value:FN:X:V (FN(X) ≈ V)"},
    {"rising_above", "fn", "claim:rising_above:FN:X (FN′(x) > 0 for every x > X)"},
    {"unbounded", "f", "claim:unbounded:FN (FN's range is (−∞, ∞))"},
    {"slope_peak", "fn", "claim:slope_peak:FN:X (FN′ peaks near x ≈ X)"},
    {"within", "ffn", "claim:within:FN:FN2:TOL (|FN − FN2| ≤ TOL)"},
    {"cost", "ffn", "claim:cost:FN:BASE:K (FN costs about K× BASE)"},
};
constexpr Kind kQuantities[] = {
    {"value", "fn", "value:FN:X"},
    {"slope", "fn", "slope:FN:X"},
    {"min", "f", "min:FN"},
    {"argmin", "f", "argmin:FN"},
    {"slope_peak", "f", "slope_peak:FN"},
    {"rising_from", "f", "rising_from:FN"},
    {"maxdiff", "ff", "maxdiff:FN:FN2"},
    {"cost", "ff", "cost:FN:BASE"},
    {"cost_scalar", "ff", "cost_scalar:FN:BASE"},
    {"flush_max", "fb", "flush_max:FN:BLOCKFORMAT (the block max from which FN's lobe is stored as 0)"},
};

template <std::size_t N>
std::string key_problem(std::span<const std::string_view> parts, const Kind (&kinds)[N], const char* what) {
  if (parts.empty() || parts[0].empty()) return std::string("empty ") + what;
  const Kind* k = nullptr;
  for (const Kind& c : kinds)
    if (parts[0] == c.name) k = &c;
  if (!k) {
    std::string list;
    for (const Kind& c : kinds) {
      if (!list.empty()) list += '|';
      list += c.name;
    }
    return std::string("unknown ") + what + " '" + std::string(parts[0]) + "' (" + list + ")";
  }
  const std::string_view args(k->args);
  if (parts.size() != args.size() + 1)
    return std::string("'") + std::string(parts[0]) + "' takes " + std::to_string(args.size()) +
           " parts after it: " + k->help;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view p = parts[i + 1];
    if (args[i] == 'f') {
      if (std::string e = fn_problem(p); !e.empty()) return e;
    } else if (args[i] == 'b') {
      if (!find_block_format(p))
        return std::string("'") + std::string(p) + "' is not a block format (" + block_format_names() + ")";
    } else if (!plain_number(p)) {
      return std::string("'") + std::string(p) +
             "' is not a plain decimal number (such as -0.2 or 1.4): " + k->help;
    }
  }
  return {};
}

}  // namespace

bool rounds_to(double computed, std::string_view written) {
  if (!plain_number(written) || !std::isfinite(computed)) return false;
  const std::size_t dot = written.find('.');
  const int decimals = dot == std::string_view::npos ? 0 : static_cast<int>(written.size() - dot - 1);
  const double scale = std::pow(10.0, decimals);
  return std::abs(std::round(computed * scale) - std::round(number(written) * scale)) < 0.5;
}

bool is_claim_key(std::string_view key) {
  return key.substr(0, 6) == "claim:";
}

std::string claim_problem(std::string_view key) {
  if (!is_claim_key(key)) return "not a claim (claim:KIND:…)";
  return key_problem(split(key.substr(6)), kClaims, "claim");
}

std::string claim_text(std::string_view key, bool wait) {
  if (std::string e = claim_problem(key); !e.empty()) throw std::invalid_argument(e);
  const std::vector<std::string_view> p = split(key.substr(6));
  const std::string_view kind = p[0];
  const Activation& a = fn(p[1]);
  const std::string name = name_of(a);
  if (kind == "value") {
    const double x = number(p[2]), v = a.eval(x);
    const std::string said = minus(std::string(p[3]));
    const std::string what = name + "(" + num(x) + ") = " + num(v, 4);
    return rounds_to(v, p[3]) ? kHolds + what + " ≈ " + said : kFails + what + ", not ≈ " + said;
  }
  if (kind == "rising_above") {
    const double from = number(p[2]);
    const std::optional<double> r = rising_from(a);
    // The smallest f′ on (from, from + 40]: a function flat at 0 (ReLU's f′ for x < 0) has no sign change
    // but does not rise there either.
    double worst_x = from, worst = INFINITY;
    for (int i = 1; i <= 40000; ++i) {
      const double x = from + 0.001 * i;
      if (const double v = d1(a, x); v < worst) worst = v, worst_x = x;
    }
    if (worst > 0)
      return kHolds + name + "′(x) > 0 for every x > " + num(from) + " (its least there: " + num(worst, 3) +
             ")";
    std::string s = kFails + name + "′(" + num(worst_x) + ") = " + num(worst, 3) + (worst < 0 ? " < 0" : "");
    if (r && *r > from) s += "; " + name + " rises only for x > " + num(*r);
    return s;
  }
  if (kind == "unbounded") {
    const Properties& pr = props(a);
    const bool below = std::isinf(pr.infimum) && pr.infimum < 0;
    const bool above = pr.plus_inf.exists && pr.plus_inf.slope > 0;
    if (below && above) return kHolds + name + " takes every real value";
    std::string s = kFails;
    if (!below) {
      s += name + " ≥ " + num(pr.infimum);
      if (pr.global_minimum) s += " (its minimum, at x = " + num(pr.global_minimum->x) + ")";
      s += ": its range is [" + num(pr.infimum) + ", " + (above ? "∞)" : "…]");
    } else {
      s += name + " is bounded above";
    }
    return s;
  }
  if (kind == "slope_peak") {
    const std::optional<double> x = slope_peak(a);
    if (!x) return kFails + name + "′ has no peak (" + name + "″ never changes sign)";
    const std::string what = name + "′ peaks at x = " + num(*x) + ", where it is " + num(d1(a, *x));
    return rounds_to(*x, p[2]) ? kHolds + what : kFails + what + ", not near " + minus(std::string(p[2]));
  }
  const Activation& b = fn(p[2]);
  if (kind == "within") {
    const MaxDiff d = max_diff(a, b);
    const double tol = number(p[3]);
    const std::string what = std::string("|") + name + " − " + name_of(b) + "| ≤ " + num(d.value, 3) +
                             " on [−10, 10] (largest at x = " + num(d.x) + ")";
    return d.value <= tol ? kHolds + what : kFails + what + ", more than " + num(tol);
  }
  // cost
  const std::optional<Cost> c = cost(a, b, wait);
  if (!c) return {};
  const bool v_ok = rounds_to(c->vec_ratio, p[3]), s_ok = rounds_to(c->scalar_ratio, p[3]);
  // The verdict, then both measurements (marked one by one where they disagree) and the times behind them.
  const std::string mixed_v = v_ok == s_ok ? "" : v_ok ? "✓ " : "✗ ";
  const std::string mixed_s = v_ok == s_ok ? "" : s_ok ? "✓ " : "✗ ";
  return (v_ok && s_ok     ? kHolds
          : !v_ok && !s_ok ? kFails
                           : std::string("holds in part: ")) +
         mixed_v + num(c->vec_ratio, 2) + "× vectorized, " + mixed_s + num(c->scalar_ratio, 2) +
         "× scalar (" + num(c->vec_ns[0], 2) + " vs " + num(c->vec_ns[1], 2) +
         " ns per value vectorized, measured now)";
}

std::string quantity_problem(std::string_view key) {
  return key_problem(split(key), kQuantities, "quantity");
}

std::optional<double> quantity(std::string_view key, bool wait) {
  if (std::string e = quantity_problem(key); !e.empty()) throw std::invalid_argument(e);
  const std::vector<std::string_view> p = split(key);
  const std::string_view kind = p[0];
  const Activation& a = fn(p[1]);
  if (kind == "value") return a.eval(number(p[2]));
  if (kind == "slope") return d1(a, number(p[2]));
  if (kind == "min" || kind == "argmin") {
    const Properties& pr = props(a);
    if (!pr.global_minimum) return kind == "min" ? std::optional<double>(pr.infimum) : std::nullopt;
    return kind == "min" ? pr.global_minimum->value : pr.global_minimum->x;
  }
  if (kind == "slope_peak") return slope_peak(a);
  if (kind == "rising_from") return rising_from(a);
  if (kind == "flush_max") {
    const Properties& pr = props(a);
    if (!pr.global_minimum || !(pr.global_minimum->value < 0)) return std::nullopt;
    const double t = BlockFormat(find_block_format(p[2])->id).flush_threshold(pr.global_minimum->value);
    return std::isfinite(t) ? std::optional<double>(t) : std::nullopt;
  }
  const Activation& b = fn(p[2]);
  if (kind == "maxdiff") return max_diff(a, b).value;
  const std::optional<Cost> c = cost(a, b, wait);
  if (!c) return std::nullopt;
  return kind == "cost" ? c->vec_ratio : c->scalar_ratio;
}

std::string quantity_text(std::string_view key, double value) {
  const std::string_view kind = split(key)[0];
  if (kind == "argmin" || kind == "slope_peak" || kind == "rising_from") return "x = " + num(value);
  if (kind == "cost" || kind == "cost_scalar") return num(value, 2) + "×";
  return num(value, 4);
}

}  // namespace gelu::app::model
