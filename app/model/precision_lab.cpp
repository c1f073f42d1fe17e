// The Precision panel's model and worker thread (see precision_lab.hpp).
//
// Index of this file:
//   [SECTION] Formats and the yardstick
//   [SECTION] Cells
//   [SECTION] Export
//   [SECTION] Worker
#include "model/precision_lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "gelu/activation.hpp"
#include "gelu/block_format.hpp"
#include "gelu/fileio.hpp"
#include "gelu/numio.hpp"
#include "gelu/stochastic.hpp"
#include "model/comparison.hpp"

namespace gelu::app {

namespace {

const analysis::FunctionSpec& gelu_reference() {
  static const analysis::FunctionSpec s = analysis::spec(*find_activation("gelu"));
  return s;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::uint64_t stamp_of(const zoo::Entry& e) {
  return e.origin == zoo::Origin::User ? comparison_generation() : 0;
}

}  // namespace

// [SECTION] Formats and the yardstick

const std::vector<std::string>& precision_storage_formats() {
  static const std::vector<std::string> f = {"bf16", "f16", "e4m3", "e5m2"};
  return f;
}

const std::vector<std::string>& precision_compute_formats() {
  static const std::vector<std::string> f = {"auto", "f64", "f32", "bf16", "f16"};
  return f;
}

Format compute_for(const std::string& compute, const Format& storage) {
  if (compute == "auto") return precision::default_compute(storage);
  const std::optional<Format> f = Format::parse(compute);
  return f ? *f : precision::default_compute(storage);
}

ZooPoint zoo_point(const zoo::Entry& e, double lo, double hi, std::size_t samples) {
  ZooPoint p;
  p.id = e.id;
  p.name = e.name;
  p.cost = e.cost.weighted();
  p.cost_text = e.cost.text();
  p.user = e.origin == zoo::Origin::User;
  precision::SweepSpec spec;
  spec.storage = spec.compute = Format(FormatId::F64);
  spec.lo = lo;
  spec.hi = hi;
  spec.samples = samples;
  const precision::Sweep s = precision::sweep(e, gelu_reference(), spec);
  p.max_abs_error = s.errors.abs_stats.max;
  p.x_at_max = s.errors.abs_stats.x_at_max;
  return p;
}

namespace {
struct ZooCache {
  std::mutex mu;
  std::uint64_t stamp = ~std::uint64_t{0};    // the generation `points` is complete for
  std::uint64_t filling = ~std::uint64_t{0};  // the generation `points` is being filled for
  std::size_t next = 0;                       // the next zoo entry to compute for `filling`
  std::vector<ZooPoint> points;
};
ZooCache& zoo_cache() {
  static ZooCache c;
  return c;
}
}  // namespace

bool fill_zoo_points(const std::function<bool()>& pause) {
  ZooCache& c = zoo_cache();
  std::lock_guard lk(c.mu);
  const std::uint64_t stamp = comparison_generation();
  if (c.stamp == stamp) return true;
  if (c.filling != stamp) {
    c.points.clear();
    c.next = 0;
    c.filling = stamp;
  }
  const std::vector<zoo::Entry>& entries = zoo::entries();
  for (bool worked = false; c.next < entries.size(); ++c.next, worked = true) {
    if (worked && pause && pause()) return false;
    try {
      c.points.push_back(zoo_point(entries[c.next]));
    } catch (const std::exception&) {
      // An entry that cannot be evaluated on the range is left off the plots.
    }
  }
  c.stamp = stamp;
  return true;
}

std::vector<ZooPoint> zoo_points() {
  fill_zoo_points({});
  ZooCache& c = zoo_cache();
  std::lock_guard lk(c.mu);
  return c.points;
}

bool zoo_points_fresh() {
  ZooCache& c = zoo_cache();
  std::lock_guard lk(c.mu);
  return c.stamp == comparison_generation();
}

// [SECTION] Cells

/// A cell whose sweep paused (PrecisionLab::compute, without threads): its key, its job and the time so far.
struct PrecisionLab::PartialCell {
  Key key;
  precision::SweepJob job;
  double sweep_ms = 0;
};

namespace {

/// A cell's sweep, set up (precision::sweep_job) and computed a few chunks at a time.
precision::SweepJob cell_job(const zoo::Entry& e, const Format& storage, const Format& compute, int order) {
  precision::SweepSpec spec;
  spec.storage = storage;
  spec.compute = compute;
  spec.order = order;
  return precision::sweep_job(e, gelu_reference(), spec);
}

/// The cell from its finished sweep (`s` null: `error` says why there is none).
std::shared_ptr<const PrecisionCell> make_cell(const zoo::Entry& e, const Format& storage,
                                               const Format& compute, int order, const precision::Sweep* s,
                                               double sweep_ms, const std::string& error) {
  auto c = std::make_shared<PrecisionCell>();
  c->entry = e.id;
  c->name = e.name;
  c->format = std::string(storage.name());
  c->compute = e.uses_compute ? std::string(compute.name()) : std::string();
  c->order = order;
  c->sweep_ms = sweep_ms;
  c->error = error;
  if (!s) return c;
  try {
    const analysis::ErrorReport& r = s->errors;
    c->x = r.x;
    c->ulp = r.ulp;
    for (std::size_t i = 0; i < s->overflowed.size(); ++i)
      if (s->overflowed[i]) c->overflow_x.push_back(r.x[i]);
    c->n = r.ulp_stats.n;
    c->mismatch = r.ulp_stats.mismatch;
    c->max_ulp = r.ulp_stats.max;
    c->x_at_max = r.ulp_stats.x_at_max;
    c->mean_ulp = r.ulp_stats.mean;
    c->differs = precision::differing(*s);
    c->overflowed = s->overflowed;
    c->storage = storage;
    c->compute_format = compute;
    c->reference = precision::verdict_reference(*s);
    c->verdict = cell_verdict(*c, -INFINITY, INFINITY).text;
    c->row = precision::summary_row(*s, e, "gelu");
    c->tails = precision::tails(e, storage, compute, order);
  } catch (const std::exception& ex) {
    c->error = ex.what();
  }
  return c;
}

std::shared_ptr<const Int8Cell> make_int8(const zoo::Entry& e, double scale, const std::string& compute) {
  auto c = std::make_shared<Int8Cell>();
  c->entry = e.id;
  c->name = e.name;
  try {
    const Quantization q{scale, 0};
    const Format f(FormatId::Int8, q);
    const Format cf = compute_for(compute, f);
    c->view = precision::int8_view(e, q, cf);
    const precision::Sweep s = precision::sweep_at(e, gelu_reference(), f.enumerate(), f, cf, 0);
    c->x = s.errors.x;
    c->value = s.errors.value;
    c->ref.reserve(c->x.size());
    const analysis::FunctionSpec& ref = s.errors.reference;
    for (std::size_t i = 0; i < c->x.size(); ++i)
      c->ref.push_back(ref.fn ? correctly_rounded(*ref.fn, f, c->x[i], s.errors.ref_value[i], ref.order)
                              : f.round(s.errors.ref_value[i]));
  } catch (const std::exception& ex) {
    c->error = ex.what();
  }
  return c;
}

}  // namespace

precision::Verdict cell_verdict(const PrecisionCell& c, double lo, double hi) {
  precision::VerdictInput in;
  in.x = c.x;
  in.ulp = c.ulp;
  in.differs = c.differs;
  in.overflowed = c.overflowed;
  in.format = c.storage;
  in.compute = c.compute_format;
  in.reference = c.reference;
  return precision::verdict(in, lo, hi);
}

const PrecisionCell* PrecisionSnapshot::cell(const std::string& entry, const std::string& format) const {
  for (const auto& c : cells)
    if (c->entry == entry && c->format == format) return c.get();
  return nullptr;
}

// [SECTION] Export

std::vector<precision::SummaryRow> summary_rows(const PrecisionSnapshot& s) {
  std::vector<precision::SummaryRow> rows;
  for (const auto& c : s.cells)
    if (c->error.empty()) rows.push_back(c->row);
  return rows;
}

std::string export_summary(const PrecisionSnapshot& s, const std::string& base) {
  namespace fs = std::filesystem;
  if (base.empty()) return "give a file name first";
  const std::vector<precision::SummaryRow> rows = summary_rows(s);
  if (rows.empty()) return "nothing to export yet";
  const std::string csv = fs::absolute(base + ".csv").string(), md = fs::absolute(base + ".md").string();
  for (const std::string& p : {csv, md})
    if (const auto why = why_not_writable(p)) return "cannot write " + quote(p, 200) + ": " + *why;
  try {
    write_file_atomic(csv, precision::summary_csv(rows));
    write_file_atomic(md, precision::summary_markdown(rows));
  } catch (const FileError& e) {
    return e.what();
  }
  return "wrote " + csv + " and " + fs::path(md).filename().string();
}

// [SECTION] Worker

PrecisionLab::~PrecisionLab() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
    ++request_;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PrecisionLab::start(const PrecisionConfig& c) {
  {
    std::lock_guard lk(mu_);
    pending_ = c;
    shared_.running = true;
    ++shared_.version;
    busy_ = true;
    ++request_;  // under the lock: the worker reads it when it takes the config
#ifndef GELU_NO_THREADS
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
#endif
  }
  cv_.notify_all();
}

void PrecisionLab::run_now(const PrecisionConfig& c) {
  {
    std::lock_guard lk(mu_);
    pending_.reset();
    ++request_;  // a sweep under way on the worker gives up
  }
  while (busy_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  busy_ = true;
  compute(c, [] { return false; });
  busy_ = false;
}

bool PrecisionLab::take(PrecisionSnapshot& out) {
#ifdef GELU_NO_THREADS
  loop_once(false);  // without threads, the sweep runs here, on the frame that asks for its result
#endif
  std::lock_guard lk(mu_);
  if (shared_.version == out.version) return false;
  out = shared_;
  return true;
}

void PrecisionLab::publish(const std::function<void(PrecisionSnapshot&)>& change) {
  std::lock_guard lk(mu_);
  change(shared_);
  ++shared_.version;
}

void PrecisionLab::loop() {
  while (loop_once(true)) {
  }
}

bool PrecisionLab::loop_once(bool wait) {
  PrecisionConfig c;
  std::uint64_t my = 0;
  {
    std::unique_lock lk(mu_);
    const auto ready = [&] { return stop_ || pending_.has_value(); };
    if (wait)
      cv_.wait(lk, ready);
    else if (!ready())
      return true;
    if (stop_) return false;
    c = *pending_;
#ifndef GELU_NO_THREADS
    pending_.reset();
#endif
    my = request_.load();
  }
#ifdef GELU_NO_THREADS
  // Without threads the sweep runs on the frames that ask for its result, about kSliceMs of each: compute()
  // stops when the slice is used up, between two pieces or between two chunks of a cell's sweep, and the
  // next frame's call finds the cells done so far in the cache and the paused cell's job and goes on from
  // there. The config stays pending until the sweep is whole.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSliceMs);
  const bool whole = compute(
      c, [&] { return request_.load() != my; }, [&] { return std::chrono::steady_clock::now() > until; });
  std::lock_guard lk(mu_);
  if (whole && request_.load() == my) pending_.reset();
#else
  compute(c, [&] { return request_.load() != my; });
  std::lock_guard lk(mu_);
#endif
  if (!pending_) busy_ = false;
  return true;
}

bool PrecisionLab::compute(const PrecisionConfig& c, const std::function<bool()>& stale,
                           const std::function<bool()>& pause) {
  // `pause` ends the call between two pieces of work, once at least one was computed here (the rest is left
  // to the next call, which finds this one's in the cache).
  bool worked = false;
  const auto paused = [&] { return worked && pause && pause(); };
  std::vector<ZooEntryInfo> catalog;
  for (const zoo::Entry& e : zoo::entries())
    catalog.push_back(
        {e.id, e.name, e.formula, e.used_in, e.cost.text(), e.has_d1(), e.origin == zoo::Origin::User});
  publish([&](PrecisionSnapshot& s) {
    s.catalog = std::move(catalog);
    s.constants = zoo::fitted_constants();
  });
  std::vector<zoo::Entry> entries;
  std::vector<std::string> missing;
  for (const std::string& id : c.entries) {
    if (std::optional<zoo::Entry> e = zoo::find(id))
      entries.push_back(std::move(*e));
    else
      missing.push_back(id);
  }
  std::vector<Format> formats;
  for (const std::string& name : c.formats)
    if (const std::optional<Format> f = Format::parse(name)) formats.push_back(*f);
  const int int8_cells = c.order == 0 ? static_cast<int>(entries.size()) : 0;
  const bool zoo_fresh = zoo_points_fresh();
  const int total = static_cast<int>(entries.size() * formats.size()) + int8_cells + (zoo_fresh ? 0 : 1);
  publish([&](PrecisionSnapshot& s) {
    s.cfg = c;
    s.cells.clear();
    s.int8.clear();
    s.exact_tails.clear();
    s.missing = missing;
    s.done = 0;
    s.total = total;
    s.running = true;
  });
  for (const Format& storage : formats) {
    const Key key{"gelu", std::string(storage.name()), "", c.order, 0};
    std::optional<precision::Tails> t;
    {
      std::lock_guard lk(cache_mu_);
      if (const auto it = exact_.find(key); it != exact_.end()) t = it->second;
    }
    if (!t) {
      if (paused()) return false;
      t = precision::tails(zoo::from_registry(*find_activation("gelu")), storage, storage, c.order);
      worked = true;
      std::lock_guard lk(cache_mu_);
      exact_[key] = *t;
    }
    publish([&](PrecisionSnapshot& s) { s.exact_tails.emplace_back(std::string(storage.name()), *t); });
  }
  for (const zoo::Entry& e : entries)
    for (const Format& storage : formats) {
      if (stale()) return false;
      const Format compute = compute_for(c.compute, storage);
      const Key key{e.id, std::string(storage.name()), std::string(compute.name()), c.order, stamp_of(e)};
      std::shared_ptr<const PrecisionCell> cell;
      {
        std::lock_guard lk(cache_mu_);
        if (const auto it = cells_.find(key); it != cells_.end()) cell = it->second;
      }
      if (!cell) {
        publish([&](PrecisionSnapshot& s) { s.current = e.id + " in " + std::string(storage.name()); });
        if (paused()) return false;
        // The sweep a few chunks at a time: a pause inside it keeps the job for the next call (without
        // threads the browser's frames go on between them); the job is this call's while it works.
        std::shared_ptr<PartialCell> part;
        {
          std::lock_guard lk(cache_mu_);
          if (partial_ && partial_->key == key) part = std::move(partial_);
        }
        std::string error;
        if (!part) {
          try {
            part = std::make_shared<PartialCell>(PartialCell{key, cell_job(e, storage, compute, c.order), 0});
          } catch (const std::exception& ex) {
            error = ex.what();
          }
        }
        bool done = true;
        if (part) {
          const auto t0 = std::chrono::steady_clock::now();
          try {
            done = precision::sweep_some(part->job, [&](double) { return !stale() && !(pause && pause()); });
          } catch (const std::exception& ex) {
            error = ex.what();
          }
          part->sweep_ms += ms_since(t0);
        }
        if (!done) {
          std::lock_guard lk(cache_mu_);
          partial_ = std::move(part);  // the same key goes on from here next time
          return false;
        }
        cell = make_cell(e, storage, compute, c.order, part && error.empty() ? &part->job.sweep : nullptr,
                         part ? part->sweep_ms : 0, error);
        worked = true;
        std::lock_guard lk(cache_mu_);
        cells_[key] = cell;
      }
      publish([&](PrecisionSnapshot& s) {
        s.cells.push_back(cell);
        ++s.done;
      });
    }
  for (int i = 0; i < int8_cells; ++i) {
    if (stale()) return false;
    const zoo::Entry& e = entries[static_cast<std::size_t>(i)];
    char scale[40];
    std::snprintf(scale, sizeof scale, "int8:%.17g", c.int8_scale);
    const Key key{e.id, scale, c.compute, 0, stamp_of(e)};
    std::shared_ptr<const Int8Cell> cell;
    {
      std::lock_guard lk(cache_mu_);
      if (const auto it = int8_.find(key); it != int8_.end()) cell = it->second;
    }
    if (!cell) {
      if (paused()) return false;
      cell = make_int8(e, c.int8_scale, c.compute);
      worked = true;
      std::lock_guard lk(cache_mu_);
      int8_[key] = cell;
    }
    publish([&](PrecisionSnapshot& s) {
      s.int8.push_back(cell);
      ++s.done;
    });
  }
  if (!zoo_fresh) {
    publish([&](PrecisionSnapshot& s) { s.current = "the whole zoo's error in f64"; });
    if (paused()) return false;
    // One entry at least, then as many as the pause allows (the browser: slices of a frame).
    if (!fill_zoo_points(pause)) return false;
  }
  std::vector<ZooPoint> zoo = zoo_points();
  publish([&](PrecisionSnapshot& s) {
    s.zoo = std::move(zoo);
    s.done = s.total;
    s.current.clear();
    s.running = false;
  });
  return true;
}

// The block view and the distribution view.

const std::vector<std::string>& precision_block_formats() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const BlockFormatRow& r : block_formats()) v.emplace_back(r.name);
    return v;
  }();
  return names;
}

BlockView block_view(const std::string& format, double block_max, std::size_t samples) {
  const std::optional<BlockFormat> f = BlockFormat::parse(format);
  if (!f)
    throw std::invalid_argument("block view: " + format + " is not a block format (" + block_format_names() +
                                ")");
  if (!(block_max > 0) || !std::isfinite(block_max))
    throw std::invalid_argument("block view: the block max must be a positive number");
  samples = std::max<std::size_t>(samples, 2);
  BlockView v;
  v.format = format;
  v.block_max = block_max;
  const BlockScale s = f->scale_for_max(block_max);
  v.scale = s.value;
  if (std::isfinite(s.value))
    for (const double q : f->lattice(s))
      if (q >= -1.2 && q <= 0.2) v.lattice.push_back(q);
  constexpr double lo = -4, hi = 0;
  for (const char* id : {"gelu", "silu"}) {
    const Activation* a = find_activation(id);
    BlockCurve c;
    c.fn = id;
    auto stored = [&](double x) { return f->quantize(a->eval(x), s); };
    for (std::size_t i = 0; i < samples; ++i) {
      const double x = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(samples - 1);
      const double y = a->eval(x);
      c.x.push_back(x);
      c.exact.push_back(y);
      c.stored.push_back(stored(x));
      if (c.stored.back() != 0) ++c.nonzero;
      if (y < c.lobe_min) c.lobe_min = y, c.lobe_min_x = x;
    }
    // The minimum refined by a ternary search between the best sample's neighbours (the lobe is unimodal).
    double a0 = std::max(lo, c.lobe_min_x - 0.01), b0 = std::min(hi, c.lobe_min_x + 0.01);
    for (int k = 0; k < 100; ++k) {
      const double m1 = a0 + (b0 - a0) / 3, m2 = b0 - (b0 - a0) / 3;
      if (a->eval(m1) < a->eval(m2))
        b0 = m2;
      else
        a0 = m1;
    }
    c.lobe_min_x = (a0 + b0) / 2;
    c.lobe_min = a->eval(c.lobe_min_x);
    // flush_x: the first sample stored non-zero coming from −4, then bisected against the last zero one
    // (|f| grows monotonically from −4 to the minimum, and the stored magnitude with it).
    std::size_t first = 0;
    while (first < samples && c.stored[first] == 0 && c.x[first] <= c.lobe_min_x) ++first;
    if (first == 0) {
      c.flush_x = lo;
    } else if (first == samples || c.x[first] > c.lobe_min_x || c.stored[first] == 0) {
      c.flush_x = hi;
    } else {
      double z = c.x[first - 1], nz = c.x[first];
      while (nz - z > 1e-9) {
        const double m = (z + nz) / 2;
        (stored(m) == 0 ? z : nz) = m;
      }
      c.flush_x = nz;
    }
    c.flush_block_max = f->flush_threshold(c.lobe_min);
    v.curves.push_back(std::move(c));
  }
  return v;
}

double block_max_flushing_at(const std::string& format, double x, double lo, double hi) {
  const std::optional<BlockFormat> f = BlockFormat::parse(format);
  if (!f || !(x < 0)) return NAN;
  const double t = f->flush_threshold(find_activation("gelu")->eval(x));
  return std::isnan(t) ? NAN : std::clamp(t, lo, hi);
}

SurvivalView survival_view(std::size_t blocks, std::uint64_t seed) {
  SurvivalView v;
  v.blocks = blocks;
  v.seed = seed;
  const Activation* gelu = find_activation("gelu");
  const Activation* silu = find_activation("silu");
  for (const std::string& name : precision_block_formats()) {
    const BlockFormat f = *BlockFormat::parse(name);
    const std::vector<double> x =
        stochastic::sample_normal(0, 1, blocks * static_cast<std::size_t>(f.block_size()), seed);
    SurvivalRow r;
    r.format = name;
    for (const Activation* a : {gelu, silu}) {
      std::vector<double> y(x.size());
      a->eval(std::span<const double>(x), std::span<double>(y));
      const BlockErrorReport e = block_error(f, x, y, y);
      (a == gelu ? r.gelu : r.silu) = e.negative ? 1 - e.flushed_share() : 0;
      (a == gelu ? r.negative_gelu : r.negative_silu) = e.negative;
    }
    v.rows.push_back(std::move(r));
  }
  return v;
}

const std::vector<std::string>& precision_chain_formats(int part) {
  static const std::vector<std::string> number = [] {
    std::vector<std::string> v;
    for (const NumberFormat& f : number_formats())
      if (f.id != FormatId::Int8 && !f.unsigned_only) v.emplace_back(f.name);
    return v;
  }();
  static const std::vector<std::string> store = [] {
    std::vector<std::string> v = number;
    for (const BlockFormatRow& r : block_formats()) v.emplace_back(r.name);
    return v;
  }();
  return part == 2 ? store : number;
}

std::optional<Chain> parse_panel_chain(const std::string& text, std::string* why) {
  std::optional<Chain> c = Chain::parse(text, why);
  if (!c) return c;
  const std::string parts[3] = {std::string(c->accumulator.name()), std::string(c->compute.name()),
                                std::string(c->store.name())};
  for (int k = 0; k < 3; ++k) {
    const std::vector<std::string>& ok = precision_chain_formats(k);
    if (std::find(ok.begin(), ok.end(), parts[k]) == ok.end()) {
      if (why) *why = "its format " + parts[k] + " is not one the panel offers";
      return std::nullopt;
    }
  }
  return c;
}

ChainView chain_view(const std::string& a, const std::string& b, int order, std::size_t blocks,
                     std::uint64_t seed) {
  ChainView v;
  v.chains = {a, b};
  v.order = order;
  v.blocks = blocks;
  v.seed = seed;
  std::vector<Chain> chains;
  for (const std::string& t : v.chains) {
    std::string why;
    const std::optional<Chain> c = parse_panel_chain(t, &why);
    if (!c) {
      v.error = "chain '" + t + "' " + why;
      return v;
    }
    chains.push_back(*c);
  }
  const Activation& gelu = *find_activation("gelu");
  v.x = stochastic::sample_normal(0, 1, blocks * 32, seed);
  std::vector<double> exact(v.x.size());
  gelu.eval(std::span<const double>(v.x), std::span<double>(exact), order);
  v.cmp = compare_chains(zoo::from_registry(gelu), chains, v.x, exact, order);
  return v;
}

}  // namespace gelu::app
