// The FFN lab's model and worker thread (see ffn_lab.hpp).
//
// Index of this file:
//   [SECTION] Dataset edits
//   [SECTION] Configuration
//   [SECTION] Worker
#include "model/ffn_lab.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "gelu/activation.hpp"
#include "gelu/numio.hpp"
#include "model/backends.hpp"

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

// [SECTION] Worker

namespace {
constexpr std::size_t kMaxCurve = 4000;
constexpr int kEvalEvery = 10;  // steps between full train/test evaluations (the thick loss curve)
#ifdef GELU_NO_THREADS
constexpr auto kChunk = std::chrono::milliseconds(kSliceMs);  // training per frame of the page
#else
constexpr auto kChunk = std::chrono::milliseconds(25);  // training between looks at the command queue
#endif
constexpr auto kPublish = std::chrono::milliseconds(80);  // snapshots per second while playing: ~12
using Clock = std::chrono::steady_clock;
}  // namespace

struct FfnLab::Nets {
  LabConfig cfg;
  ffn::Dataset data;
  struct One {
    std::unique_ptr<ffn::Network<float>> net;
    std::unique_ptr<ffn::StepTrainer> trainer;  // the CPU's, or the GPU's (remote())
    NetSnapshot snap;
    int stride = 1;  // loss curve: one point every `stride` steps
    bool active() const { return net != nullptr; }
    bool trains() const { return net != nullptr && snap.diverged_at == 0; }
    double step() { return trainer->step(); }
    /// Loss and accuracy on the full train and test sets at the current step (once per step).
    void record_metrics() {
      if (!net || (!snap.eval_steps.empty() && snap.eval_steps.back() == snap.steps)) return;
      const ffn::Metrics m = trainer->evaluate();
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
      if (trainer && trainer->remote() && trainer->failure().empty()) {
        trainer->download(*net);
        if (trainer->failure().empty()) pulled_step = snap.steps;
      }
    }
    bool on_gpu() const { return trainer && trainer->remote(); }
  };
  std::array<One, 2> n;
  TrainerHost host;  // the GPU's context while a net trains there
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
#ifndef GELU_NO_THREADS
  thread_ = std::thread([this] { worker(); });
#endif
}

FfnLab::~FfnLab() {
  {
    std::lock_guard lk(mu_);
    quit_ = true;
  }
  cv_.notify_all();
#ifdef GELU_NO_THREADS
  if (worker_) finish(*worker_);
#else
  thread_.join();
#endif
}

void FfnLab::reset(const LabConfig& c) {
  std::lock_guard lk(mu_);
  speed_ = std::max(0, c.speed);
  step_budget_ = std::max(0, c.step_budget);
  pending_ = c;
  pending_kind_ = 2;
  cv_.notify_all();
}

void FfnLab::reconfigure(const LabConfig& c) {
  std::lock_guard lk(mu_);
  speed_ = std::max(0, c.speed);
  step_budget_ = std::max(0, c.step_budget);
  pending_ = c;
  pending_kind_ = std::max(pending_kind_, 1);
  cv_.notify_all();
}

void FfnLab::set_speed(int steps_per_s) {
  std::lock_guard lk(mu_);
  speed_ = std::max(0, steps_per_s);
}

void FfnLab::set_step_budget(int steps) {
  std::lock_guard lk(mu_);
  step_budget_ = std::max(0, steps);
  cv_.notify_all();
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
#ifdef GELU_NO_THREADS
  for (;;) {
    {
      std::lock_guard lk(mu_);
      if (quit_ || (pending_kind_ == 0 && queued_steps_ == 0 && !busy_)) return;
    }
    pump();
  }
#endif
  std::unique_lock lk(mu_);
  idle_cv_.wait(lk, [&] { return quit_ || (pending_kind_ == 0 && queued_steps_ == 0 && !busy_); });
}

bool FfnLab::take(LabSnapshot& out) {
  pump();  // without threads, the frame's slice of training
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
    o.trainer.reset();
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
  if (!use_gpu) s.host.release();
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
      if (use_gpu) {
        std::string why;
        o.trainer = s.host.gpu_trainer(*o.net, s.data, tc, &why);
        if (!o.trainer) {
          // "The GPU backend is unavailable (…)", "The GPU trainer could not start (…)", "This gelulab was
          // built without the GPU backend (…)".
          why[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(why[0])));
          s.notice = why + "; training runs on the CPU.";
          use_gpu = false;
        }
      }
      if (!o.trainer) o.trainer = ffn::cpu_trainer(*o.net, s.data, tc);
    } catch (const std::exception& e) {
      o.trainer.reset();
      o.net.reset();
      o.snap.error = e.what();
      s.error = std::string(i == 0 ? "net A: " : "net B: ") + e.what();
    }
  }
  if (!s.notice.empty()) std::fprintf(stderr, "gelulab: FFN lab: %s\n", s.notice.c_str());
  // One backend for both nets: when B could not start on the GPU, A moves to the CPU too.
  bool any_cpu = false;
  for (const Nets::One& o : s.n) any_cpu = any_cpu || (o.net && !o.on_gpu());
  if (any_cpu)
    for (Nets::One& o : s.n)
      if (o.on_gpu())
        o.trainer = ffn::cpu_trainer(*o.net, s.data, lab_train_config(c, s.data, o.net->spec()));
  if (any_cpu || !use_gpu) s.host.release();
  s.backend = s.host.device().empty() ? "CPU" : "GPU (" + s.host.device() + ")";
  return s.error.empty();
}

void FfnLab::publish(Nets& s, bool eval) {
  LabSnapshot out;
  for (std::size_t i = 0; i < 2; ++i) {
    Nets::One& o = s.n[i];
    if (eval && o.active()) {
      o.record_metrics();
      o.pull_weights();  // the CPU copy a lost GPU falls back to
      o.snap.layers = o.trainer->layer_stats(32);
      o.snap.grid = o.trainer->grid(s.cfg.grid, s.cfg.grid);
      o.snap.hidden.reset();
      o.snap.hidden_error.clear();
      if (s.cfg.hidden.on && o.net) {
        // The CPU copy of the weights (pull_weights above) pushed through to the chosen layer.
        const int block = std::clamp(s.cfg.hidden.layer, 1, std::max(1, o.net->hidden_blocks())) - 1;
        const int width = ffn::hidden_units(*o.net, block);
        try {
          if (width < 2)
            throw std::invalid_argument("hidden layer " + std::to_string(block + 1) + " has one unit");
          o.snap.hidden =
              ffn::hidden_space(*o.net, s.data, block, std::clamp(s.cfg.hidden.unit_x, 1, width) - 1,
                                std::clamp(s.cfg.hidden.unit_y, 1, width) - 1);
        } catch (const std::invalid_argument& e) {
          o.snap.hidden_error = e.what();
        }
      }
      if (!o.trainer->failure().empty()) o.snap.error = o.trainer->failure();
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
  int from = 0;
  for (Nets::One& o : s.n) {
    if (!o.on_gpu()) continue;
    o.trainer.reset();  // its objects die with the context; deleting them on a lost context is harmless
    o.snap.steps = o.pulled_step;
    from = o.pulled_step;
    try {
      o.trainer = ffn::cpu_trainer(*o.net, s.data, lab_train_config(s.cfg, s.data, o.net->spec()));
    } catch (const std::exception& e) {
      o.net.reset();
      s.error = std::string("the GPU failed and the CPU could not take over: ") + e.what();
    }
  }
  s.host.release();
  s.backend = "CPU";
  s.notice = "The GPU stopped: " + why + ". Training goes on on the CPU from step " + std::to_string(from) +
             " (the last weights copied back; the optimizer's moments start afresh).";
  std::fprintf(stderr, "gelulab: FFN lab: %s\n", s.notice.c_str());
}

/// What the worker carries from one pass to the next.
struct FfnLab::Worker {
  Nets s;
  Clock::time_point last_publish = Clock::now();
  bool paced = false;  // pacing of play at cfg.speed steps per second
  int pace_speed = 0;
  Clock::time_point pace_t0;
  long long pace_done = 0;
};

void FfnLab::worker() {
  Worker w;
  for (;;) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return quit_ || pending_kind_ != 0 || running_ || queued_steps_ > 0; });
    if (quit_) break;
    if (pass(w, lk) == Pass::Paced) cv_.wait_for(lk, std::chrono::milliseconds(10));
  }
  finish(w);
}

void FfnLab::finish(Worker& w) {
  idle_cv_.notify_all();
  // GPU trainers go before their context, on the thread the context is current on.
  for (Nets::One& o : w.s.n) o.trainer.reset();
  w.s.host.release();
}

FfnLab::Pass FfnLab::pass(Worker& w, std::unique_lock<std::mutex>& lk) {
  if (pending_kind_ != 0) {
    const LabConfig c = pending_;
    const bool keep = pending_kind_ == 1;
    pending_kind_ = 0;
    busy_ = true;
    lk.unlock();
    rebuild(w.s, c, keep);
    publish(w.s, true);
    w.last_publish = Clock::now();
    lk.lock();
    busy_ = false;
    idle_cv_.notify_all();
    return Pass::Done;
  }
  const bool queued = queued_steps_ > 0;
  int budget = queued ? queued_steps_ : 1 << 30;
  if (!queued && speed_ > 0) {
    // Playing at a set speed: the steps due since play started (or the speed changed), at most a second's.
    if (!w.paced || w.pace_speed != speed_) {
      w.paced = true;
      w.pace_speed = speed_;
      w.pace_t0 = Clock::now();
      w.pace_done = 0;
    }
    const double due = std::chrono::duration<double>(Clock::now() - w.pace_t0).count() * w.pace_speed;
    const long long ahead = static_cast<long long>(due) - w.pace_done;
    if (ahead <= 0) {
      return Pass::Paced;
    }
    budget = static_cast<int>(std::min<long long>(ahead, w.pace_speed));
    if (ahead > w.pace_speed)
      w.pace_done = static_cast<long long>(due) - w.pace_speed;  // no catching up after a stall
  } else if (!queued) {
    w.paced = false;
  }
  // A training budget (a lesson step's "train N steps, then pause"): playing stops at it.
  if (!queued && step_budget_ > 0) {
    const int left = step_budget_ - std::max(w.s.n[0].snap.steps, w.s.n[1].snap.steps);
    if (left <= 0) {
      running_ = false;
      w.paced = false;
      busy_ = true;
      lk.unlock();
      publish(w.s, true);  // the settled state, with running = false
      w.last_publish = Clock::now();
      lk.lock();
      busy_ = false;
      idle_cv_.notify_all();
      return Pass::Done;
    }
    budget = std::min(budget, left);
  }
  busy_ = true;
  lk.unlock();

  int done = 0;
  const Clock::time_point t0 = Clock::now();
  // Trainable while no configuration error stands and some net has not diverged.
  auto trainable_now = [&] {
    return w.s.error.empty() && w.s.n[0].active() && (w.s.n[0].trains() || w.s.n[1].trains());
  };
  const bool trainable = trainable_now();
  while (done < budget && trainable_now() && Clock::now() - t0 < kChunk) {
    for (Nets::One& o : w.s.n) {
      if (!o.trains()) continue;
      const double loss = o.step();
      if (o.on_gpu() && !o.trainer->failure().empty()) {
        fall_back_to_cpu(w.s, o.trainer->failure());
        break;  // this step did not happen; the CPU takes over from the last weights copied back
      }
      ++o.snap.steps;
      if (o.snap.steps == 1) o.snap.start_loss = loss;
      if (ffn::diverged(loss, o.snap.start_loss, ffn::kDivergedGrowth)) o.snap.diverged_at = o.snap.steps;
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
  if (done > 0 && dt > 0) w.s.steps_per_s = done / dt;

  if (!queued) w.pace_done += done;
  lk.lock();
  if (queued) queued_steps_ = std::max(0, queued_steps_ - done);
  if (!running_) w.paced = false;
  if ((!trainable || !trainable_now()) && !queued) running_ = false;  // nothing to train: stop, no spinning
  // Settled (nothing queued, not playing; also when play just stopped itself): publish this state now.
  const bool settle = queued_steps_ == 0 && !running_;
  lk.unlock();
  if (settle || Clock::now() - w.last_publish >= kPublish) {
    publish(w.s, true);
    w.last_publish = Clock::now();
  }
  lk.lock();
  busy_ = false;
  idle_cv_.notify_all();
  return Pass::Done;
}

void FfnLab::pump() {
#ifdef GELU_NO_THREADS
  if (!worker_) worker_ = std::make_unique<Worker>();
  std::unique_lock lk(mu_);
  if (quit_ || !(pending_kind_ != 0 || running_ || queued_steps_ > 0)) return;
  pass(*worker_, lk);
#endif
}

}  // namespace gelu::app
