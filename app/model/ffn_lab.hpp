// The FFN lab's model (no ImGui): the user's configuration, the dataset with the points they added or
// removed, and two networks (A and B) with identical initialization trained side by side on a worker
// thread. The UI reads double-buffered snapshots (losses, accuracies, per-layer statistics, decision grids)
// and sends commands (play, pause, step, reset, reconfigure); neither side ever waits for a training step.
//
// Backends: the CPU trainer (gelu::ffn::Trainer<float>) or, in builds with gelu::gpu, gpu::FfnTrainer on
// a headless GL context that the worker thread creates and owns (a context is current on one thread only,
// and the window's context belongs to the UI thread).
#pragma once

#include <array>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/train.hpp"
#include "gelu/json.hpp"
#include "model/threads.hpp"

namespace gelu::app {

/// A user's edit of the dataset, replayed in order on the generated points (so a saved session restores
/// them).
struct PointEdit {
  bool add = true;  // false: remove the training point nearest to (x, y)
  double x = 0, y = 0;
  int label = 0;
};

/// Adds (to the training set) or removes (the nearest training point within `radius`) one point.
/// Returns false when a removal finds no point that close.
bool apply_point_edit(ffn::Dataset& d, const PointEdit& e, double radius = 1e-9);

/// One of the two networks: its own activation per hidden layer, GLU variant and stochastic flag. The
/// architecture (widths, GLU on/off) is shared, so both start from the same weights.
struct NetChoice {
  std::vector<std::string> activations{"gelu", "gelu"};  // registry ids, one per hidden layer
  ffn::GluKind glu_kind = ffn::GluKind::GeGlu;           // used when LabConfig::glu is on
  bool stochastic = false;                               // stochastic GELU on the gelu layers
  bool operator==(const NetChoice&) const = default;
};

struct LabConfig {
  ffn::DatasetOptions data{"xor", 400, -1.0, 0.25, 2, 1};
  std::vector<PointEdit> edits;
  std::vector<int> widths{16, 16};
  bool glu = false;
  std::array<NetChoice, 2> nets{NetChoice{{"relu", "relu"}, ffn::GluKind::ReGlu, false},
                                NetChoice{{"gelu", "gelu"}, ffn::GluKind::GeGlu, false}};
  bool ab = true;  // train B beside A
  ffn::OptimizerKind optimizer = ffn::OptimizerKind::Adam;
  double lr = 0.03;
  int batch = 64;
  std::uint64_t init_seed = 7;  // same for A and B: identical initial weights
  bool gpu = false;
  int grid = 96;        // decision grid resolution (grid × grid)
  int speed = 200;      // training steps per second while playing (0: as fast as the machine goes)
  int step_budget = 0;  // playing pauses once a net has trained this many steps (0: it never does)
  // The hidden-space view: the input plane pushed through each net to hidden layer `layer`, drawn in the
  // coordinates of two of its units (1-based; clamped to the layers and units there are).
  struct Hidden {
    bool on = false;
    int layer = 1, unit_x = 1, unit_y = 2;
    bool operator==(const Hidden&) const = default;
  } hidden;

  /// The network spec of net i (0 = A, 1 = B); throws ffn::SpecError when invalid.
  ffn::NetworkSpec spec(int i, const ffn::Dataset& d) const;
};

/// Everything the UI shows about one network, as of one moment of training.
struct NetSnapshot {
  int steps = 0;
  std::vector<double> loss_steps, batch_loss;  // every step (thinned to <= 4000 points)
  std::vector<double> eval_steps, train_loss, test_loss, train_acc, test_acc;
  std::vector<ffn::LayerStats> layers;
  ffn::GridOutput grid;
  std::optional<ffn::HiddenSpace> hidden;  // LabConfig::hidden, when on
  std::string hidden_error;                // why there is none (a 1-input dataset, a layer of one unit)
  std::string error;
  /// The step at which this net diverged (0: it has not): its loss became non-finite or grew past
  /// ffn::kDivergedGrowth × its first step's loss. A diverged net trains no more until Reset; the other goes
  /// on.
  int diverged_at = 0;
  double start_loss = NAN;  // the first step's batch loss (the divergence rule's reference)
};

struct LabSnapshot {
  std::uint64_t version = 0;  // increases with every publication
  std::array<NetSnapshot, 2> nets;
  bool ab = true;
  ffn::Dataset data;
  bool running = false;
  std::string backend;  // "CPU" or the GPU renderer
  std::string error;    // configuration or backend problem (training stops)
  std::string notice;   // something the user should know that did not stop training (a GPU lost mid-run)
  double steps_per_s = 0;
};

class FfnLab {
 public:
  FfnLab();
  ~FfnLab();  // stops and joins the worker
  FfnLab(const FfnLab&) = delete;
  FfnLab& operator=(const FfnLab&) = delete;

  /// Rebuilds everything from `c` with fresh weights (the Reset button, a new dataset or architecture).
  void reset(const LabConfig& c);
  /// Applies `c` keeping the current weights (learning rate, optimizer, activations, stochastic flag, point
  /// edits): the networks are rebuilt with the new spec and their parameters copied over.
  void reconfigure(const LabConfig& c);
  void set_running(bool on);
  /// Training speed while playing, in steps per second (0: unthrottled); takes effect at once.
  void set_speed(int steps_per_s);
  /// Playing pauses once a net has trained `steps` steps (0: never); takes effect at once.
  void set_step_budget(int steps);
  /// Queues `n` training steps (runs even while paused).
  void step(int n);
  /// Blocks until the queued steps are done and a snapshot of them is published (for shots and tests).
  void wait_idle();

  /// Copies the latest snapshot into `out` when it is newer than out.version; returns whether it did.
  bool take(LabSnapshot& out);
  bool running() const;

 private:
  struct Nets;
  struct Worker;
  enum class Pass { Done, Paced };  // Paced: playing is ahead of its speed, wait ~10 ms
  void worker();
  /// One pass of the worker's loop, with mu_ held by `lk` on entry (it unlocks while it trains).
  Pass pass(Worker& w, std::unique_lock<std::mutex>& lk);
  void finish(Worker& w);
  /// Without threads (GELU_NO_THREADS): one pass on the caller's thread when there is work.
  void pump();
  void publish(Nets& n, bool eval);
  bool rebuild(Nets& n, const LabConfig& c, bool keep_weights);
  /// The GPU failed mid-run (context lost, a kernel error): both nets go on training on the CPU from the
  /// weights last copied back from the device (at most one publication, ~80 ms, old).
  void fall_back_to_cpu(Nets& n,
                        std::string why);  // by value: `why` is often the failed trainer's own error()

  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  LabConfig pending_;
  int pending_kind_ = 0;  // 0 none, 1 reconfigure, 2 reset
  bool running_ = false, quit_ = false, busy_ = false;
  int queued_steps_ = 0;
  int speed_ = 200;
  int step_budget_ = 0;
  std::uint64_t published_ = 0;
  LabSnapshot front_;  // the latest published snapshot (guarded by mu_)
  std::thread thread_;
  std::unique_ptr<Worker> worker_;  // GELU_NO_THREADS: the worker's state between frames
};

}  // namespace gelu::app
