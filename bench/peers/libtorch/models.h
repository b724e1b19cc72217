// The two benchmark models, as rxt defines them (examples/mlp.rxt, examples/lenet.rxt).
#pragma once

#include <torch/torch.h>

#include <memory>

namespace peer {

/// A model mapping a batch of images to class logits [batch, 10].
class Classifier : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor images) = 0;
  /// The shape a batch of flat [N, 784] images must take first.
  virtual torch::Tensor Reshape(torch::Tensor flat_images) const { return flat_images; }
};

/// The seed MLP 784-128-128-10 with ReLU; Xavier-uniform weights, zero biases.
std::shared_ptr<Classifier> MakeMlp();

/// LeNet-5: conv 1->6 5x5 (pad 2), ReLU, max pool 2, conv 6->16 5x5, ReLU, max pool 2,
/// 400->120->84->10 with ReLU; libtorch's default initialization.
std::shared_ptr<Classifier> MakeLeNet5();

}  // namespace peer
