// The Designer panel's model and worker thread (see designer_lab.hpp).
//
// Index of this file:
//   [SECTION] Worker
//   [SECTION] Candidates as zoo entries
//   [SECTION] Candidates in sessions
//   [SECTION] Export
//   [SECTION] One-coefficient fits
#include "model/designer_lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "gelu/analysis.hpp"
#include "gelu/fileio.hpp"
#include "gelu/fit_export.hpp"
#include "gelu/format.hpp"
#include "gelu/numio.hpp"
#include "model/comparison.hpp"
#include "model/panel_states.hpp"
#ifdef GELU_HAVE_FIT_CR
#include "gelu/fit_cr.hpp"
#endif
#ifdef GELU_HAVE_SOLLYA
#include "gelu/fit_sollya.hpp"
#endif

namespace gelu::app {

bool designer_can_certify() {
#ifdef GELU_HAVE_SOLLYA
  return true;
#else
  return false;
#endif
}

// [SECTION] Worker

DesignerLab::~DesignerLab() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
    ++request_;
    ++cr_request_;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool designer_can_round_correctly() {
#ifdef GELU_HAVE_FIT_CR
  return true;
#else
  return false;
#endif
}

void DesignerLab::request_cr(const fit::CrSpec& s) {
#ifdef GELU_HAVE_FIT_CR
  {
    std::lock_guard lk(mu_);
    cr_pending_ = std::make_shared<const fit::CrSpec>(s);
    ++cr_request_;
    busy_ = true;
    shared_.cr_running = true;
    shared_.cr_progress = 0;
    ++shared_.version;
#ifndef GELU_NO_THREADS
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
#endif
  }
  cv_.notify_all();
#else
  (void)s;
  publish([](DesignerSnapshot& d) {
    d.cr_error = "this build has no GLPK and MPFR (apt install libglpk-dev libmpfr-dev, then reconfigure)";
  });
#endif
}

void DesignerLab::cr_now(const fit::CrSpec& s) {
  const std::uint64_t my = ++cr_request_;
  do_cr(s, my);
}

void DesignerLab::do_cr(const fit::CrSpec& s, std::uint64_t my) {
#ifdef GELU_HAVE_FIT_CR
  fit::CrOptions o;
  o.progress = [&](double f, std::string_view stage, std::size_t failing) {
    if (cr_request_.load() != my) return false;
    publish([&](DesignerSnapshot& d) {
      d.cr_progress = f;
      d.cr_stage = std::string(stage);
      d.cr_failing = failing;
    });
    return true;
  };
  std::shared_ptr<const fit::CrResult> r;
  std::string error;
  try {
    r = std::make_shared<const fit::CrResult>(fit::fit_correctly_rounded(s, o));
  } catch (const fit::Cancelled&) {
    return;
  } catch (const std::exception& e) {
    error = e.what();
  }
  ZooPoint point;
  if (r && r->spec.target == fit::Target::Gelu) {
    try {
      point = zoo_point(candidate_entry(std::make_shared<const fit::Candidate>(r->candidate), "fit_cr"));
      point.name = std::string("correctly rounded (") + number_format(r->spec.format).name + ")";
    } catch (const std::exception&) {
      point = {};
    }
  }
  if (cr_request_.load() != my) return;
  publish([&](DesignerSnapshot& d) {
    d.cr = r;
    d.cr_error = error;
    d.cr_point = point;
    d.cr_running = false;
    d.cr_progress = 1;
    d.cr_failing = 0;
    d.cr_stage.clear();
  });
#else
  (void)s;
  (void)my;
#endif
}

void DesignerLab::request(const fit::Spec& s) {
  {
    std::lock_guard lk(mu_);
    pending_ = s;
    ++request_;  // under the lock: the worker reads it when it takes the spec
    busy_ = true;
    shared_.running = true;
    shared_.progress = 0;
    ++shared_.version;
#ifndef GELU_NO_THREADS
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
#endif
  }
  cv_.notify_all();
}

void DesignerLab::request_certify() {
  {
    std::lock_guard lk(mu_);
    certify_pending_ = true;
    busy_ = true;
    shared_.certifying = true;
    ++shared_.version;
#ifndef GELU_NO_THREADS
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
#endif
  }
  cv_.notify_all();
}

void DesignerLab::request_points(Kept kept) {
  {
    std::lock_guard lk(mu_);
    points_pending_ = std::move(kept);
    busy_ = true;
#ifndef GELU_NO_THREADS
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
#endif
  }
  cv_.notify_all();
}

void DesignerLab::points_now(Kept kept) {
  do_points(kept);
}

void DesignerLab::do_points(const Kept& kept) {
  std::vector<std::pair<std::string, ZooPoint>> points;
  for (const auto& [id, c] : kept) {
    if (!c || c->spec.target == fit::Target::GeluPrime) continue;
    try {
      ZooPoint p = zoo_point(candidate_entry(c, id));
      p.user = true;
      points.emplace_back(id, std::move(p));
    } catch (const std::exception&) {
      // Left off the plot.
    }
  }
  publish([&](DesignerSnapshot& d) { d.kept_points = std::move(points); });
}

void DesignerLab::fit_now(const fit::Spec& s) {
  {
    std::lock_guard lk(mu_);
    pending_.reset();
    ++request_;  // a fit under way on the worker gives up
  }
  while (busy_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  busy_ = true;
  do_fit(s, request_.load());
  busy_ = false;
}

bool DesignerLab::take(DesignerSnapshot& out) {
#ifdef GELU_NO_THREADS
  loop_once(false);  // without threads, the fit runs here, on the frame that asks for its result
#endif
  std::lock_guard lk(mu_);
  if (shared_.version == out.version) return false;
  out = shared_;
  return true;
}

void DesignerLab::publish(const std::function<void(DesignerSnapshot&)>& change) {
  std::lock_guard lk(mu_);
  change(shared_);
  ++shared_.version;
}

void DesignerLab::loop() {
  while (loop_once(true)) {
  }
}

bool DesignerLab::loop_once(bool wait) {
  {
    std::optional<fit::Spec> spec;
    std::optional<Kept> points;
    bool certify = false;
    std::uint64_t my = 0, cr_my = 0;
    std::shared_ptr<const fit::CrSpec> cr;
    {
      std::unique_lock lk(mu_);
      const auto ready = [&] {
        return stop_ || pending_.has_value() || certify_pending_ || points_pending_.has_value() ||
               cr_pending_ != nullptr;
      };
      if (wait)
        cv_.wait(lk, ready);
      else if (!ready())
        return true;
      if (stop_) return false;
      spec = pending_;
      pending_.reset();
      bool more = true;  // the worker thread takes every job that waits
#ifdef GELU_NO_THREADS
      more = !spec;  // without threads: one job a frame (take() runs them on the frames that ask for results)
#endif
      if (more) {
        points = std::move(points_pending_);
        points_pending_.reset();
      }
#ifdef GELU_NO_THREADS
      more = more && !points;
#endif
      if (more) {
        cr = std::move(cr_pending_);
        cr_pending_.reset();
      }
#ifdef GELU_NO_THREADS
      more = more && !cr;
#endif
      cr_my = cr_request_.load();
      if (!spec && more) {  // a certification waits for the fit it would certify
        certify = certify_pending_;
        certify_pending_ = false;
      }
      my = request_.load();
    }
    if (spec) do_fit(*spec, my);
    if (points) do_points(*points);
    if (certify) do_certify();
    if (cr) do_cr(*cr, cr_my);
    std::lock_guard lk(mu_);
    if (!pending_ && !certify_pending_ && !points_pending_ && !cr_pending_) busy_ = false;
  }
  return true;
}

void DesignerLab::do_fit(const fit::Spec& s, std::uint64_t my) {
  fit::Options o;
  o.progress = [&](double f, std::string_view stage) {
    if (request_.load() != my) return false;  // a newer spec came in: this fit is of no use
    publish([&](DesignerSnapshot& d) {
      d.progress = f;
      d.stage = std::string(stage);
    });
    return true;
  };
  std::shared_ptr<const fit::Candidate> c;
  std::string error;
  try {
    c = std::make_shared<const fit::Candidate>(fit::fit(s, o));
  } catch (const fit::Cancelled&) {
    return;  // the newer request publishes
  } catch (const fit::NotConverged& e) {
    error = e.what();
    c = std::make_shared<const fit::Candidate>(e.best());
  } catch (const fit::FitError& e) {
    error = e.what();
  } catch (const std::exception& e) {
    error = std::string("the fit failed: ") + e.what();
  }
  ZooPoint point;
  if (c && c->spec.target != fit::Target::GeluPrime) {
    try {
      point = zoo_point(candidate_entry(c, "fit_current"));
      point.name = "this candidate";
    } catch (const std::exception&) {
      point = {};
    }
  }
  std::vector<ZooPoint> zoo = zoo_points();
  if (request_.load() != my) return;
  publish([&](DesignerSnapshot& d) {
    d.spec = s;
    d.candidate = c;
    d.error = error;
    d.point = point;
    d.zoo = std::move(zoo);
    d.progress = 1;
    d.stage.clear();
    d.running = false;
  });
}

void DesignerLab::do_certify() {
  std::shared_ptr<const fit::Candidate> c;
  {
    std::lock_guard lk(mu_);
    c = shared_.candidate;
  }
  std::string note;
  std::shared_ptr<const fit::Candidate> certified;
  if (!c) {
    note = "nothing to certify yet";
  } else {
#ifdef GELU_HAVE_SOLLYA
    fit::Candidate copy = *c;
    std::string why;
    if (fit::certify(copy, &why)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "certified by Sollya's supnorm: max error in [%.9g, %.9g]",
                    copy.certified_lo, copy.certified_hi);
      note = buf;
      certified = std::make_shared<const fit::Candidate>(std::move(copy));
    } else {
      note = "not certified: " + why;
    }
#else
    note = "not certified: this build has no Sollya (apt install libsollya-dev, then reconfigure)";
#endif
  }
  publish([&](DesignerSnapshot& d) {
    if (certified && d.candidate == c) d.candidate = certified;  // still the same fit
    d.certify_note = note;
    d.certifying = false;
  });
}

// [SECTION] Candidates as zoo entries

zoo::Entry candidate_entry(std::shared_ptr<const fit::Candidate> c, const std::string& id) {
  if (!c) throw std::invalid_argument("no candidate");
  if (c->spec.target == fit::Target::GeluPrime)
    throw std::invalid_argument(
        "a gelu_prime candidate approximates GELU′, not GELU: export it and check it with "
        "gelulab check --order 1");
  zoo::Entry e;
  e.id = id;
  e.name = "candidate " + c->name();
  e.formula = c->formula();
  e.used_in = "designed in this session (Designer panel)";
  e.citation = fit::command_line(c->spec);
  e.cost = c->cost();
  e.f = [c](double x, const Format& compute) {
    if (compute.id() == FormatId::F64) return c->eval(x);
    const double v = static_cast<double>(c->eval(static_cast<float>(x)));
    return compute.id() == FormatId::F32 ? v : compute.round(v);
  };
  e.origin = zoo::Origin::User;
  return e;
}

std::string unique_candidate_id(const fit::Candidate& c, const std::vector<std::string>& taken) {
  std::string base = c.id();
  if (base.size() > 56) base.resize(56);
  auto free = [&](const std::string& id) { return std::find(taken.begin(), taken.end(), id) == taken.end(); };
  if (free(base)) return base;
  for (int k = 2;; ++k) {
    const std::string id = base + "_" + std::to_string(k);
    if (free(id)) return id;
  }
}

// [SECTION] Candidates in sessions

namespace {

json::Value points_json(const std::vector<fit::ErrorPoint>& ps) {
  json::Array a;
  for (const fit::ErrorPoint& p : ps) a.emplace_back(json::Array{p.x, p.error});
  return a;
}

constexpr std::size_t kMaxPoints = 100000;  // reference and extrema: a degree-30 fit has dozens

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw json::JsonError(model::quoted_key(key) + ": " + what);
}

double finite_number(const json::Value& o, const std::string& key, const char* name, double min, double max) {
  const json::Value* v = o.find(name);
  if (!v) bad(key, std::string("missing ") + name);
  if (!v->is_number() || !(v->as_number() >= min && v->as_number() <= max))
    bad(key, std::string(name) + " must be a number in [" + format_f64(min) + ", " + format_f64(max) + "]");
  return v->as_number();
}

/// An array of values of `fmt`, of exactly `count` numbers.
std::vector<double> values_of(const json::Value& o, const std::string& key, const char* name,
                              std::size_t count, const Format& fmt) {
  const json::Value* v = o.find(name);
  if (!v && count == 0) return {};
  if (!v || !v->is_array() || v->as_array().size() != count)
    bad(key, std::string(name) + " must be an array of " + std::to_string(count) + " numbers for this spec");
  std::vector<double> out;
  for (const json::Value& x : v->as_array()) {
    if (!x.is_number() || !std::isfinite(x.as_number()))
      bad(key, std::string(name) + " must hold finite numbers");
    if (fmt.round(x.as_number()) != x.as_number())
      bad(key, std::string(name) + ": " + format_f64(x.as_number()) + " is not a value of " +
                   std::string(fmt.name()));
    out.push_back(x.as_number());
  }
  return out;
}

std::vector<fit::ErrorPoint> points_of(const json::Value& o, const std::string& key, const char* name) {
  const json::Value* v = o.find(name);
  if (!v) return {};
  if (!v->is_array() || v->as_array().size() > kMaxPoints)
    bad(key, std::string(name) + " must be an array of [x, error] pairs");
  std::vector<fit::ErrorPoint> out;
  for (const json::Value& p : v->as_array()) {
    if (!p.is_array() || p.as_array().size() != 2 || !p.as_array()[0].is_number() ||
        !p.as_array()[1].is_number() || !std::isfinite(p.as_array()[0].as_number()) ||
        !std::isfinite(p.as_array()[1].as_number()))
      bad(key, std::string(name) + " must be an array of finite [x, error] pairs");
    out.push_back({p.as_array()[0].as_number(), p.as_array()[1].as_number()});
  }
  return out;
}

}  // namespace

json::Value candidate_json(const fit::Candidate& c) {
  json::Object o;
  o["spec"] = model::fit_spec_schema().write(c.spec);
  json::Array coefs, bps, centers;
  for (double v : c.coefficients) coefs.emplace_back(v);
  o["coefficients"] = std::move(coefs);
  if (c.spec.form == fit::Form::Piecewise) {
    for (double v : c.breakpoints) bps.emplace_back(v);
    for (double v : c.centers) centers.emplace_back(v);
    o["breakpoints"] = std::move(bps);
    o["centers"] = std::move(centers);
  }
  o["max_error"] = c.max_error;
  o["x_at_max"] = c.x_at_max;
  o["level"] = c.level;
  o["unrounded_max_error"] = c.unrounded_max_error;
  o["naive_max_error"] = c.naive_max_error;
  o["gelu_abs_error"] = c.gelu_abs_error;
  o["fit_ms"] = c.fit_seconds * 1e3;
  o["certified"] = c.certified ? json::Value(json::Array{c.certified_lo, c.certified_hi}) : json::Value();
  o["reference"] = points_json(c.reference);
  o["extrema"] = points_json(c.extrema);
  return o;
}

fit::Candidate read_candidate(const json::Value& v, const std::string& key) {
  if (!v.is_object()) bad(key, "a candidate must be an object {spec, coefficients, …}");
  static const char* const kKeys[] = {
      "spec",     "coefficients", "breakpoints",         "centers",         "max_error",
      "x_at_max", "level",        "unrounded_max_error", "naive_max_error", "gelu_abs_error",
      "fit_ms",   "certified",    "reference",           "extrema"};
  for (const auto& [k, x] : v.as_object())
    if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys))
      bad(key, "unknown key " + quote(k) + " in a candidate");
  fit::Candidate c;
  const json::Value* spec = v.find("spec");
  if (!spec) bad(key, "missing spec");
  try {
    model::fit_spec_schema().read(*spec, c.spec);
    fit::validate(c.spec);
  } catch (const json::JsonError& e) {
    bad(key, std::string("spec: ") + e.what());
  } catch (const fit::FitError& e) {
    bad(key, std::string("spec: ") + e.what());
  }
  const fit::Spec& s = c.spec;
  const Format fmt(s.format);
  const std::size_t per = static_cast<std::size_t>(s.degree) + 1;
  const std::size_t pieces = s.form == fit::Form::Piecewise ? static_cast<std::size_t>(s.pieces) : 0;
  const std::size_t n = s.form == fit::Form::Rational
                            ? per + static_cast<std::size_t>(s.denominator_degree) + 1
                        : s.form == fit::Form::Piecewise ? pieces * per
                                                         : per;
  c.coefficients = values_of(v, key, "coefficients", n, fmt);
  if (s.form == fit::Form::Rational && c.coefficients[per] != 1) bad(key, "coefficients: q_0 must be 1");
  c.breakpoints = values_of(v, key, "breakpoints", pieces ? pieces + 1 : 0, fmt);
  c.centers = values_of(v, key, "centers", pieces, fmt);
  if (pieces) {
    if (c.breakpoints.front() != s.a || c.breakpoints.back() != s.b)
      bad(key, "breakpoints must run from the range's A to its B");
    for (std::size_t j = 0; j < pieces; ++j)
      if (!(c.breakpoints[j] < c.breakpoints[j + 1])) bad(key, "breakpoints must increase");
  }
  c.unrounded = c.coefficients;
  constexpr double kBig = 1e300;
  c.max_error = finite_number(v, key, "max_error", 0, kBig);
  c.x_at_max = finite_number(v, key, "x_at_max", -kBig, kBig);
  auto optional = [&](const char* name, double def) {
    return v.find(name) ? finite_number(v, key, name, -kBig, kBig) : def;
  };
  c.level = optional("level", 0);
  c.unrounded_max_error = optional("unrounded_max_error", c.max_error);
  c.naive_max_error = optional("naive_max_error", c.max_error);
  c.gelu_abs_error = optional("gelu_abs_error", c.max_error);
  c.fit_seconds = optional("fit_ms", 0) / 1e3;
  if (const json::Value* cert = v.find("certified"); cert && !cert->is_null()) {
    const bool ok = cert->is_array() && cert->as_array().size() == 2 && cert->as_array()[0].is_number() &&
                    cert->as_array()[1].is_number() && cert->as_array()[0].as_number() >= 0 &&
                    cert->as_array()[0].as_number() <= cert->as_array()[1].as_number() &&
                    cert->as_array()[1].as_number() < kBig;
    if (!ok) bad(key, "certified must be null or [lo, hi] with 0 <= lo <= hi");
    c.certified = true;
    c.certified_lo = cert->as_array()[0].as_number();
    c.certified_hi = cert->as_array()[1].as_number();
  }
  c.reference = points_of(v, key, "reference");
  c.extrema = points_of(v, key, "extrema");
  return c;
}

// [SECTION] Export

ExportResult export_candidate(const fit::Candidate& c, const std::string& base, const std::string& name,
                              const std::vector<ExportKind>& kinds) {
  namespace fs = std::filesystem;
  ExportResult r;
  if (base.empty()) {
    r.message = "give a file name first";
    return r;
  }
  if (const auto why = fit::why_not_identifier(name)) {
    r.message = "the function name " + quote(name) + " " + *why;
    return r;
  }
  const auto path = [&](ExportKind k) {
    const char* ext = k == ExportKind::Cpp    ? ".hpp"
                      : k == ExportKind::Glsl ? ".glsl"
                      : k == ExportKind::Cuda ? ".cu"
                                              : "_vectors.txt";
    return fs::absolute(base + ext).string();
  };
  for (ExportKind k : kinds)
    if (const auto why = why_not_writable(path(k))) {
      r.message = "cannot write " + quote(path(k), 200) + ": " + *why;
      return r;
    }
  const fit::TestVectors tv = fit::test_vectors(c);
  const std::string vectors = path(ExportKind::Vectors);
  r.check = fit::check_command(c, tv, "your_outputs.txt");
  fit::ExportOptions eo;
  eo.name = name;
  eo.command = fit::command_line(c.spec);
  eo.vectors_file = fs::path(vectors).filename().string();
  eo.check = r.check;
  try {
    for (ExportKind k : kinds) {
      const std::string text = k == ExportKind::Cpp    ? fit::export_cpp(c, eo)
                               : k == ExportKind::Glsl ? fit::export_glsl(c, eo)
                               : k == ExportKind::Cuda ? fit::export_cuda(c, eo)
                                                       : tv.text();
      write_file_atomic(path(k), text);
      r.written.push_back(path(k));
    }
  } catch (const FileError& e) {
    r.message = e.what();
    return r;
  } catch (const std::exception& e) {
    r.message = std::string("export failed: ") + e.what();
    return r;
  }
  r.message = "wrote";
  for (const std::string& w : r.written) r.message += " " + fs::path(w).filename().string();
  r.message += " in " + fs::path(r.written.front()).parent_path().string();
  return r;
}

// [SECTION] One-coefficient fits

CoefficientFit fit_coefficient(const Activation& form, double a, double b, std::size_t n) {
  const ParamSpec& ps = form.params[0];
  const Activation& gelu = *find_activation("gelu");
  const analysis::Model model = [&form](double x, std::span<const double> p) {
    Params q = form.defaults();
    q[0] = p[0];
    return form.eval(x, 0, &q);
  };
  const analysis::MinimaxFit f = analysis::fit_minimax(model, analysis::spec(gelu), {ps.default_value},
                                                       {0.05 * ps.default_value}, a, b, n);
  const auto max_abs = [&](double v) {
    Params p = form.defaults();
    p[0] = v;
    return analysis::compare(analysis::FunctionSpec{&form, p, 0}, analysis::spec(gelu), a, b, n,
                             Format(FormatId::F64))
        .stats(analysis::ErrorMetric::Abs)
        .max;
  };
  CoefficientFit out;
  out.value = std::clamp(f.params[0], ps.min, ps.max);
  out.max_error = max_abs(out.value);
  out.textbook_error = max_abs(ps.default_value);
  return out;
}

}  // namespace gelu::app
