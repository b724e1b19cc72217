// Signal-processing generators whose inputs are all sizes and scalars: HannWindow,
// HammingWindow, BlackmanWindow and MelWeightMatrix. Their results are constants computed here
// (by ONNX's formulas, in float64, rounded once to the output type); their inputs must be known
// at import time.
#include <cmath>
#include <numbers>

#include "convert_util.h"
#include "converters.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

/// A constant of ONNX type |dtype| holding |values| with |shape|; a failure for a non-float type.
Constant FloatConstant(NodeContext& ctx, int dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  Constant c;
  c.dtype = dtype;
  c.shape = std::move(shape);
  if (RxtDType(dtype) == nullptr) ctx.unsupported(ctx.op() + " with output_datatype " + std::to_string(dtype));
  if (c.is_float()) {
    for (double v : values) c.floats.push_back(RoundToType(v, dtype));
  } else {
    for (double v : values) c.ints.push_back(WrapToType(static_cast<int64_t>(v), dtype));
  }
  return c;
}

/// The generalized cosine window sum_k a_k cos(2 pi k n / N): N = size (periodic) or size - 1.
void CosineWindow(NodeContext& ctx, const std::vector<double>& coefficients) {
  const double size_value = ctx.scalar(0, "size");
  if (size_value < 0 || size_value > static_cast<double>(kMaxFoldedElements)) {
    ctx.fail("size " + std::to_string(static_cast<int64_t>(size_value)) + " is out of range [0, 65536]");
  }
  const int64_t size = static_cast<int64_t>(size_value);
  const bool periodic = ctx.attr_int("periodic", 1) != 0;
  const double period = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> window(size);
  for (int64_t n = 0; n < size; ++n) {
    double w = 0;
    for (size_t k = 0; k < coefficients.size(); ++k) {
      // A one-point symmetric window has period 0: its one value is the sum at angle 0.
      const double angle = period == 0 ? 0 : 2 * std::numbers::pi * static_cast<double>(k * n) / period;
      w += coefficients[k] * std::cos(angle);
    }
    window[n] = w;
  }
  const int dtype = static_cast<int>(ctx.attr_int("output_datatype", onnx::TensorProto::FLOAT));
  ctx.set_output_constant(0, FloatConstant(ctx, dtype, {size}, window));
}

void HannWindow(NodeContext& ctx) { CosineWindow(ctx, {0.5, -0.5}); }
void HammingWindow(NodeContext& ctx) { CosineWindow(ctx, {25.0 / 46.0, -(1 - 25.0 / 46.0)}); }
void BlackmanWindow(NodeContext& ctx) { CosineWindow(ctx, {0.42, -0.5, 0.08}); }

/// Triangular filters evenly spaced on the mel scale (ONNX's MelWeightMatrix): a
/// (dft_length / 2 + 1, num_mel_bins) matrix.
void MelWeightMatrix(NodeContext& ctx) {
  const double bins_value = ctx.scalar(0, "num_mel_bins"), length_value = ctx.scalar(1, "dft_length");
  const double rate = ctx.scalar(2, "sample_rate");
  const double lower = ctx.scalar(3, "lower_edge_hertz"), upper = ctx.scalar(4, "upper_edge_hertz");
  if (bins_value < 1 || length_value < 1 || rate <= 0) ctx.fail("num_mel_bins, dft_length and sample_rate must be positive");
  const int64_t bins = static_cast<int64_t>(bins_value), length = static_cast<int64_t>(length_value);
  const int64_t spectrum = length / 2 + 1;
  if (static_cast<double>(bins) * static_cast<double>(spectrum) > static_cast<double>(kMaxFoldedElements)) {
    ctx.unsupported("MelWeightMatrix of more than 65536 elements");
  }
  if (!(lower >= 0 && upper > lower)) ctx.fail("the edges must satisfy 0 <= lower_edge_hertz < upper_edge_hertz");
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double low_mel = mel(lower), step = (mel(upper) - low_mel) / static_cast<double>(bins + 2);
  std::vector<int64_t> edges(bins + 2);
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595) - 1);
    edges[i] = static_cast<int64_t>(std::floor(static_cast<double>(length + 1) * hz / rate));
  }
  std::vector<double> weights(spectrum * bins, 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spectrum) ctx.fail("a filter edge falls outside the spectrum (bin " + std::to_string(j) + ")");
    return weights[j * bins + i];
  };
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left) {
      at(center, i) = 1;
    } else {
      for (int64_t j = left; j <= center; ++j) at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    for (int64_t j = center; j < right; ++j) at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  const int dtype = static_cast<int>(ctx.attr_int("output_datatype", onnx::TensorProto::FLOAT));
  ctx.set_output_constant(0, FloatConstant(ctx, dtype, {spectrum, bins}, weights));
}

}  // namespace

void AddSignalConverters(ConverterMap& map) {
  map["HannWindow"] = &HannWindow;
  map["HammingWindow"] = &HammingWindow;
  map["BlackmanWindow"] = &BlackmanWindow;
  map["MelWeightMatrix"] = &MelWeightMatrix;
}

}  // namespace rxt::import_onnx
