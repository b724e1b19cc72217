// Each epoch shuffles the training set (seeded randperm) into a contiguous copy: inside the
// epoch timer, outside the step timer. A step is zero_grad + forward + cross entropy +
// backward + SGD step on the next contiguous batch; the last incomplete batch is dropped (937
// steps per epoch at batch 64). The loss is read back only every 100 steps, as reading it
// synchronizes.
#include "training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace peer {
namespace {

using Clock = std::chrono::steady_clock;
namespace F = torch::nn::functional;

// The first steps warm caches and allocators: the step statistics leave them out.
constexpr size_t kWarmupSteps = 50;
constexpr int64_t kEvalBatch = 1000;
constexpr int64_t kLossEvery = 100;

double TestAccuracy(Classifier& model, const FashionMnist& data) {
  torch::NoGradGuard no_grad;
  model.eval();
  int64_t correct = 0;
  const int64_t n = data.test_images.size(0);
  for (int64_t start = 0; start < n; start += kEvalBatch) {
    torch::Tensor images = model.Reshape(data.test_images.slice(0, start, start + kEvalBatch));
    torch::Tensor labels = data.test_labels.slice(0, start, start + kEvalBatch);
    correct += model.forward(images).argmax(1).eq(labels).sum().item<int64_t>();
  }
  model.train();
  return static_cast<double>(correct) / static_cast<double>(n);
}

}  // namespace

void Train(Classifier& model, torch::optim::Optimizer& optimizer, const FashionMnist& data,
           const PeerOptions& options, JsonObject& result) {
  const int64_t batch = options.batch;
  const int64_t steps = data.train_images.size(0) / batch;
  auto loss_options = F::CrossEntropyFuncOptions();
  if (options.reduction == "sum") loss_options.reduction(torch::kSum);
  else loss_options.reduction(torch::kMean);
  torch::Generator shuffle = at::detail::createCPUGenerator(options.seed);
  std::vector<double> step_ms, epoch_s, accuracies;
  bool diverged = false;
  torch::Tensor images, labels;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    torch::Tensor order = torch::randperm(data.train_images.size(0), shuffle, torch::kInt64);
    images = labels = torch::Tensor();  // free the last epoch's copy before making this one
    images = model.Reshape(data.train_images.index_select(0, order));
    labels = data.train_labels.index_select(0, order);
    double logged_loss = 0;
    for (int64_t step = 0; step < steps; ++step) {
      const auto step_start = Clock::now();
      torch::Tensor x = images.slice(0, step * batch, (step + 1) * batch);
      torch::Tensor y = labels.slice(0, step * batch, (step + 1) * batch);
      optimizer.zero_grad();  // libtorch 1.13 zeroes the gradients in place
      torch::Tensor loss = F::cross_entropy(model.forward(x), y, loss_options);
      loss.backward();
      optimizer.step();
      step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - step_start).count());
      if (step % kLossEvery == 0) logged_loss = loss.item<double>();
    }
    epoch_s.push_back(std::chrono::duration<double>(Clock::now() - epoch_start).count());
    accuracies.push_back(TestAccuracy(model, data));
    diverged = diverged || !std::isfinite(logged_loss);
    std::printf("epoch %d: train_time %.3fs  last_logged_loss %.4f  test_acc %.4f\n", epoch, epoch_s.back(),
                logged_loss, accuracies.back());
    std::fflush(stdout);
  }
  std::vector<double> steady(step_ms.begin() + std::min(kWarmupSteps, step_ms.size()), step_ms.end());
  const double best = *std::max_element(accuracies.begin(), accuracies.end());
  result.Add("steps_per_epoch", static_cast<double>(steps))
      .Add("step_median_ms", Median(steady))
      .Add("step_mean_ms", Mean(steady))
      .Add("step_p10_ms", Percentile(steady, 10))
      .Add("step_p90_ms", Percentile(steady, 90))
      .Add("epoch_s", epoch_s)
      .Add("epoch_median_s", Median(epoch_s))
      .Add("test_acc", accuracies)
      .Add("final_test_acc", accuracies.back())
      // diverged: a logged loss became inf or NaN; collapsed: the final accuracy fell more
      // than 10 points below the best epoch's.
      .AddBool("diverged", diverged)
      .AddBool("collapsed", accuracies.back() < best - 0.10);
}

}  // namespace peer
