/// Parameter and state initialization of the Trainer (train/trainer.h): zeros, and Xavier
/// (Glorot) uniform with our own generator so that a seed means the same values everywhere.
#include <cmath>

#include "rxt/support/error.h"
#include "rxt/train/random.h"
#include "rxt/train/trainer.h"

namespace rxt {
namespace {

/// Zeros of |spec|'s static shape, or an undefined tensor if its shape is not static.
Tensor ZerosOrUndefined(const TrainerTensorSpec& spec) {
  return spec.IsStatic() ? Tensor::Empty(spec.shape, spec.dtype) : Tensor();  // Empty zero-fills
}

/// PyTorch's torch.nn.init._calculate_fan_in_and_fan_out: dim 1 and dim 0, times the
/// product of the remaining dims (the receptive field of a convolution kernel).
std::pair<int64_t, int64_t> DefaultFans(const std::vector<int64_t>& shape) {
  int64_t receptive = 1;
  for (size_t d = 2; d < shape.size(); ++d) receptive *= shape[d];
  return {shape[1] * receptive, shape[0] * receptive};
}

/// A weight, as opposed to a bias: the backbone uses it as a matmul or conv2d weight (its fans
/// are known), or it has at least two dims above 1 (a bias may be (n,) or (1, n, 1, 1)).
bool IsWeight(const TrainerTensorSpec& spec) {
  if (spec.fan_in + spec.fan_out > 0) return true;
  int wide = 0;
  for (int64_t d : spec.shape) wide += d > 1;
  return wide >= 2;
}

}  // namespace

void Trainer::ZeroInitParams() {
  for (int i = 0; i < param_num(); ++i) params_[i] = ZerosOrUndefined(program_.params[i]);
}

void Trainer::ZeroInitStates() {
  for (int i = 0; i < state_num(); ++i) states_[i] = ZerosOrUndefined(program_.states[i]);
}

void Trainer::InitXavierUniform(uint64_t seed) {
  for (const TrainerTensorSpec& spec : program_.params) {
    if (!spec.IsStatic()) {
      Throw(ErrorCode::kFailedPrecondition, "trainer: Xavier initialization needs static shapes; parameter '",
            spec.name, "' is ", spec.TypeText());
    }
  }
  Random rng(seed);
  std::vector<Tensor> values;
  for (const TrainerTensorSpec& spec : program_.params) {
    Tensor t = Tensor::Empty(spec.shape, spec.dtype);
    if (IsWeight(spec)) {
      auto [fan_in, fan_out] = spec.fan_in + spec.fan_out > 0 ? std::pair(spec.fan_in, spec.fan_out)
                                                               : DefaultFans(spec.shape);
      double bound = fan_in + fan_out > 0 ? std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)) : 0.0;
      for (int64_t i = 0; i < t.numel(); ++i) t.SetFromDouble(i, (2.0 * rng.NextDouble() - 1.0) * bound);
    }
    values.push_back(std::move(t));
  }
  params_ = std::move(values);
}

}  // namespace rxt
