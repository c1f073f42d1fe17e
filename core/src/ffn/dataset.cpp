#include "gelu/ffn/dataset.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "gelu/activation.hpp"
#include "gelu/ffn/rng.hpp"

namespace gelu::ffn {
namespace {

constexpr double kPi = 3.14159265358979323846;

constexpr std::array<DatasetInfo, 10> kDatasets{{
    {"sin", Task::Regression, 1, 0.05, "y = sin(x) on [-3, 3]"},
    {"abs", Task::Regression, 1, 0.05, "y = |x| on [-3, 3]"},
    {"step", Task::Regression, 1, 0.05, "y = 1 for x > 0, else 0, on [-3, 3]"},
    {"gelu", Task::Regression, 1, 0.05, "y = GELU(x) on [-3, 3]: can a network learn its own activation?"},
    {"circle", Task::Classification, 2, 0.08, "an inner ring (r = 0.5) inside an outer ring (r = 1)"},
    {"xor", Task::Classification, 2, 0.05, "points in [-1, 1]^2 labelled by the sign of x*y"},
    {"gaussians", Task::Classification, 2, 0.25, "Gaussian blobs on a circle of radius 0.6 (one per class)"},
    {"spiral", Task::Classification, 2, 0.05,
     "interleaved spiral arms (1.5 turns, radius 0..1), one per class, points uniform along each arm"},
    {"moons", Task::Classification, 2, 0.1, "two interleaving half circles"},
    {"checkerboard", Task::Classification, 2, 0.02, "a 4 x 4 checkerboard on [-1, 1]^2"},
}};

void set_box(Dataset& d, double lo, double hi) {
  d.lo[0] = d.lo[1] = lo;
  d.hi[0] = d.hi[1] = hi;
}

}  // namespace

std::span<const DatasetInfo> datasets() {
  return kDatasets;
}

const DatasetInfo* find_dataset(std::string_view id) {
  for (const DatasetInfo& d : kDatasets)
    if (id == d.id) return &d;
  return nullptr;
}

std::string dataset_ids() {
  std::string s;
  for (const DatasetInfo& d : kDatasets) {
    if (!s.empty()) s += ", ";
    s += d.id;
  }
  return s;
}

namespace {

// The checks, the fields and the split of make_dataset; no points.
Dataset outline(const DatasetOptions& o, int* n_train, int* n_test) {
  const DatasetInfo* info = find_dataset(o.id);
  if (!info) throw std::invalid_argument("unknown dataset '" + o.id + "' (one of " + dataset_ids() + ")");
  if (o.samples < 4 || o.samples > 10'000'000)
    throw std::invalid_argument("samples must be in [4, 10000000], got " + std::to_string(o.samples));
  if (!(o.test_fraction > 0.0 && o.test_fraction < 1.0))
    throw std::invalid_argument("test fraction must be in (0, 1)");
  if (!(o.noise < 0.0 || (std::isfinite(o.noise) && o.noise <= 10.0)))
    throw std::invalid_argument("noise must be in [0, 10]");
  const bool multi = o.id == "spiral" || o.id == "gaussians";
  if (o.classes != 2 && !(multi && o.classes >= 2 && o.classes <= 8))
    throw std::invalid_argument(multi ? "classes must be in [2, 8]"
                                      : "dataset '" + o.id +
                                            "' has 2 classes; only spiral and gaussians take more");

  Dataset d;
  d.id = o.id;
  d.task = info->task;
  d.inputs = info->inputs;
  d.classes = info->task == Task::Classification ? o.classes : 0;
  d.noise = o.noise < 0.0 ? info->default_noise : o.noise;
  if (info->task == Task::Regression)
    set_box(d, -3.0, 3.0);
  else
    set_box(d, -1.5, 1.5);
  *n_test = std::clamp(static_cast<int>(std::lround(o.samples * o.test_fraction)), 1, o.samples - 1);
  *n_train = o.samples - *n_test;
  return d;
}

}  // namespace

Dataset dataset_outline(const DatasetOptions& o) {
  int n_train = 0, n_test = 0;
  Dataset d = outline(o, &n_train, &n_test);
  d.x_train.resize(0, n_train);
  d.x_test.resize(0, n_test);
  return d;
}

Dataset make_dataset(const DatasetOptions& o) {
  int n_train = 0, n_test = 0;
  Dataset d = outline(o, &n_train, &n_test);
  const int n = o.samples;
  Rng rng(o.seed);
  Eigen::MatrixXd x(d.inputs, n);
  Eigen::RowVectorXd y(n);
  const double s = d.noise;
  const int k = d.classes;

  if (d.task == Task::Regression) {
    const Activation* g = find_activation("gelu");
    for (int i = 0; i < n; ++i) {
      const double xi = rng.uniform(-3.0, 3.0);
      double t = 0;
      if (o.id == "sin")
        t = std::sin(xi);
      else if (o.id == "abs")
        t = std::fabs(xi);
      else if (o.id == "step")
        t = xi > 0 ? 1.0 : 0.0;
      else
        t = g->eval(xi);
      x(0, i) = xi;
      y(i) = t + s * rng.normal();
    }
  } else {
    for (int i = 0; i < n; ++i) {
      double px = 0, py = 0;
      int label = i % k;  // balanced classes, interleaved so the split keeps the balance
      if (o.id == "spiral") {
        // Arc length grows like r^2, so r = sqrt(u) spreads the points evenly along each arm.
        const double r = std::sqrt(rng.uniform());
        const double theta = 2.0 * kPi * (1.5 * r + static_cast<double>(label) / k);
        px = r * std::cos(theta);
        py = r * std::sin(theta);
      } else if (o.id == "circle") {
        const double a = rng.uniform(0.0, 2.0 * kPi);
        const double r = label == 0 ? 1.0 : 0.5;
        px = r * std::cos(a);
        py = r * std::sin(a);
      } else if (o.id == "xor") {
        px = rng.uniform(-1.0, 1.0);
        py = rng.uniform(-1.0, 1.0);
        label = (px * py > 0) ? 1 : 0;
      } else if (o.id == "gaussians") {
        const double a = 2.0 * kPi * label / k + kPi / 4;
        px = 0.6 * std::cos(a);
        py = 0.6 * std::sin(a);
      } else if (o.id == "moons") {
        const double a = rng.uniform(0.0, kPi);
        if (label == 0) {
          px = std::cos(a);
          py = std::sin(a);
        } else {
          px = 1.0 - std::cos(a);
          py = 0.5 - std::sin(a);
        }
        px = (px - 0.5) * 0.8;  // centre the pair on the origin, inside [-1.2, 1.2]
        py = (py - 0.25) * 0.8;
      } else {  // checkerboard
        px = rng.uniform(-1.0, 1.0);
        py = rng.uniform(-1.0, 1.0);
        const int cx = std::min(3, static_cast<int>((px + 1.0) * 2.0));
        const int cy = std::min(3, static_cast<int>((py + 1.0) * 2.0));
        label = (cx + cy) % 2;
      }
      x(0, i) = px + s * rng.normal();
      x(1, i) = py + s * rng.normal();
      y(i) = label;
    }
  }
  d.x_train = x.leftCols(n_train);
  d.x_test = x.rightCols(n_test);
  d.y_train = y.leftCols(n_train);
  d.y_test = y.rightCols(n_test);
  return d;
}

}  // namespace gelu::ffn
