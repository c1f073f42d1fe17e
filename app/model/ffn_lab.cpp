// The FFN lab's model and worker thread (see ffn_lab.hpp).
#include "model/ffn_lab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "gelu/activation.hpp"
#include "gelu/numio.hpp"
#ifdef GELU_HAVE_GPU
#include "gelu/gpu/context.hpp"
#include "gelu/gpu/ffn.hpp"
#endif

namespace gelu::app {

// [SECTION] Dataset edits

bool apply_point_edit(ffn::Dataset& d, const PointEdit& e, double radius) {
  if (e.add) {
    const Eigen::Index n = d.x_train.cols();
    d.x_train.conservativeResize(2, n + 1);
    d.y_train.conservativeResize(n + 1);
    d.x_train(0, n) = e.x;
    d.x_train(1, n) = e.y;
    d.y_train(n) = std::clamp(e.label, 0, std::max(1, d.classes - 1));
    return true;
  }
  Eigen::Index best = -1;
  double best_d = radius * radius;
  for (Eigen::Index i = 0; i < d.x_train.cols(); ++i) {
    const double dx = d.x_train(0, i) - e.x, dy = d.x_train(1, i) - e.y;
    if (dx * dx + dy * dy <= best_d) {
      best_d = dx * dx + dy * dy;
      best = i;
    }
  }
  if (best < 0 || d.x_train.cols() <= 1) return false;
  const Eigen::Index last = d.x_train.cols() - 1;
  for (Eigen::Index i = best; i < last; ++i) {  // order kept: the minibatch order stays reproducible
    d.x_train.col(i) = d.x_train.col(i + 1);
    d.y_train(i) = d.y_train(i + 1);
  }
  d.x_train.conservativeResize(2, last);
  d.y_train.conservativeResize(last);
  return true;
}

// [SECTION] Configuration

ffn::NetworkSpec LabConfig::spec(int i, const ffn::Dataset& d) const {
  const NetChoice& c = nets[static_cast<std::size_t>(i)];
  ffn::NetworkSpec s;
  s.inputs = 2;
  s.outputs = d.classes <= 2 ? 1 : d.classes;
  s.glu = glu ? c.glu_kind : ffn::GluKind::None;
  bool any_gelu = false;
  for (std::size_t l = 0; l < widths.size(); ++l) {
    ffn::HiddenSpec h;
    h.width = widths[l];
    h.activation = glu ? ffn::glu_activation(c.glu_kind)
                       : (c.activations.empty() ? std::string("gelu")
                                                : c.activations[std::min(l, c.activations.size() - 1)]);
    if (const Activation* a = find_activation(h.activation)) h.params = a->defaults();
    any_gelu = any_gelu || h.activation == "gelu";
    s.hidden.push_back(std::move(h));
  }
  s.stochastic = c.stochastic && any_gelu;
  ffn::validate(s);
  return s;
}

namespace {

json::Value net_json(const NetChoice& n) {
  json::Object o;
  json::Array acts;
  for (const std::string& a : n.activations) acts.emplace_back(a);
  o["activations"] = std::move(acts);
  o["glu"] = ffn::to_string(n.glu_kind);
  o["stochastic"] = n.stochastic;
  return o;
}

const json::Value* member(const json::Value& v, std::string_view key) {
  if (!v.is_object()) throw json::JsonError("'a' and 'b' must be objects like {\"activations\": [\"gelu\"]}");
  return v.find(key);
}

double number(const json::Value& v, std::string_view key, double lo, double hi) {
  if (!v.is_number() || !(v.as_number() >= lo && v.as_number() <= hi))
    throw json::JsonError("'" + std::string(key) + "' must be a number in [" + format_f64(lo) + ", " +
                          format_f64(hi) + "]");
  return v.as_number();
}

void read_net(const json::Value& v, NetChoice& n) {
  if (const json::Value* a = member(v, "activations")) {
    if (!a->is_array() || a->as_array().empty())
      throw json::JsonError("'activations' must be a non-empty array");
    n.activations.clear();
    for (const json::Value& s : a->as_array()) {
      if (!s.is_string() || !find_activation(s.as_string()))
        throw json::JsonError("'activations' must hold registry ids (" + activation_ids() + ")");
      n.activations.push_back(s.as_string());
    }
  }
  if (const json::Value* g = member(v, "glu")) {
    const auto k = g->is_string() ? ffn::parse_glu(g->as_string()) : std::nullopt;
    if (!k || *k == ffn::GluKind::None) throw json::JsonError("'glu' must be geglu, swiglu or reglu");
    n.glu_kind = *k;
  }
  if (const json::Value* s = member(v, "stochastic")) {
    if (!s->is_bool()) throw json::JsonError("'stochastic' must be true or false");
    n.stochastic = s->as_bool();
  }
}

}  // namespace

json::Value LabConfig::to_json() const {
  json::Object o;
  o["dataset"] = data.id;
  o["samples"] = data.samples;
  o["noise"] = data.noise;
  o["classes"] = data.classes;
  o["data_seed"] = static_cast<double>(data.seed);
  json::Array e;
  for (const PointEdit& p : edits) {
    json::Object q;
    q["op"] = p.add ? "add" : "remove";
    q["x"] = p.x;
    q["y"] = p.y;
    if (p.add) q["label"] = p.label;
    e.emplace_back(std::move(q));
  }
  o["edits"] = std::move(e);
  json::Array w;
  for (int x : widths) w.emplace_back(x);
  o["widths"] = std::move(w);
  o["glu"] = glu;
  o["a"] = net_json(nets[0]);
  o["b"] = net_json(nets[1]);
  o["ab"] = ab;
  o["optimizer"] = ffn::to_string(optimizer);
  o["lr"] = lr;
  o["batch"] = batch;
  o["init_seed"] = static_cast<double>(init_seed);
  o["backend"] = gpu ? "gpu" : "cpu";
  o["grid"] = grid;
  o["speed"] = speed;
  return o;
}

void LabConfig::from_json(const json::Value& v) {
  static constexpr std::string_view kKeys[] = {"dataset", "samples",   "noise", "classes",    "data_seed",
                                               "edits",   "widths",    "glu",   "a",          "b",
                                               "ab",      "optimizer", "lr",    "batch",      "init_seed",
                                               "backend", "grid",      "speed", "shot_steps", "playing"};
  if (!v.is_object()) throw json::JsonError("the FFN lab state must be a JSON object");
  for (const auto& [k, x] : v.as_object())
    if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys))
      throw json::JsonError("unknown key " + gelu::quote(k) + " in the FFN lab state");
  LabConfig c = *this;  // all or nothing
  if (const json::Value* x = v.find("dataset")) {
    const ffn::DatasetInfo* info = x->is_string() ? ffn::find_dataset(x->as_string()) : nullptr;
    if (!info || info->task != ffn::Task::Classification || info->inputs != 2)
      throw json::JsonError("'dataset' must be a 2-D classification dataset");
    c.data.id = info->id;
  }
  if (const json::Value* x = v.find("samples"))
    c.data.samples = static_cast<int>(number(*x, "samples", 8, 20000));
  if (const json::Value* x = v.find("noise"))
    c.data.noise = x->is_number() && x->as_number() < 0 ? -1.0 : number(*x, "noise", 0, 2);
  if (const json::Value* x = v.find("classes"))
    c.data.classes = static_cast<int>(number(*x, "classes", 2, 8));
  if (const json::Value* x = v.find("data_seed"))
    c.data.seed = static_cast<std::uint64_t>(number(*x, "data_seed", 0, 1e15));
  if (const json::Value* x = v.find("edits")) {
    // Each edit is replayed on every reset (a removal searches the points): bounded like the samples.
    constexpr std::size_t kMaxEdits = 20000;
    if (!x->is_array() || x->as_array().size() > kMaxEdits)
      throw json::JsonError("'edits' must be an array of at most " + std::to_string(kMaxEdits) + " edits");
    c.edits.clear();
    for (std::size_t i = 0; i < x->as_array().size(); ++i) {
      const json::Value& q = x->as_array()[i];
      try {
        PointEdit p;
        const std::string& op = q.at("op").as_string();
        if (op != "add" && op != "remove") throw json::JsonError("'op' is add or remove");
        p.add = op == "add";
        p.x = number(q.at("x"), "x", -1e6, 1e6);
        p.y = number(q.at("y"), "y", -1e6, 1e6);
        if (p.add) p.label = static_cast<int>(number(q.at("label"), "label", 0, 7));
        c.edits.push_back(p);
      } catch (const json::JsonError& e) {
        throw json::JsonError("'edits[" + std::to_string(i) + "]': " + e.what() +
                              " (an edit is {\"op\": \"add\"|\"remove\", \"x\", \"y\", \"label\"})");
      }
    }
  }
  if (const json::Value* x = v.find("widths")) {
    if (!x->is_array() || x->as_array().empty() || x->as_array().size() > 4)
      throw json::JsonError("'widths' must be an array of 1 to 4 layer widths");
    c.widths.clear();
    for (const json::Value& w : x->as_array())
      c.widths.push_back(static_cast<int>(number(w, "widths", 1, 128)));
  }
  if (const json::Value* x = v.find("glu")) {
    if (!x->is_bool()) throw json::JsonError("'glu' must be true or false");
    c.glu = x->as_bool();
  }
  if (const json::Value* x = v.find("a")) read_net(*x, c.nets[0]);
  if (const json::Value* x = v.find("b")) read_net(*x, c.nets[1]);
  if (const json::Value* x = v.find("ab")) {
    if (!x->is_bool()) throw json::JsonError("'ab' must be true or false");
    c.ab = x->as_bool();
  }
  if (const json::Value* x = v.find("optimizer")) {
    const auto o = x->is_string() ? ffn::parse_optimizer(x->as_string()) : std::nullopt;
    if (!o) throw json::JsonError("'optimizer' must be sgd or adam");
    c.optimizer = *o;
  }
  if (const json::Value* x = v.find("lr")) c.lr = number(*x, "lr", 1e-5, 1);
  if (const json::Value* x = v.find("batch")) c.batch = static_cast<int>(number(*x, "batch", 1, 4096));
  if (const json::Value* x = v.find("init_seed"))
    c.init_seed = static_cast<std::uint64_t>(number(*x, "init_seed", 0, 1e15));
  if (const json::Value* x = v.find("backend")) {
    if (!x->is_string() || (x->as_string() != "cpu" && x->as_string() != "gpu"))
      throw json::JsonError("'backend' must be cpu or gpu");
    c.gpu = x->as_string() == "gpu";
  }
  if (const json::Value* x = v.find("grid")) c.grid = static_cast<int>(number(*x, "grid", 8, 256));
  if (const json::Value* x = v.find("speed")) c.speed = static_cast<int>(number(*x, "speed", 0, 1000000));
  *this = std::move(c);
}

// [SECTION] Worker

namespace {
constexpr std::size_t kMaxCurve = 4000;
constexpr int kEvalEvery = 10;  // steps between full train/test evaluations (the thick loss curve)
constexpr auto kChunk = std::chrono::milliseconds(25);    // training between looks at the command queue
constexpr auto kPublish = std::chrono::milliseconds(80);  // snapshots per second while playing: ~12
using Clock = std::chrono::steady_clock;
}  // namespace

struct FfnLab::Nets {
  LabConfig cfg;
  ffn::Dataset data;
  struct One {
    std::unique_ptr<ffn::Network<float>> net;
    std::unique_ptr<ffn::Trainer<float>> cpu;
#ifdef GELU_HAVE_GPU
    std::unique_ptr<gpu::FfnTrainer> gpu;
#endif
    NetSnapshot snap;
    int stride = 1;  // loss curve: one point every `stride` steps
    bool active() const {
      return net != nullptr;
    }
    double step() {
#ifdef GELU_HAVE_GPU
      if (gpu) return gpu->step();
#endif
      return cpu->step();
    }
    /// Loss and accuracy on the full train and test sets at the current step (once per step).
    void record_metrics() {
      if (!net || (!snap.eval_steps.empty() && snap.eval_steps.back() == snap.steps)) return;
      ffn::Metrics m;
#ifdef GELU_HAVE_GPU
      if (gpu) m = gpu->evaluate();
#endif
      if (cpu) m = cpu->evaluate();
      snap.eval_steps.push_back(snap.steps);
      snap.train_loss.push_back(m.train_loss);
      snap.test_loss.push_back(m.test_loss);
      snap.train_acc.push_back(m.train_accuracy);
      snap.test_acc.push_back(m.test_accuracy);
      if (snap.eval_steps.size() > kMaxCurve) {  // keep every other evaluation
        for (auto* v :
             {&snap.eval_steps, &snap.train_loss, &snap.test_loss, &snap.train_acc, &snap.test_acc}) {
          std::size_t k = 0;
          for (std::size_t j = 0; j < v->size(); j += 2) (*v)[k++] = (*v)[j];
          v->resize(k);
        }
        eval_every *= 2;
      }
    }
    int eval_every = kEvalEvery;
    int pulled_step = 0;  // the step whose weights net holds (GPU training keeps them on the device)
    void pull_weights() {
#ifdef GELU_HAVE_GPU
      if (gpu && gpu->ok()) {
        gpu->download(*net);
        if (gpu->ok()) pulled_step = snap.steps;
      }
#endif
    }
  };
  std::array<One, 2> n;
#ifdef GELU_HAVE_GPU
  std::unique_ptr<gpu::Context> ctx;
#endif
  std::string backend = "CPU", error, notice;
  double steps_per_s = 0;
};

namespace {
ffn::TrainConfig lab_train_config(const LabConfig& c, const ffn::Dataset& data,
                                  const ffn::NetworkSpec& spec) {
  ffn::TrainConfig tc;
  tc.loss = ffn::default_loss(data, spec.outputs);
  tc.optimizer = c.optimizer;
  tc.lr = c.lr;
  tc.batch = c.batch;
  tc.seed = 1;
  return tc;
}
}  // namespace

FfnLab::FfnLab() {
  pending_kind_ = 2;
  thread_ = std::thread([this] { worker(); });
}

FfnLab::~FfnLab() {
  {
    std::lock_guard lk(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void FfnLab::reset(const LabConfig& c) {
  std::lock_guard lk(mu_);
  speed_ = std::max(0, c.speed);
  pending_ = c;
  pending_kind_ = 2;
  cv_.notify_all();
}

void FfnLab::reconfigure(const LabConfig& c) {
  std::lock_guard lk(mu_);
  speed_ = std::max(0, c.speed);
  pending_ = c;
  pending_kind_ = std::max(pending_kind_, 1);
  cv_.notify_all();
}

void FfnLab::set_speed(int steps_per_s) {
  std::lock_guard lk(mu_);
  speed_ = std::max(0, steps_per_s);
}

void FfnLab::set_running(bool on) {
  std::lock_guard lk(mu_);
  running_ = on;
  cv_.notify_all();
}

bool FfnLab::running() const {
  std::lock_guard lk(mu_);
  return running_;
}

void FfnLab::step(int n) {
  std::lock_guard lk(mu_);
  queued_steps_ += std::max(0, n);
  cv_.notify_all();
}

void FfnLab::wait_idle() {
  std::unique_lock lk(mu_);
  idle_cv_.wait(lk, [&] { return quit_ || (pending_kind_ == 0 && queued_steps_ == 0 && !busy_); });
}

bool FfnLab::take(LabSnapshot& out) {
  std::lock_guard lk(mu_);
  if (front_.version <= out.version) return false;
  out = front_;
  return true;
}

bool FfnLab::rebuild(Nets& s, const LabConfig& c, bool keep_weights) {
  // Weights to carry over come back from the device first; trainers go before the dataset they reference.
  std::array<Eigen::VectorXf, 2> old;
  for (std::size_t i = 0; i < 2; ++i) {
    Nets::One& o = s.n[i];
    if (keep_weights && o.net) {
      o.pull_weights();
      old[i] = o.net->parameters();
    }
    o.cpu.reset();
#ifdef GELU_HAVE_GPU
    o.gpu.reset();
#endif
    o.net.reset();
    if (!keep_weights) {
      o.snap = NetSnapshot{};
      o.stride = 1;
      o.eval_every = kEvalEvery;
    }
    o.snap.error.clear();
  }
  s.cfg = c;
  s.error.clear();
  s.notice.clear();
  try {
    s.data = ffn::make_dataset(c.data);
    for (const PointEdit& e : c.edits) apply_point_edit(s.data, e, 1e-6);
  } catch (const std::exception& e) {
    s.error = std::string("dataset: ") + e.what();
    return false;
  }
  // No usable GPU (no EGL, no GL 4.3, a shader that does not compile, a lost context): the nets train on the
  // CPU and the notice says why — the lab keeps working.
  bool use_gpu = c.gpu;
#ifdef GELU_HAVE_GPU
  if (use_gpu && !s.ctx) {
    std::string err;
    s.ctx = gpu::Context::create_headless(&err);
    if (!s.ctx) {
      s.notice = "The GPU backend is unavailable (" + err + "); training runs on the CPU.";
      use_gpu = false;
    }
  }
  if (!use_gpu) s.ctx.reset();
  s.backend = use_gpu ? "GPU (" + s.ctx->info().renderer + ")" : "CPU";
#else
  if (use_gpu) {
    s.notice = "This build has no GPU backend; training runs on the CPU.";
    use_gpu = false;
  }
#endif
  for (int i = 0; i < 2; ++i) {
    Nets::One& o = s.n[static_cast<std::size_t>(i)];
    if (i == 1 && !c.ab) {
      o.snap = NetSnapshot{};
      continue;
    }
    try {
      const ffn::NetworkSpec spec = c.spec(i, s.data);
      o.net = std::make_unique<ffn::Network<float>>(spec);
      if (keep_weights &&
          static_cast<std::size_t>(old[static_cast<std::size_t>(i)].size()) == o.net->parameter_count()) {
        o.net->parameters() = old[static_cast<std::size_t>(i)];
      } else {
        o.net->init(ffn::Init::He, c.init_seed);  // one seed for A and B: identical initial weights
        if (keep_weights) {
          o.snap = NetSnapshot{};
          o.stride = 1;
          o.eval_every = kEvalEvery;
        }
      }
      const ffn::TrainConfig tc = lab_train_config(c, s.data, spec);
#ifdef GELU_HAVE_GPU
      if (use_gpu) {
        o.gpu = std::make_unique<gpu::FfnTrainer>(*s.ctx, *o.net, s.data, tc);
        if (!o.gpu->ok()) {
          s.notice = "The GPU trainer could not start (" + o.gpu->error() + "); training runs on the CPU.";
          o.gpu.reset();
        }
      }
#endif
#ifdef GELU_HAVE_GPU
      if (!o.gpu)
#endif
        o.cpu = std::make_unique<ffn::Trainer<float>>(*o.net, s.data, tc);
    } catch (const std::exception& e) {
      o.cpu.reset();
#ifdef GELU_HAVE_GPU
      o.gpu.reset();
#endif
      o.net.reset();
      o.snap.error = e.what();
      s.error = std::string(i == 0 ? "net A: " : "net B: ") + e.what();
    }
  }
  if (!s.notice.empty()) std::fprintf(stderr, "gelulab: FFN lab: %s\n", s.notice.c_str());
#ifdef GELU_HAVE_GPU
  bool fell_back = false;
  for (const Nets::One& o : s.n) fell_back = fell_back || (o.net && !o.gpu);
  if (use_gpu && fell_back) {  // a trainer fell back: both nets on the same backend
    for (Nets::One& o : s.n)
      if (o.gpu) {
        o.gpu.reset();
        o.cpu =
            std::make_unique<ffn::Trainer<float>>(*o.net, s.data, lab_train_config(c, s.data, o.net->spec()));
      }
    s.ctx.reset();
    s.backend = "CPU";
  }
#endif
  return s.error.empty();
}

void FfnLab::publish(Nets& s, bool eval) {
  LabSnapshot out;
  for (std::size_t i = 0; i < 2; ++i) {
    Nets::One& o = s.n[i];
    if (eval && o.active()) {
      o.record_metrics();
#ifdef GELU_HAVE_GPU
      if (o.gpu) {
        o.pull_weights();  // the CPU copy a lost GPU falls back to
        o.snap.layers = o.gpu->layer_stats(32);
        o.snap.grid = o.gpu->grid(s.cfg.grid, s.cfg.grid);
        if (!o.gpu->ok()) o.snap.error = o.gpu->error();
      }
#endif
      if (o.cpu) {
        o.snap.layers = o.cpu->layer_stats(32);
        o.snap.grid = o.cpu->grid(s.cfg.grid, s.cfg.grid);
      }
    }
    out.nets[i] = o.snap;
  }
  out.ab = s.cfg.ab;
  out.data = s.data;
  out.backend = s.backend;
  out.error = s.error;
  out.notice = s.notice;
  out.steps_per_s = s.steps_per_s;
  std::lock_guard lk(mu_);
  out.running = running_;
  out.version = ++published_;
  front_ = std::move(out);
}

void FfnLab::fall_back_to_cpu(Nets& s, std::string why) {
#ifdef GELU_HAVE_GPU
  int from = 0;
  for (Nets::One& o : s.n) {
    if (!o.gpu) continue;
    o.gpu.reset();  // its objects die with the context; deleting them on a lost context is harmless
    o.snap.steps = o.pulled_step;
    from = o.pulled_step;
    try {
      o.cpu = std::make_unique<ffn::Trainer<float>>(*o.net, s.data,
                                                    lab_train_config(s.cfg, s.data, o.net->spec()));
    } catch (const std::exception& e) {
      o.net.reset();
      s.error = std::string("the GPU failed and the CPU could not take over: ") + e.what();
    }
  }
  s.ctx.reset();
  s.backend = "CPU";
  s.notice = "The GPU stopped: " + why + ". Training goes on on the CPU from step " + std::to_string(from) +
             " (the last weights copied back; the optimizer's moments start afresh).";
  std::fprintf(stderr, "gelulab: FFN lab: %s\n", s.notice.c_str());
#else
  (void)s;
  (void)why;
#endif
}

void FfnLab::worker() {
  Nets s;
  Clock::time_point last_publish = Clock::now();
  bool paced = false;  // pacing of play at cfg.speed steps per second
  int pace_speed = 0;
  Clock::time_point pace_t0;
  long long pace_done = 0;
  for (;;) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return quit_ || pending_kind_ != 0 || running_ || queued_steps_ > 0; });
    if (quit_) break;
    if (pending_kind_ != 0) {
      const LabConfig c = pending_;
      const bool keep = pending_kind_ == 1;
      pending_kind_ = 0;
      busy_ = true;
      lk.unlock();
      rebuild(s, c, keep);
      publish(s, true);
      last_publish = Clock::now();
      lk.lock();
      busy_ = false;
      idle_cv_.notify_all();
      continue;
    }
    const bool queued = queued_steps_ > 0;
    int budget = queued ? queued_steps_ : 1 << 30;
    if (!queued && speed_ > 0) {
      // Playing at a set speed: the steps due since play started (or the speed changed), at most a second's.
      if (!paced || pace_speed != speed_) {
        paced = true;
        pace_speed = speed_;
        pace_t0 = Clock::now();
        pace_done = 0;
      }
      const double due = std::chrono::duration<double>(Clock::now() - pace_t0).count() * pace_speed;
      const long long ahead = static_cast<long long>(due) - pace_done;
      if (ahead <= 0) {
        cv_.wait_for(lk, std::chrono::milliseconds(10));
        continue;
      }
      budget = static_cast<int>(std::min<long long>(ahead, pace_speed));
      if (ahead > pace_speed)
        pace_done = static_cast<long long>(due) - pace_speed;  // no catching up after a stall
    } else if (!queued) {
      paced = false;
    }
    busy_ = true;
    lk.unlock();

    int done = 0;
    const Clock::time_point t0 = Clock::now();
    const bool trainable = s.error.empty() && s.n[0].active();
    while (done < budget && trainable && Clock::now() - t0 < kChunk) {
      for (Nets::One& o : s.n) {
        if (!o.active()) continue;
        const double loss = o.step();
#ifdef GELU_HAVE_GPU
        if (o.gpu && !o.gpu->ok()) {
          fall_back_to_cpu(s, o.gpu->error());
          break;  // this step did not happen; the CPU takes over from the last weights copied back
        }
#endif
        ++o.snap.steps;
        if (o.snap.steps % o.stride == 0) {
          o.snap.loss_steps.push_back(o.snap.steps);
          o.snap.batch_loss.push_back(loss);
          if (o.snap.loss_steps.size() > kMaxCurve) {
            std::size_t k = 0;
            for (std::size_t j = 1; j < o.snap.loss_steps.size(); j += 2, ++k) {
              o.snap.loss_steps[k] = o.snap.loss_steps[j];
              o.snap.batch_loss[k] = o.snap.batch_loss[j];
            }
            o.snap.loss_steps.resize(k);
            o.snap.batch_loss.resize(k);
            o.stride *= 2;
          }
        }
        if (o.snap.steps % o.eval_every == 0) o.record_metrics();
      }
      ++done;
    }
    if (!trainable) done = budget == (1 << 30) ? 0 : budget;
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (done > 0 && dt > 0) s.steps_per_s = done / dt;

    if (!queued) pace_done += done;
    lk.lock();
    if (queued) queued_steps_ = std::max(0, queued_steps_ - done);
    if (!running_) paced = false;
    const bool settle = queued_steps_ == 0 && !running_;
    if (!trainable && !queued) running_ = false;  // nothing to train: stop instead of spinning
    lk.unlock();
    if (settle || Clock::now() - last_publish >= kPublish) {
      publish(s, true);
      last_publish = Clock::now();
    }
    lk.lock();
    busy_ = false;
    idle_cv_.notify_all();
  }
  idle_cv_.notify_all();
  // GPU trainers go before their context, on the thread the context is current on.
  for (Nets::One& o : s.n) {
    o.cpu.reset();
#ifdef GELU_HAVE_GPU
    o.gpu.reset();
#endif
  }
}

}  // namespace gelu::app
