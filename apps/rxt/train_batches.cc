// Batches and test accuracy for `rxt train` (train_batches.h).
#include "train_batches.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt::cli {

DataLayout MatchModelToData(const TrainerProgram& program, int64_t batch_size, const LabeledSet& data) {
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
          "; rxt train feeds float32 samples, batch first");
  }
  if (input.shape[0] >= 0 && input.shape[0] != batch_size) {
    Throw(ErrorCode::kInvalidArgument, "--batch-size ", batch_size, " does not fit the model: its input %", input.name,
          " is ", input.TypeText(), " (pass --batch-size ", input.shape[0], ", or give the model a symbolic batch dim)");
  }
  layout.input_shape = input.shape;
  layout.input_shape[0] = batch_size;
  int64_t values = 1;
  for (size_t d = 1; d < input.shape.size(); ++d) values = input.shape[d] < 0 ? -1 : values * input.shape[d];
  if (values != data.features) {
    Throw(ErrorCode::kInvalidArgument, "the model's input %", input.name, " is ", input.TypeText(), "; a sample has ",
          data.features, " values",
          data.values.empty() ? " (a Fashion-MNIST image: (B, 784), (B, 1, 28, 28) or (B, 28, 28, 1))" : "");
  }
  layout.target_dtype = target.dtype;
  layout.classes = target.ndim == 2 && target.shape[1] > 0 ? target.shape[1] : data.num_classes;
  bool indices = IsInt(target.dtype) && target.ndim == 1;
  bool one_hot = IsFloat(target.dtype) && target.ndim == 2 && layout.classes >= data.num_classes;
  if (!indices && !one_hot) {
    Throw(ErrorCode::kInvalidArgument, "the loss's target %", target.name, " is ", target.TypeText(),
          "; rxt train gives class indices (int, (B,)) or one-hot rows (float, (B, ", data.num_classes, "))");
  }
  layout.one_hot = one_hot;
  return layout;
}

void FillInputBatch(const LabeledSet& set, std::span<const int64_t> samples, int64_t batch, float* out) {
  // A table of the 256 values: the same numbers as dividing each byte, at the cost of a copy.
  static const std::array<float, 256> kValues = [] {
    std::array<float, 256> values{};
    for (int b = 0; b < 256; ++b) values[b] = PixelValue(static_cast<uint8_t>(b));
    return values;
  }();
  const int64_t n = set.features;
  for (size_t i = 0; i < samples.size(); ++i) {
    float* row = out + i * n;
    if (!set.values.empty()) {
      std::copy_n(set.values.data() + samples[i] * n, n, row);
      continue;
    }
    const uint8_t* in = set.pixels.data() + samples[i] * n;
    for (int64_t k = 0; k < n; ++k) row[k] = kValues[in[k]];
  }
  std::fill(out + samples.size() * n, out + batch * n, 0.0f);  // padding rows
}

Tensor InputBatch(const DataLayout& layout, const LabeledSet& set, std::span<const int64_t> samples) {
  Tensor x = Tensor::Empty(layout.input_shape, DType::kFloat32);
  FillInputBatch(set, samples, layout.batch, x.data_as<float>());
  return x;
}

Tensor TargetBatch(const DataLayout& layout, const LabeledSet& set, std::span<const int64_t> samples) {
  if (layout.one_hot) {
    Tensor y = Tensor::Empty({layout.batch, layout.classes}, layout.target_dtype);
    for (size_t i = 0; i < samples.size(); ++i) {
      y.SetFromDouble(static_cast<int64_t>(i) * layout.classes + set.labels[samples[i]], 1.0);
    }
    return y;
  }
  Tensor y = Tensor::Empty({layout.batch}, layout.target_dtype);
  for (size_t i = 0; i < samples.size(); ++i) {
    y.SetFromDouble(static_cast<int64_t>(i), static_cast<double>(set.labels[samples[i]]));
  }
  return y;
}

double TestAccuracy(Trainer& trainer, const DataLayout& layout, const LabeledSet& set) {
  std::vector<int64_t> order(set.count);
  std::iota(order.begin(), order.end(), 0);
  int64_t correct = 0;
  for (int64_t start = 0; start < set.count; start += layout.batch) {
    int64_t rows = std::min(layout.batch, set.count - start);
    std::span<const int64_t> samples(order.data() + start, static_cast<size_t>(rows));
    Tensor scores = trainer.Predict({InputBatch(layout, set, samples)})[0];
    if (scores.ndim() != 2 || scores.shape()[0] != layout.batch || scores.shape()[1] < set.num_classes) {
      Throw(ErrorCode::kInvalidArgument, "the model's output is ", DTypeName(scores.dtype()), " ",
            ShapeText(scores.shape().data(), scores.shape().size()), "; rxt train needs (", layout.batch, ", ",
            set.num_classes, ") class scores (the labels go up to ", set.num_classes - 1, ")");
    }
    const int64_t classes = scores.shape()[1];
    for (int64_t i = 0; i < rows; ++i) {
      int64_t best = 0;
      for (int64_t c = 1; c < classes; ++c) {
        if (scores.GetAsDouble(i * classes + c) > scores.GetAsDouble(i * classes + best)) best = c;
      }
      correct += best == set.labels[start + i];
    }
  }
  return set.count > 0 ? static_cast<double>(correct) / static_cast<double>(set.count) : 0;
}

}  // namespace rxt::cli
