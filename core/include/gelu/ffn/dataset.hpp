// [SECTION] Toy datasets for the tiny-network lessons: 1-D regression and 2-D classification.
//
// Every dataset is generated from a seed (same seed, same points, on every platform), has a noise level
// and is split into train and test sets. Inputs are stored column-wise (features x samples), as the
// networks consume them.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gelu::ffn {

enum class Task { Regression, Classification };

struct DatasetInfo {
  const char* id;  // "spiral"
  Task task;
  int inputs;            // 1 or 2
  double default_noise;  // in input units (classification) or target units (regression)
  const char* description;
};

/// All datasets, in display order.
std::span<const DatasetInfo> datasets();
const DatasetInfo* find_dataset(std::string_view id);
std::string dataset_ids();

struct DatasetOptions {
  std::string id = "spiral";
  int samples = 1000;           // train + test
  double noise = -1.0;          // < 0: the dataset's default
  double test_fraction = 0.25;  // in (0, 1)
  int classes = 2;              // spiral arms / gaussian blobs (2..8); other datasets are 2-class
  std::uint64_t seed = 1;
};

struct Dataset {
  std::string id;
  Task task = Task::Classification;
  int inputs = 2;
  int classes = 0;  // 0 for regression
  double noise = 0.0;
  Eigen::MatrixXd x_train, x_test;        // inputs x n
  Eigen::RowVectorXd y_train, y_test;     // regression targets, or class labels 0..classes-1
  double lo[2] = {0, 0}, hi[2] = {0, 0};  // input box for plots and decision heatmaps
};

/// Throws std::invalid_argument for an unknown id or options out of range (message names the problem).
Dataset make_dataset(const DatasetOptions& options);
/// make_dataset's checks and description without generating a point, in O(1): every field but the data;
/// x_train and x_test are 0 x n with the split's column counts, y_train and y_test are empty. For checking
/// options against a dataset (gelulab train in validate-only mode) where 10 million points take seconds.
Dataset dataset_outline(const DatasetOptions& options);

}  // namespace gelu::ffn
