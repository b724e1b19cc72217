// Batches and test accuracy for `rxt train` (train_batches.h).
#include "train_batches.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "rxt/support/error.h"

namespace rxt::cli {

DataLayout MatchModelToData(const TrainerProgram& program, int64_t batch_size) {
  if (program.inputs.size() != 1 || program.targets.size() != 1) {
    Throw(ErrorCode::kInvalidArgument, "the model takes ", program.inputs.size(), " inputs and ",
          program.targets.size(), " targets; rxt train feeds one input (the images) and one target (the labels)");
  }
  const TrainerTensorSpec& input = program.inputs[0];
  const TrainerTensorSpec& target = program.targets[0];
  DataLayout layout;
  layout.batch = batch_size;
  if (input.dtype != DType::kFloat32 || input.ndim < 2) {
    Throw(ErrorCode::kInvalidArgument, "the model's input %", input.name, " is ", input.TypeText(),
          "; rxt train feeds float32 images, batch first");
  }
  if (input.shape[0] >= 0 && input.shape[0] != batch_size) {
    Throw(ErrorCode::kInvalidArgument, "--batch-size ", batch_size, " does not fit the model: its input %", input.name,
          " is ", input.TypeText(), " (pass --batch-size ", input.shape[0], ", or give the model a symbolic batch dim)");
  }
  layout.input_shape = input.shape;
  layout.input_shape[0] = batch_size;
  int64_t pixels = 1;
  for (size_t d = 1; d < input.shape.size(); ++d) pixels = input.shape[d] < 0 ? -1 : pixels * input.shape[d];
  if (pixels != kImagePixels) {
    Throw(ErrorCode::kInvalidArgument, "the model's input %", input.name, " is ", input.TypeText(),
          "; a Fashion-MNIST image has 784 pixels ((B, 784), (B, 1, 28, 28) or (B, 28, 28, 1))");
  }
  layout.target_dtype = target.dtype;
  bool indices = IsInt(target.dtype) && target.ndim == 1;
  bool one_hot = IsFloat(target.dtype) && target.ndim == 2 && (target.shape[1] < 0 || target.shape[1] == kNumClasses);
  if (!indices && !one_hot) {
    Throw(ErrorCode::kInvalidArgument, "the loss's target %", target.name, " is ", target.TypeText(),
          "; rxt train gives class indices (int, (B,)) or one-hot rows (float, (B, 10))");
  }
  layout.one_hot = one_hot;
  return layout;
}

void FillInputBatch(const ImageSet& set, std::span<const int64_t> samples, int64_t batch, float* out) {
  // A table of the 256 values: the same numbers as dividing each byte, at the cost of a copy.
  static const std::array<float, 256> kValues = [] {
    std::array<float, 256> values{};
    for (int b = 0; b < 256; ++b) values[b] = PixelValue(static_cast<uint8_t>(b));
    return values;
  }();
  for (size_t i = 0; i < samples.size(); ++i) {
    const uint8_t* in = set.pixels.data() + samples[i] * kImagePixels;
    float* row = out + i * kImagePixels;
    for (int64_t k = 0; k < kImagePixels; ++k) row[k] = kValues[in[k]];
  }
  std::fill(out + samples.size() * kImagePixels, out + batch * kImagePixels, 0.0f);  // padding rows
}

Tensor InputBatch(const DataLayout& layout, const ImageSet& set, std::span<const int64_t> samples) {
  Tensor x = Tensor::Empty(layout.input_shape, DType::kFloat32);
  FillInputBatch(set, samples, layout.batch, x.data_as<float>());
  return x;
}

Tensor TargetBatch(const DataLayout& layout, const ImageSet& set, std::span<const int64_t> samples) {
  if (layout.one_hot) {
    Tensor y = Tensor::Empty({layout.batch, kNumClasses}, layout.target_dtype);
    for (size_t i = 0; i < samples.size(); ++i) {
      y.SetFromDouble(static_cast<int64_t>(i) * kNumClasses + set.labels[samples[i]], 1.0);
    }
    return y;
  }
  Tensor y = Tensor::Empty({layout.batch}, layout.target_dtype);
  for (size_t i = 0; i < samples.size(); ++i) y.SetFromDouble(static_cast<int64_t>(i), set.labels[samples[i]]);
  return y;
}

double TestAccuracy(Trainer& trainer, const DataLayout& layout, const ImageSet& set) {
  std::vector<int64_t> order(set.count);
  std::iota(order.begin(), order.end(), 0);
  int64_t correct = 0;
  for (int64_t start = 0; start < set.count; start += layout.batch) {
    int64_t rows = std::min(layout.batch, set.count - start);
    std::span<const int64_t> samples(order.data() + start, static_cast<size_t>(rows));
    Tensor scores = trainer.Predict({InputBatch(layout, set, samples)})[0];
    if (scores.ndim() != 2 || scores.shape()[0] != layout.batch || scores.shape()[1] != kNumClasses) {
      Throw(ErrorCode::kInvalidArgument, "the model's output is ", DTypeName(scores.dtype()), " with ", scores.ndim(),
            " dims; rxt train needs (batch, 10) class scores");
    }
    for (int64_t i = 0; i < rows; ++i) {
      int best = 0;
      for (int c = 1; c < kNumClasses; ++c) {
        if (scores.GetAsDouble(i * kNumClasses + c) > scores.GetAsDouble(i * kNumClasses + best)) best = c;
      }
      correct += best == set.labels[start + i];
    }
  }
  return set.count > 0 ? static_cast<double>(correct) / static_cast<double>(set.count) : 0;
}

}  // namespace rxt::cli
