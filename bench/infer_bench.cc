// Inference benchmark of issue 3: the seed MLP (784-128-128-10, examples/mlp.rxt) forward pass at
// batch 1 and 64 and LeNet-5 (examples/lenet.rxt) at batch 64, rxt against libtorch in the same
// process with the same weights, inputs and thread count, timed alternately. Prints a table and
// "RESULT {json}"; the ratio is libtorch time / rxt time (above 1: rxt is faster).
//
//   bench/run.sh infer --threads 1        (builds in Release and sets the peer's BLAS threads)
//   bench/run.sh infer --profile 1000     (also the VM's per-kernel profile of 1000 calls each)
//   bench/run.sh infer --library none     (generated kernels only, no oneDNN)
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

#include "bench_util.h"
#include "rxt/exec/build.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/runtime/vm.h"

namespace rxt::bench {
namespace {

struct Options {
  std::string backend = "cpu";
  int threads = 1;
  int rounds = 30;
  int iters = 50;
  int profile = 0;  // after timing, print the VM profile of this many calls per workload
  std::vector<std::string> libraries;  // empty: the backend's default (cpu: dnnl)
  // --time rxt|libtorch: time one side alone in this process (bench/run.sh infer --separate
  // runs one process per side: no idle thread of the other's pools shares the cores).
  // libtorch: also checks the outputs agree; rxt: libtorch is never called.
  std::string time = "both";
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--backend") o.backend = v;
    else if (k == "--threads") o.threads = std::stoi(v);
    else if (k == "--rounds") o.rounds = std::stoi(v);
    else if (k == "--iters") o.iters = std::stoi(v);
    else if (k == "--profile") o.profile = std::stoi(v);
    else if (k == "--library") o.libraries.push_back(v);
    else if (k == "--time") o.time = v;
    else throw std::runtime_error("unknown option " + k + " (--backend, --threads, --rounds, --iters, --profile, --library, --time)");
  }
  if (o.time != "both" && o.time != "rxt" && o.time != "libtorch") {
    throw std::runtime_error("--time takes both, rxt or libtorch, not " + o.time);
  }
  return o;
}

// A float32 tensor of |shape| with values uniform in [-scale, scale), and its torch twin.
struct Param {
  Tensor rxt;
  torch::Tensor torch;
};

Param RandomParam(const std::vector<int64_t>& shape, float scale, std::mt19937& rng) {
  Param p;
  p.rxt = Tensor::Empty(shape, DType::kFloat32);
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < p.rxt.numel(); ++i) p.rxt.data_as<float>()[i] = dist(rng);
  p.torch = torch::from_blob(p.rxt.data(), shape, torch::kFloat32).clone();
  return p;
}

struct Workload {
  std::string name;
  std::string rxt_text;
  std::vector<Param> params;  // input first, as @backbone takes them
  std::function<torch::Tensor()> torch_forward;
};

std::string WithBatch(std::string text, int batch) {
  if (batch == 64) return text;
  std::string from = "(64, ", to = "(" + std::to_string(batch) + ", ";
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size()) text.replace(pos, from.size(), to);
  return text;
}

Workload Mlp(int batch, std::mt19937& rng) {
  Workload w;
  w.name = "mlp_b" + std::to_string(batch);
  w.rxt_text = WithBatch(ReadExample("mlp.rxt"), batch);
  w.params.push_back(RandomParam({batch, 784}, 1.0f, rng));
  for (auto [in, out] : {std::pair<int64_t, int64_t>{784, 128}, {128, 128}, {128, 10}}) {
    w.params.push_back(RandomParam({in, out}, 0.08f, rng));
    w.params.push_back(RandomParam({out}, 0.08f, rng));
  }
  // torch::nn::Linear keeps weights as (out, in): the same numbers, transposed.
  std::vector<torch::Tensor> t;
  for (const Param& p : w.params) t.push_back(p.torch);
  for (int i : {1, 3, 5}) t[i] = t[i].t().contiguous();
  w.torch_forward = [t] {
    namespace F = torch::nn::functional;
    auto h = torch::relu(F::linear(t[0], t[1], t[2]));
    h = torch::relu(F::linear(h, t[3], t[4]));
    return F::linear(h, t[5], t[6]);
  };
  return w;
}

Workload LeNet(std::mt19937& rng) {
  Workload w;
  w.name = "lenet_b64";
  w.rxt_text = ReadExample("lenet.rxt");
  w.params.push_back(RandomParam({64, 1, 28, 28}, 1.0f, rng));
  w.params.push_back(RandomParam({6, 1, 5, 5}, 0.2f, rng));
  w.params.push_back(RandomParam({1, 6, 1, 1}, 0.2f, rng));
  w.params.push_back(RandomParam({16, 6, 5, 5}, 0.1f, rng));
  w.params.push_back(RandomParam({1, 16, 1, 1}, 0.1f, rng));
  for (auto [in, out] : {std::pair<int64_t, int64_t>{400, 120}, {120, 84}, {84, 10}}) {
    w.params.push_back(RandomParam({in, out}, 0.1f, rng));
    w.params.push_back(RandomParam({out}, 0.1f, rng));
  }
  std::vector<torch::Tensor> t;
  for (const Param& p : w.params) t.push_back(p.torch);
  t[2] = t[2].reshape({6});
  t[4] = t[4].reshape({16});
  for (int i : {5, 7, 9}) t[i] = t[i].t().contiguous();
  w.torch_forward = [t] {
    namespace F = torch::nn::functional;
    auto h = torch::max_pool2d(torch::relu(F::conv2d(t[0], t[1], F::Conv2dFuncOptions().bias(t[2]).padding(2))), 2);
    h = torch::max_pool2d(torch::relu(F::conv2d(h, t[3], F::Conv2dFuncOptions().bias(t[4]))), 2);
    h = h.reshape({64, 400});
    h = torch::relu(F::linear(h, t[5], t[6]));
    h = torch::relu(F::linear(h, t[7], t[8]));
    return F::linear(h, t[9], t[10]);
  };
  return w;
}

int Main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  // Both pools get the same size; the thread pool reads RXT_NUM_THREADS when first used.
  setenv("RXT_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
  torch::set_num_threads(options.threads);
  c10::InferenceMode inference;
  for (const Error& e : PluginHost::Global().LoadSearchPath()) std::cerr << "warning: " << e.what() << "\n";
  PluginKernelProvider provider = PluginKernelProvider::Find(options.backend);
  BuildOptions build{.backend = options.backend};
  build.libraries = ChooseLibraries(options.backend, options.libraries);

  std::mt19937 rng(1);
  std::vector<Workload> workloads;
  workloads.push_back(Mlp(1, rng));
  workloads.push_back(Mlp(64, rng));
  workloads.push_back(LeNet(rng));

  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("backend %s, %d thread(s), OPENBLAS_CORETYPE %s, %d rounds x %d calls each, alternating\n",
              options.backend.c_str(), options.threads, coretype ? coretype : "(unset)", options.rounds, options.iters);
  std::printf("%-10s %14s %14s %9s %12s\n", "workload", "rxt median us", "torch median", "ratio", "max |diff|");
  std::ostringstream json;
  json << "{\"backend\": \"" << options.backend << "\", \"threads\": " << options.threads;
  for (Workload& w : workloads) {
    VirtualMachine vm(Build(ParseModule(w.rxt_text, w.name), build), provider);
    std::vector<Value> args;
    for (const Param& p : w.params) args.emplace_back(p.rxt);
    bool time_rxt = options.time != "libtorch", time_torch = options.time != "rxt";
    Tensor ours = vm.Invoke("backbone", args).tensor();
    double diff = 0;
    if (time_torch) {
      torch::Tensor theirs = w.torch_forward().contiguous();
      for (int64_t i = 0; i < ours.numel(); ++i) {
        diff = std::max(diff, double(std::abs(ours.data_as<float>()[i] - theirs.data_ptr<float>()[i])));
      }
    }
    int iters = w.name == "mlp_b1" ? options.iters * 10 : options.iters;
    PairTimes t = TimeAlternating(
        [&] {
          if (time_rxt) vm.Invoke("backbone", args);
        },
        [&] {
          if (time_torch) w.torch_forward();
        },
        iters, options.rounds, iters);
    double ours_us = Median(t.a_us), theirs_us = Median(t.b_us);
    std::printf("%-10s %14.1f %14.1f %8.2fx %12.2e\n", w.name.c_str(), ours_us, theirs_us, theirs_us / ours_us, diff);
    json << ", \"" << w.name << "\": {\"rxt_median_us\": " << ours_us << ", \"rxt_min_us\": " << Min(t.a_us)
         << ", \"libtorch_median_us\": " << theirs_us << ", \"libtorch_min_us\": " << Min(t.b_us)
         << ", \"ratio\": " << theirs_us / ours_us << ", \"max_abs_diff\": " << diff << "}";
    if (options.profile > 0) {
      vm.SetProfiling(true);
      for (int i = 0; i < options.profile; ++i) vm.Invoke("backbone", args);
      std::printf("profile of %d calls of %s:\n%s\n", options.profile, w.name.c_str(), vm.GetProfile().Format().c_str());
      vm.SetProfiling(false);
    }
    if (diff > 1e-3) {
      std::fprintf(stderr, "error: %s: rxt and libtorch disagree (max |diff| %g)\n", w.name.c_str(), diff);
      return 1;
    }
  }
  json << ", \"peak_rss_mb\": " << PeakRssMb() << "}";
  std::printf("RESULT %s\n", json.str().c_str());
  return 0;
}

}  // namespace
}  // namespace rxt::bench

int main(int argc, char** argv) {
  try {
    return rxt::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
