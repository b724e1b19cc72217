#include "inference.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "models.h"

namespace peer {

void TimeInference(const PeerOptions& options, JsonObject& result) {
  using Clock = std::chrono::steady_clock;
  constexpr int kWarmupCalls = 200;
  std::shared_ptr<Classifier> model = MakeMlp();
  model->eval();
  for (int batch : {64, 1}) {
    torch::Tensor input = torch::rand({batch, 784});
    c10::InferenceMode inference_only;
    for (int i = 0; i < kWarmupCalls; ++i) model->forward(input);
    std::vector<double> us;
    us.reserve(options.infer_iters);
    for (int i = 0; i < options.infer_iters; ++i) {
      const auto start = Clock::now();
      torch::Tensor logits = model->forward(input);
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    const double median = Median(us), fastest = *std::min_element(us.begin(), us.end());
    std::printf("inference batch %d: median %.1f us  min %.1f us\n", batch, median, fastest);
    const std::string prefix = "infer_b" + std::to_string(batch);
    result.Add(prefix + "_median_us", median).Add(prefix + "_min_us", fastest);
  }
}

}  // namespace peer
