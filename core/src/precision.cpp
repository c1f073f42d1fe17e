// The precision lab (gelu/precision.hpp): sweeps, facts, verdicts, the int8 view, summary tables and pair
// checks.
//
// Index of this file:
//   [SECTION] Sweeps
//   [SECTION] Facts
//   [SECTION] Summary tables
//   [SECTION] Pair checks
#include "gelu/precision.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <stdexcept>

#include "gelu/numio.hpp"

namespace gelu::precision {
namespace {

[[maybe_unused]] constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kChunk = 4096;

std::string g3(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// A number in a one-line text: 3 significant digits, the minus sign as −.
std::string num(double v) {
  std::string s = g3(v);
  if (!s.empty() && s[0] == '-') s = "−" + s.substr(1);
  return s;
}

}  // namespace

// [SECTION] Sweeps

Format default_compute(const Format& storage) {
  return Format(storage.id() == FormatId::F64 ? FormatId::F64 : FormatId::F32);
}

std::vector<double> inputs(const Format& storage, double lo, double hi, std::size_t samples) {
  if (samples == 0) {
    if (!storage.enumerable())
      throw std::invalid_argument(std::string(storage.name()) +
                                  " has too many values for an exhaustive sweep; give a number of samples");
    return storage.enumerate(lo, hi);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
    throw std::invalid_argument("the range must be finite with lo <= hi");
  std::vector<double> x(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    const double t = samples == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(samples - 1);
    x[i] = storage.round(i + 1 == samples && samples > 1 ? hi : lo * (1.0 - t) + hi * t);
  }
  return x;
}

SweepJob sweep_job(const zoo::Entry& e, const analysis::FunctionSpec& reference, std::vector<double> x,
                   const Format& storage, const Format& compute, int order) {
  if (!reference.fn) throw std::invalid_argument("sweep: no reference function");
  if (order != 0 && order != 1) throw std::invalid_argument("sweep: order must be 0 or 1");
  if (order == 1 && !e.has_d1()) throw std::invalid_argument(e.id + " has no derivative");
  SweepJob job;
  job.entry = e;
  job.reference = reference;
  job.storage = storage;
  job.compute = compute;
  job.order = order;
  Sweep& s = job.sweep;
  s.entry_id = e.id;
  s.compute = compute;
  s.order = order;
  analysis::ErrorReport& r = s.errors;
  r.format = storage;
  r.reference = reference;
  r.reference.order = order;
  r.x = std::move(x);
  for (double& v : r.x) v = storage.round(v);
  const std::size_t n = r.x.size();
  if (n) {
    r.a = *std::min_element(r.x.begin(), r.x.end());
    r.b = *std::max_element(r.x.begin(), r.x.end());
  }
  r.value.resize(n);
  r.ref_value.resize(n);
  s.overflowed.assign(n, 0);
  return job;
}

SweepJob sweep_job(const zoo::Entry& e, const analysis::FunctionSpec& reference, const SweepSpec& spec) {
  return sweep_job(e, reference, inputs(spec.storage, spec.lo, spec.hi, spec.samples), spec.storage,
                   spec.compute, spec.order);
}

bool sweep_some(SweepJob& job, const Progress& go_on) {
  if (job.done) return true;
  Sweep& s = job.sweep;
  analysis::ErrorReport& r = s.errors;
  const zoo::Entry& e = job.entry;
  const std::size_t n = r.x.size();
  const zoo::Evaluator& g = job.order == 0 ? e.f : e.d1;
  while (job.at < n) {
    const std::size_t at = job.at, m = std::min(kChunk, n - at);
    const std::span<const double> xs(r.x.data() + at, m);
    if (e.batch) {
      e.batch(xs, std::span<double>(r.value.data() + at, m), job.order, job.compute);
    } else {
      for (std::size_t i = at; i < at + m; ++i) {
        zoo::reset_overflow_count();
        r.value[i] = g(r.x[i], job.compute);
        if (zoo::overflow_count()) {
          s.overflowed[i] = 1;
          ++s.overflows;
        }
      }
    }
    for (std::size_t i = at; i < at + m; ++i)
      r.value[i] = zoo::rounded_result(e, job.storage, r.x[i], r.value[i], job.order);
    job.reference.fn->eval(xs, std::span<double>(r.ref_value.data() + at, m), job.order,
                           &job.reference.params);
    job.at = at + m;
    if (job.at < n && go_on && !go_on(static_cast<double>(job.at) / static_cast<double>(n))) return false;
  }
  analysis::score(r);
  job.done = true;
  return true;
}

Sweep sweep_at(const zoo::Entry& e, const analysis::FunctionSpec& reference, std::vector<double> x,
               const Format& storage, const Format& compute, int order, const Progress& progress) {
  SweepJob job = sweep_job(e, reference, std::move(x), storage, compute, order);
  // The last chunk's progress (1.0) is asked too, as before: a cancel there still cancels.
  const bool done = sweep_some(job, progress);
  if (!done || (progress && !job.sweep.errors.x.empty() && !progress(1.0))) {
    Sweep cancelled;
    cancelled.entry_id = e.id;
    cancelled.compute = compute;
    cancelled.order = order;
    cancelled.cancelled = true;
    return cancelled;
  }
  return std::move(job.sweep);
}

Sweep sweep(const zoo::Entry& e, const analysis::FunctionSpec& reference, const SweepSpec& spec,
            const Progress& progress) {
  return sweep_at(e, reference, inputs(spec.storage, spec.lo, spec.hi, spec.samples), spec.storage,
                  spec.compute, spec.order, progress);
}

// [SECTION] Facts

namespace {

struct Probe {
  double value;   // the stored result
  bool overflow;  // an intermediate overflowed
};

Probe probe(const zoo::Entry& e, double x, const Format& storage, const Format& compute, int order) {
  zoo::reset_overflow_count();
  const double y = e.eval(x, order, compute);
  return {zoo::rounded_result(e, storage, x, y, order), zoo::overflow_count() > 0};
}

/// The boundary between ordinals lo (pred true) and hi (pred false): returns the pair (last true, first
/// false).
template <class Pred>
std::pair<std::int64_t, std::int64_t> bisect(std::int64_t lo, std::int64_t hi, Pred pred) {
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (pred(mid) ? lo : hi) = mid;
  }
  return {lo, hi};
}

}  // namespace

Tails tails(const zoo::Entry& e, const Format& storage, const Format& compute, int order, double lo,
            double hi) {
  Tails t;
  const auto inside = [&](std::optional<double>& v) {
    if (v && !(*v >= lo && *v <= hi)) v.reset();
  };
  if (storage.enumerable()) {
    const std::vector<double> x = storage.enumerate(lo, hi);
    std::vector<Probe> p;
    p.reserve(x.size());
    if (e.batch) {
      // A whole-array entry (a live peer: one library call, not 65,536) tells nothing about overflows.
      std::vector<double> y(x.size());
      e.eval(x, y, order, compute);
      for (std::size_t i = 0; i < x.size(); ++i)
        p.push_back({zoo::rounded_result(e, storage, x[i], y[i], order), false});
    } else {
      for (double v : x) p.push_back(probe(e, v, storage, compute, order));
    }
    std::size_t i = 0;
    // The zero run from the bottom of the range (through x = 0 and on, for ReLU).
    while (i < x.size() && p[i].value == 0) ++i;
    if (i > 0 && x[0] < 0) {
      t.first_zero = x[i - 1];
      if (i < x.size()) t.lowest_nonzero = x[i];
    }
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (!p[k].overflow) continue;
      if (x[k] > 0 && !t.overflow_above) t.overflow_above = x[k];
      if (x[k] < 0) t.overflow_below = x[k];
    }
    return t;
  }
  // f32, f64: bisection over the ordinals of the values.
  const std::int64_t bottom = storage.ordinal(-storage.max_finite()), minus_one = storage.ordinal(-1.0);
  const auto zero_at = [&](std::int64_t k) {
    return probe(e, storage.from_ordinal(k), storage, compute, order).value == 0;
  };
  if (zero_at(bottom) && !zero_at(minus_one)) {
    const auto [last_zero, first_nonzero] = bisect(bottom, minus_one, zero_at);
    t.first_zero = storage.from_ordinal(last_zero);
    t.lowest_nonzero = storage.from_ordinal(first_nonzero);
  }
  const auto overflow_at = [&](std::int64_t k) {
    return probe(e, storage.from_ordinal(k), storage, compute, order).overflow;
  };
  const std::int64_t top = storage.ordinal(storage.max_finite()),
                     tiny = storage.ordinal(storage.min_positive());
  if (overflow_at(top)) {
    if (overflow_at(tiny)) {
      t.overflow_above = storage.from_ordinal(tiny);
    } else {
      const auto [ok, first] = bisect(tiny, top, [&](std::int64_t k) { return !overflow_at(k); });
      t.overflow_above = storage.from_ordinal(first);
    }
  }
  if (overflow_at(bottom)) {
    const std::int64_t minus_tiny = -tiny;
    if (overflow_at(minus_tiny)) {
      t.overflow_below = storage.from_ordinal(minus_tiny);
    } else {
      // Ordinals increase with the value: the overflowing ones are at the bottom.
      const auto [last, ok] = bisect(bottom, minus_tiny, overflow_at);
      t.overflow_below = storage.from_ordinal(last);
    }
  }
  inside(t.first_zero);
  inside(t.lowest_nonzero);
  inside(t.overflow_above);
  inside(t.overflow_below);
  return t;
}

std::vector<std::uint8_t> differing(const Sweep& s) {
  const analysis::ErrorReport& r = s.errors;
  std::vector<std::uint8_t> d(r.x.size());
  for (std::size_t i = 0; i < r.x.size(); ++i)
    d[i] = analysis::differs(r.format, r.value[i], r.ref_value[i], analysis::reference_side(r, i)) ? 1 : 0;
  return d;
}

std::string verdict_reference(const Sweep& s, std::string_view reference_name) {
  const analysis::ErrorReport& r = s.errors;
  std::string ref(reference_name);
  if (ref.empty()) ref = r.reference.fn && std::string_view(r.reference.fn->id) == "gelu" ? "exact" : "";
  if (ref.empty() && r.reference.fn) ref = r.reference.fn->id;
  if (s.order == 1) ref += "'s derivative";
  return ref;
}

Verdict verdict(const VerdictInput& in, double lo, double hi) {
  Verdict v;
  const std::string& ref = in.reference;
  const std::string fmt(in.format.name());
  // Inputs in increasing order (a sweep's inputs are; samples are too), so the range is an index range.
  const std::size_t b =
      static_cast<std::size_t>(std::lower_bound(in.x.begin(), in.x.end(), lo) - in.x.begin());
  const std::size_t e =
      static_cast<std::size_t>(std::upper_bound(in.x.begin(), in.x.end(), hi) - in.x.begin());
  const bool whole = b == 0 && e == in.x.size();
  v.n = e > b ? e - b : 0;
  if (v.n == 0) {
    v.text = whole ? "no inputs" : "no inputs in [" + num(lo) + ", " + num(hi) + "]";
    return v;
  }
  auto over = [&](std::size_t i) { return !in.overflowed.empty() && in.overflowed[i] != 0; };
  // Ordinary differences (no overflow at that input) and wrong results where an intermediate overflowed.
  std::size_t first = e, last = b;
  bool any = false;
  for (std::size_t i = b; i < e; ++i) {
    if (!in.differs[i]) continue;
    if (over(i)) {
      ++v.overflow_wrong;
      const double x = in.x[i];
      if (x > 0 && (!v.overflow_wrong_from || x < *v.overflow_wrong_from)) v.overflow_wrong_from = x;
      if (x < 0 && (!v.overflow_wrong_to || x > *v.overflow_wrong_to)) v.overflow_wrong_to = x;
      continue;
    }
    ++v.mismatch;
    if (!any || in.ulp[i] > v.max_ulp) {
      v.max_ulp = in.ulp[i];
      v.x_at_max = in.x[i];
    }
    any = true;
    first = std::min(first, i);
    last = i;
  }
  const std::string of_n =
      whole ? std::to_string(v.n) + " inputs"
            : "the " + std::to_string(v.n) + " inputs in [" + num(lo) + ", " + num(hi) + "]";
  std::string overflow;
  if (v.overflow_wrong > 0) {
    std::string where;
    if (v.overflow_wrong_from && v.overflow_wrong_to && *v.overflow_wrong_from == -*v.overflow_wrong_to)
      where = "|x| ≥ " + num(*v.overflow_wrong_from);
    else if (v.overflow_wrong_from && v.overflow_wrong_to)
      where = "x ≥ " + num(*v.overflow_wrong_from) + " or x ≤ " + num(*v.overflow_wrong_to);
    else if (v.overflow_wrong_from)
      where = "x ≥ " + num(*v.overflow_wrong_from);
    else
      where = "x ≤ " + num(*v.overflow_wrong_to);
    overflow = std::to_string(v.overflow_wrong) + " inputs with " + where +
               " are wrong: an intermediate overflows in " + std::string(in.compute.name());
    v.overflow_text = overflow;
  }
  if (!any) {
    v.text = "identical to " + ref + " in " + fmt + " on " + (whole ? "all " : "") + of_n;
    if (!overflow.empty()) v.text += " but " + overflow;
    return v;
  }
  v.differ_lo = in.x[first];
  v.differ_hi = in.x[last];
  if (last + 1 < e) v.identical_from = in.x[last + 1];
  if (first > b) v.identical_to = in.x[first - 1];
  std::string text;
  if (v.identical_from || v.identical_to) {
    text = "identical to " + ref + " in " + fmt + " for ";
    if (v.identical_from) text += "x ≥ " + num(*v.identical_from);
    if (v.identical_from && v.identical_to) text += " and ";
    if (v.identical_to) text += "x ≤ " + num(*v.identical_to);
    text += "; ";
  }
  const bool counts = in.format.enumerable();
  text += "up to " + (counts ? format_f64(v.max_ulp) + " ULP" : num(v.max_ulp) + " ULP") + " on [" +
          num(v.differ_lo) + ", " + num(v.differ_hi) + "] (max at x = " + num(v.x_at_max) + "); ";
  const double pct = 100.0 * static_cast<double>(v.mismatch) / static_cast<double>(v.n);
  text += g3(pct) + "% of " + of_n + " differ";
  if (!overflow.empty()) text += "; besides, " + overflow;
  v.text = text;
  return v;
}

Verdict verdict(const Sweep& s, std::string_view reference_name, double lo, double hi) {
  const std::vector<std::uint8_t> d = differing(s);
  VerdictInput in;
  in.x = s.errors.x;
  in.ulp = s.errors.ulp;
  in.differs = d;
  in.overflowed = s.overflowed;
  in.format = s.errors.format;
  in.compute = s.compute;
  in.reference = verdict_reference(s, reference_name);
  return verdict(in, lo, hi);
}

std::string semantics(std::string_view id, const Format& storage, const Format& compute) {
  const std::string st(storage.name()), name(id);
  if (const std::optional<zoo::Entry> e = zoo::find(id))
    return "zoo entry " + name + " as shipped, computed in " +
           (e->uses_compute ? std::string(compute.name()) : std::string("its own arithmetic")) +
           ", rounded to " + st;
  if (!find_activation(id)) return {};
  if (storage.id() == FormatId::F64) return "registry function " + name + ", in double";
  if (storage.id() == FormatId::F32) return "registry function " + name + ", its float path";
  return "registry function " + name + ", correctly rounded to " + st;
}

std::string stored_semantics(std::string_view id, std::string_view compute, std::string_view store,
                             bool rounded_to_compute) {
  const std::string name(id), c(compute), st(store);
  if (const std::optional<zoo::Entry> e = zoo::find(id))
    return "zoo entry " + name + " as shipped, computed in " + (e->uses_compute ? c : "its own arithmetic") +
           ", stored in " + st;
  if (!find_activation(id)) return {};
  return "registry function " + name + (rounded_to_compute ? ", correctly rounded to " + c : ", in double") +
         ", stored in " + st;
}

Int8View int8_view(const zoo::Entry& e, const Quantization& q, const Format& compute) {
  const Format f(FormatId::Int8, q);
  Int8View v;
  v.q = q;
  const analysis::Properties& p = analysis::default_properties(*find_activation("gelu"));
  v.lobe_min_x = p.global_minimum ? p.global_minimum->x : 0.0;
  v.lobe_min = p.global_minimum ? p.global_minimum->value : 0.0;
  v.lobe_codes = static_cast<int>(f.ordinal(0.0) - f.ordinal(v.lobe_min));
  const Sweep s = sweep_at(e, analysis::spec(*find_activation("gelu")), f.enumerate(), f, compute, 0);
  const analysis::ErrorReport& r = s.errors;
  std::set<std::int64_t> codes;
  std::vector<double> lobe_err, lobe_x;
  for (std::size_t i = 0; i < r.x.size(); ++i) {
    if (r.value[i] < 0) codes.insert(f.ordinal(r.value[i]));
    if (r.x[i] < 0) {
      if (r.value[i] != 0) ++v.lobe_inputs_nonzero;
      lobe_err.push_back(r.abs[i]);
      lobe_x.push_back(r.x[i]);
    }
  }
  v.lobe_codes_reached = static_cast<int>(codes.size());
  v.abs = r.abs_stats;
  v.ulp = r.ulp_stats;
  // The negative inputs' abs errors, summarized as analysis does.
  analysis::ErrorReport lobe;
  lobe.format = f;
  lobe.x = lobe_x;
  for (std::size_t i = 0; i < r.x.size(); ++i)
    if (r.x[i] < 0) {
      lobe.value.push_back(r.value[i]);
      lobe.ref_value.push_back(r.ref_value[i]);
    }
  analysis::score(lobe);
  v.lobe_abs = lobe.abs_stats;
  return v;
}

// [SECTION] Summary tables

SummaryRow summary_row(const analysis::ErrorReport& r, std::string fn, std::string vs, std::string compute,
                       int order, std::optional<Cost> cost) {
  SummaryRow row;
  row.fn = std::move(fn);
  row.vs = std::move(vs);
  row.format = std::string(r.format.name());
  row.compute = std::move(compute);
  row.order = order;
  row.abs = r.abs_stats;
  row.rel = r.rel_stats;
  row.ulp = r.ulp_stats;
  row.cost = cost;
  return row;
}

SummaryRow summary_row(const Sweep& s, const zoo::Entry& e, std::string vs) {
  return summary_row(s.errors, e.id, std::move(vs), e.uses_compute ? std::string(s.compute.name()) : "",
                     s.order, e.origin == zoo::Origin::Registry ? std::nullopt : std::optional<Cost>(e.cost));
}

namespace {

double pct(const SummaryRow& r) {
  return r.ulp.n ? 100.0 * static_cast<double>(r.ulp.mismatch) / static_cast<double>(r.ulp.n) : 0.0;
}

const char* kColumns[] = {"fn",       "vs",           "format",       "compute",  "order",    "n",
                          "mismatch", "mismatch_pct", "max_abs",      "mean_abs", "max_rel",  "mean_rel",
                          "max_ulp",  "mean_ulp",     "x_at_max_ulp", "cost",     "cost_text"};

std::vector<std::string> cells(const SummaryRow& r, bool exact) {
  const auto n = [exact](double v) { return exact ? format_f64(v) : g3(v); };
  return {r.fn,
          r.vs,
          r.format,
          r.compute,
          std::to_string(r.order),
          std::to_string(r.ulp.n),
          std::to_string(r.ulp.mismatch),
          n(pct(r)),
          n(r.abs.max),
          n(r.abs.mean),
          n(r.rel.max),
          n(r.rel.mean),
          std::isfinite(r.ulp.max) && r.ulp.max >= 0 && r.ulp.max < 1.8e19
              ? std::to_string(static_cast<unsigned long long>(r.ulp.max))  // a count of ULPs: an integer
              : n(r.ulp.max),
          n(r.ulp.mean),
          n(r.ulp.x_at_max),
          r.cost ? n(r.cost->weighted()) : "",
          r.cost ? r.cost->text() : ""};
}

/// Whether column i shows one of `metrics` (or is not a metric's column); an empty list keeps every column.
bool shown(std::size_t i, std::span<const analysis::ErrorMetric> metrics) {
  if (metrics.empty() || i < 8 || i > 14) return true;
  const analysis::ErrorMetric m = i < 10   ? analysis::ErrorMetric::Abs
                                  : i < 12 ? analysis::ErrorMetric::Rel
                                           : analysis::ErrorMetric::Ulp;
  return std::find(metrics.begin(), metrics.end(), m) != metrics.end();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string summary_csv(std::span<const SummaryRow> rows, std::span<const analysis::ErrorMetric> metrics) {
  std::string out;
  for (std::size_t i = 0; i < std::size(kColumns); ++i) {
    if (!shown(i, metrics)) continue;
    if (!out.empty()) out += ',';
    out += kColumns[i];
  }
  out += '\n';
  for (const SummaryRow& r : rows) {
    const std::vector<std::string> c = cells(r, true);
    bool first = true;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!shown(i, metrics)) continue;
      if (!first) out += ',';
      first = false;
      out += csv_field(c[i]);
    }
    out += '\n';
  }
  return out;
}

std::string summary_markdown(std::span<const SummaryRow> rows,
                             std::span<const analysis::ErrorMetric> metrics) {
  std::string out = "|";
  for (std::size_t i = 0; i < std::size(kColumns); ++i) {
    if (!shown(i, metrics)) continue;
    out += ' ';
    out += kColumns[i];
    out += " |";
  }
  out += "\n|";
  for (std::size_t i = 0; i < std::size(kColumns); ++i)
    if (shown(i, metrics)) out += i < 4 || i == 16 ? "---|" : "--:|";
  out += '\n';
  for (const SummaryRow& r : rows) {
    out += "|";
    const std::vector<std::string> all = cells(r, false);
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!shown(i, metrics)) continue;
      const std::string& c = all[i];
      out += ' ';
      for (char ch : c) {
        if (ch == '|') out += '\\';
        out += ch;
      }
      out += " |";
    }
    out += '\n';
  }
  return out;
}

std::string summary_text(std::span<const SummaryRow> rows, std::span<const analysis::ErrorMetric> metrics) {
  std::vector<std::size_t> columns;
  for (std::size_t i : {0u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 15u})
    if (shown(i, metrics)) columns.push_back(i);
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> head;
  for (std::size_t i : columns) head.push_back(kColumns[i]);
  table.push_back(head);
  for (const SummaryRow& r : rows) {
    const std::vector<std::string> c = cells(r, false);
    std::vector<std::string> line;
    for (std::size_t i : columns) line.push_back(c[i].empty() ? "-" : c[i]);
    table.push_back(line);
  }
  std::vector<std::size_t> width(columns.size(), 0);
  for (const auto& line : table)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::string out;
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      out += line[i];
      if (i + 1 < line.size()) out += std::string(width[i] - line[i].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

// [SECTION] Pair checks

namespace {

/// The reference's double rounded to the format, the tie rule included (zoo::rounded_result).
double round_reference(const zoo::Entry& ref, const Format& fmt, int order, const Format&, double x,
                       double d) {
  return zoo::rounded_result(ref, fmt, x, d, order);
}

double round_reference(const zoo::Entry& ref, const Format& fmt, int order, const Format& compute, double x) {
  return round_reference(ref, fmt, order, compute, x, ref.eval(x, order, compute));
}

}  // namespace

PairCheck::PairCheck(zoo::Entry reference, const Format& fmt, int order, const Format& compute)
    : ref_(std::move(reference)), fmt_(fmt), order_(order), compute_(compute) {
  if (order != 0 && order != 1) throw std::invalid_argument("check: order must be 0 or 1");
  if (order == 1 && !ref_.has_d1()) throw std::invalid_argument(ref_.id + " has no derivative");
  if (fmt_.enumerable()) {
    cache_.assign(std::size_t{1} << fmt_.row().bits, 0.0);
    cached_.assign(cache_.size(), 0);
    if (ref_.batch) {
      // A whole-array reference (a live peer) is asked once for every value rather than once per pair.
      const std::vector<double> x = fmt_.enumerate();
      std::vector<double> y(x.size());
      ref_.eval(x, y, order_, compute_);
      for (std::size_t i = 0; i < x.size(); ++i) {
        const auto k = static_cast<std::size_t>(fmt_.encode(x[i]));
        cache_[k] = round_reference(ref_, fmt_, order_, compute_, x[i], y[i]);
        cached_[k] = 1;
      }
    }
  }
}

double PairCheck::expected(double x) {
  if (cache_.empty()) return round_reference(ref_, fmt_, order_, compute_, x);
  const auto k = static_cast<std::size_t>(fmt_.encode(x));
  if (!cached_[k]) {
    cache_[k] = round_reference(ref_, fmt_, order_, compute_, x);
    cached_[k] = 1;
  }
  return cache_[k];
}

std::uint64_t PairCheck::add(std::size_t row, double x, double y, double want) {
  const std::uint64_t u = fmt_.ulp_distance(y, want);
  ++n_;
  if (u) ++mismatch_;
  if (n_ == 1 || u > max_ulp_) {
    max_ulp_ = u;
    x_at_max_ = x;
  }
  sum_ += static_cast<long double>(u);
  ++buckets_[u == 0 ? 0 : 1 + static_cast<std::size_t>(std::bit_width(u - 1))];
  if (u && (worst_.size() < 10 || u > worst_.back().ulp)) {
    const PairCheckResult::Worst w{row, x, y, want, u};
    const auto at = std::upper_bound(worst_.begin(), worst_.end(), w,
                                     [](const auto& a, const auto& b) { return a.ulp > b.ulp; });
    worst_.insert(at, w);
    if (worst_.size() > 10) worst_.pop_back();
  }
  return u;
}

PairCheckResult PairCheck::result() const {
  PairCheckResult r;
  r.n = n_;
  r.mismatch = mismatch_;
  r.max_ulp = max_ulp_;
  r.x_at_max = x_at_max_;
  r.mean_ulp = n_ ? static_cast<double>(sum_ / static_cast<long double>(n_)) : 0.0;
  const std::size_t top = max_ulp_ == 0 ? 0 : 1 + static_cast<std::size_t>(std::bit_width(max_ulp_ - 1));
  for (std::size_t b = 0; b <= top && n_; ++b) {
    std::uint64_t lo = 0, hi = 0;
    if (b == 1) lo = hi = 1;
    if (b >= 2) {
      lo = (std::uint64_t{1} << (b - 2)) + 1;
      hi = b - 1 >= 64 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{1} << (b - 1);
    }
    r.histogram.push_back({lo, hi, buckets_[b]});
  }
  r.worst = worst_;
  return r;
}

}  // namespace gelu::precision
