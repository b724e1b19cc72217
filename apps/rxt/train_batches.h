// How `rxt train` feeds a labeled set (Fashion-MNIST, or the arrays of --train-data) to a
// model: which of its arguments take the samples and the labels, batches in a given order, and
// the test accuracy.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fashion_mnist.h"
#include "rxt/train/trainer.h"

namespace rxt::cli {

/// The model's side of the data: one float32 input of batch x the sample's values in any shape
/// (Fashion-MNIST: (B, 784), (B, 1, 28, 28), (B, 28, 28, 1)), one target of class indices (int,
/// (B,)) or one-hot rows (float, (B, classes)), and a first output of (B, classes) scores.
struct DataLayout {
  int64_t batch = 0;
  std::vector<int64_t> input_shape;
  DType target_dtype = DType::kInt64;
  bool one_hot = false;
  int64_t classes = kNumClasses;  // the width of one-hot rows
};

/// Checks |program| against |data| (its samples' size and classes) and |batch_size|;
/// kInvalidArgument saying what does not fit (a static batch dim other than |batch_size|, an
/// input that is not one sample's values, one-hot rows of another width...).
DataLayout MatchModelToData(const TrainerProgram& program, int64_t batch_size, const LabeledSet& data);

/// The images of |samples| (at most layout.batch; the rest of the batch is zeros), as float32.
Tensor InputBatch(const DataLayout& layout, const LabeledSet& set, std::span<const int64_t> samples);
/// The same, written into |out| (batch x set.features floats): for callers that reuse a buffer.
void FillInputBatch(const LabeledSet& set, std::span<const int64_t> samples, int64_t batch, float* out);
/// Their labels as the model's targets (padding rows: class 0).
Tensor TargetBatch(const DataLayout& layout, const LabeledSet& set, std::span<const int64_t> samples);

/// The fraction of |set| whose highest score is its label (the last partial batch is padded
/// and only its real rows count).
double TestAccuracy(Trainer& trainer, const DataLayout& layout, const LabeledSet& set);

}  // namespace rxt::cli
