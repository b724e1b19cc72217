// The libtorch peer of bench/onnx.sh: a TorchScript model (bench/onnx_models.py scripts the
// same PyTorch module the .onnx fixture is exported from) trained or run with Debian's libtorch
// on random data: the same batch, data, optimizer and loss as rxt's bench/onnx_bench.cc.
//
//   libtorch_script --script MODEL.pt --input-shape 3,32,32 --mode train|infer [--batch 32]
//                   [--threads 1] [--steps 30] [--warmup 5] [--lr 0.01] [--seed 0]
//
// train: SGD with momentum 0.9, mean cross entropy over 10 classes, the module in training mode
// (BatchNorm on batch statistics); a step is forward, backward and the update. infer: the module
// in eval mode under InferenceMode. Prints one line "RESULT {json}" with the per-step times.
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "measurements.h"

namespace {

struct Options {
  std::string script, mode = "train";
  std::vector<int64_t> input_shape;
  int batch = 32, threads = 1, steps = 30, warmup = 5, seed = 0;
  double lr = 0.01;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--script") o.script = value;
    else if (flag == "--mode") o.mode = value;
    else if (flag == "--batch") o.batch = std::stoi(value);
    else if (flag == "--threads") o.threads = std::stoi(value);
    else if (flag == "--steps") o.steps = std::stoi(value);
    else if (flag == "--warmup") o.warmup = std::stoi(value);
    else if (flag == "--seed") o.seed = std::stoi(value);
    else if (flag == "--lr") o.lr = std::stod(value);
    else if (flag == "--input-shape") {
      std::stringstream dims(value);
      for (std::string d; std::getline(dims, d, ',');) o.input_shape.push_back(std::stoll(d));
    } else throw std::invalid_argument("unknown flag " + flag);
  }
  if (o.script.empty() || o.input_shape.empty()) throw std::invalid_argument("--script and --input-shape are required");
  if (o.mode != "train" && o.mode != "infer") throw std::invalid_argument("--mode takes train or infer");
  return o;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = Parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libtorch_script: %s\n", e.what());
    return 2;
  }
  torch::set_num_threads(o.threads);
  torch::manual_seed(o.seed);
  peer::JsonObject result;
  result.Add("impl", "libtorch-torchscript").Add("mode", o.mode).Add("threads", torch::get_num_threads());
  try {
    const auto load_start = std::chrono::steady_clock::now();
    torch::jit::script::Module module = torch::jit::load(o.script);
    result.Add("load_s", Seconds(load_start));
    std::vector<int64_t> shape = {o.batch};
    shape.insert(shape.end(), o.input_shape.begin(), o.input_shape.end());
    torch::Tensor x = torch::randn(shape);
    torch::Tensor y = torch::randint(0, 10, {o.batch}, torch::kLong);
    std::vector<double> step_ms;
    if (o.mode == "train") {
      module.train();
      std::vector<torch::Tensor> params;
      for (const torch::Tensor& p : module.parameters()) params.push_back(p);
      torch::optim::SGD sgd(params, torch::optim::SGDOptions(o.lr).momentum(0.9));
      for (int i = 0; i < o.warmup + o.steps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        sgd.zero_grad();
        torch::Tensor logits = module.forward({x}).toTensor();
        torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y);
        loss.backward();
        sgd.step();
        if (i >= o.warmup) step_ms.push_back(Seconds(start) * 1e3);
        if (i == o.warmup + o.steps - 1) result.Add("final_loss", loss.item<double>());
      }
    } else {
      module.eval();
      c10::InferenceMode guard;
      for (int i = 0; i < o.warmup + o.steps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        torch::Tensor logits = module.forward({x}).toTensor();
        if (i >= o.warmup) step_ms.push_back(Seconds(start) * 1e3);
      }
    }
    result.Add("step_ms_median", peer::Median(step_ms)).Add("step_ms", step_ms);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libtorch_script: %s\n", e.what());
    return 1;
  }
  result.Add("peak_rss_mb", peer::PeakRssMb());
  std::printf("RESULT %s\n", result.str().c_str());
  return 0;
}
