// The libtorch peer of rxt's benchmarks (bench/peers/README.md): the seed MLP or LeNet-5
// trained on Fashion-MNIST, or the MLP's inference, with Debian's libtorch; the same workloads
// and RESULT fields as the PyTorch peer (../torch_mlp.py) and rxt's bench/train_bench.cc.
//
//   libtorch_mlp --model mlp --threads 1 [--reduction sum|mean] [--lr 0.01] [--weight-decay 0.01]
//                [--epochs 5] [--batch 64] [--seed 0] [--flush-denormal 1]
//   libtorch_mlp --model cnn --threads 1 [--epochs 1] [--lr 0.01]
//   libtorch_mlp --model infer --threads 1 [--infer-iters 5000]
//
// Prints progress lines, then one line "RESULT {json}".
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "fashion_mnist.h"
#include "inference.h"
#include "measurements.h"
#include "models.h"
#include "peer_options.h"
#include "training.h"

namespace {

void Run(const peer::PeerOptions& options, peer::JsonObject& result) {
  if (options.model == "infer") {
    peer::TimeInference(options, result);
    return;
  }
  const auto load_start = std::chrono::steady_clock::now();
  peer::FashionMnist data = peer::LoadFashionMnist();
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  std::printf("loaded train [%ld,%ld] test [%ld,%ld] in %.2fs; threads=%d\n", long(data.train_images.size(0)),
              long(data.train_images.size(1)), long(data.test_images.size(0)), long(data.test_images.size(1)),
              load_s, torch::get_num_threads());
  result.Add("load_s", load_s).Add("rss_after_load_mb", peer::PeakRssMb());
  if (options.model == "cnn") {
    std::shared_ptr<peer::Classifier> model = peer::MakeLeNet5();
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(options.lr).momentum(0.9));
    peer::Train(*model, sgd, data, options, result);
  } else {
    std::shared_ptr<peer::Classifier> model = peer::MakeMlp();
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(options.lr).weight_decay(options.weight_decay));
    peer::Train(*model, sgd, data, options, result);
  }
}

}  // namespace

int main(int argc, char** argv) {
  peer::PeerOptions options;
  try {
    options = peer::ParsePeerOptions(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libtorch_mlp: %s\n", e.what());
    return 2;
  }
  // Threads and seed before anything draws a random number or starts a pool.
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  if (options.flush_denormal) at::globalContext().setFlushDenormal(true);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  peer::JsonObject result;
  result.Add("impl", "libtorch-cpp")
      .Add("rss_at_start_mb", peer::CurrentRssMb())
      .Add("model", options.model)
      .Add("threads", torch::get_num_threads())
      .Add("lr", options.lr)
      .Add("reduction", options.reduction)
      .AddBool("flush_denormal", options.flush_denormal)
      .Add("OPENBLAS_CORETYPE", coretype != nullptr ? coretype : "");
  try {
    Run(options, result);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libtorch_mlp: %s\n", e.what());
    return 1;
  }
  result.Add("peak_rss_mb", peer::PeakRssMb());
  std::printf("RESULT %s\n", result.str().c_str());
  return 0;
}
