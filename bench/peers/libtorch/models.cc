#include "models.h"

namespace peer {
namespace {

namespace F = torch::nn::functional;

class Mlp : public Classifier {
 public:
  Mlp() {
    // Created in this order so that the seeded generator gives every peer the same weights.
    hidden1_ = register_module("fc1", torch::nn::Linear(784, 128));
    hidden2_ = register_module("fc2", torch::nn::Linear(128, 128));
    output_ = register_module("fc3", torch::nn::Linear(128, 10));
    torch::NoGradGuard no_grad;
    for (torch::nn::Linear* layer : {&hidden1_, &hidden2_, &output_}) {
      torch::nn::init::xavier_uniform_((*layer)->weight);
      torch::nn::init::zeros_((*layer)->bias);
    }
  }
  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(hidden1_(x));
    x = torch::relu(hidden2_(x));
    return output_(x);
  }

 private:
  torch::nn::Linear hidden1_{nullptr}, hidden2_{nullptr}, output_{nullptr};
};

class LeNet5 : public Classifier {
 public:
  LeNet5() {
    conv1_ = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 6, 5).padding(2)));
    conv2_ = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(6, 16, 5)));
    fc1_ = register_module("fc1", torch::nn::Linear(400, 120));
    fc2_ = register_module("fc2", torch::nn::Linear(120, 84));
    fc3_ = register_module("fc3", torch::nn::Linear(84, 10));
  }
  torch::Tensor forward(torch::Tensor x) override {
    const auto pool = F::MaxPool2dFuncOptions(2);
    x = F::max_pool2d(torch::relu(conv1_(x)), pool);  // [N, 6, 14, 14]
    x = F::max_pool2d(torch::relu(conv2_(x)), pool);  // [N, 16, 5, 5]
    x = x.flatten(1);
    x = torch::relu(fc1_(x));
    x = torch::relu(fc2_(x));
    return fc3_(x);
  }
  torch::Tensor Reshape(torch::Tensor flat_images) const override { return flat_images.view({-1, 1, 28, 28}); }

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr}, fc3_{nullptr};
};

}  // namespace

std::shared_ptr<Classifier> MakeMlp() { return std::make_shared<Mlp>(); }
std::shared_ptr<Classifier> MakeLeNet5() { return std::make_shared<LeNet5>(); }

}  // namespace peer
