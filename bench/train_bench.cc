// Training benchmark of issue 4, rxt's side: the Trainer on the seed MLP (examples/mlp.rxt) or
// LeNet-5 (examples/lenet.rxt) with Fashion-MNIST, run the way the peers in bench/peers run
// (libtorch_mlp, torch_mlp.py): the same workloads, options, data handling and RESULT fields, so
// that bench/train.sh can run all three one after another and compare them. A process of its
// own: its peak RSS is rxt's alone.
//
//   rxt_train_bench --model mlp|cnn [--threads N] [--epochs E] [--batch 64] [--lr 0.01]
//                   [--weight-decay 0.01] [--reduction sum|mean] [--seed 0] [--backend cpu]
//                   [--profile STEPS]
//
// mlp: cross entropy (sum by default), SGD with weight decay, 5 epochs. cnn: LeNet-5, SGD with
// momentum 0.9, mean cross entropy, 1 epoch. Xavier-uniform weights, zero biases. The data stays
// in memory as the files' bytes (rxt train's way: a quarter of float32's size); each epoch
// shuffles an index order, and before each step (outside the step timer, inside the epoch's)
// 64 rows are converted into a float32 batch buffer. A step is one Trainer::Update.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <span>
#include <numeric>
#include <sstream>

#include "bench_util.h"
#include "fashion_mnist.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/ir/parser.h"
#include "rxt/plugin/plugin_kernel_provider.h"
#include "rxt/train/random.h"
#include "seed_mlp.h"
#include "train_batches.h"

namespace rxt::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string model = "mlp";
  std::string backend = "cpu";
  int threads = 1;
  int epochs = -1;  // mlp 5, cnn 1
  int batch = 64;
  double lr = 0.01;
  double weight_decay = 0.01;
  std::string reduction;  // mlp sum, cnn mean
  uint64_t seed = 0;
  int profile = 0;  // after training, print the per-kernel profile of this many steady-state steps
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--model") o.model = v;
    else if (k == "--backend") o.backend = v;
    else if (k == "--threads") o.threads = std::stoi(v);
    else if (k == "--epochs") o.epochs = std::stoi(v);
    else if (k == "--batch") o.batch = std::stoi(v);
    else if (k == "--lr") o.lr = std::stod(v);
    else if (k == "--weight-decay") o.weight_decay = std::stod(v);
    else if (k == "--reduction") o.reduction = v;
    else if (k == "--seed") o.seed = std::stoull(v);
    else if (k == "--profile") o.profile = std::stoi(v);
    else throw std::runtime_error("unknown option " + k);
  }
  if (o.model != "mlp" && o.model != "cnn") throw std::runtime_error("--model is mlp or cnn");
  if (o.epochs < 0) o.epochs = o.model == "cnn" ? 1 : 5;
  if (o.reduction.empty()) o.reduction = o.model == "cnn" ? "mean" : "sum";
  if (o.model == "cnn" && o.batch != 64) throw std::runtime_error("examples/lenet.rxt has batch 64");
  return o;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(rank);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

int Main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  setenv("RXT_NUM_THREADS", std::to_string(o.threads).c_str(), 1);  // before the pool or a plugin starts
  for (const Error& e : PluginHost::Global().LoadSearchPath()) std::cerr << "warning: " << e.what() << "\n";

  auto t0 = Clock::now();
  cli::FashionMnist data = cli::LoadFashionMnist(cli::kFashionMnistDir);
  double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  double rss_after_load = PeakRssMb();

  auto c0 = Clock::now();
  bool cnn = o.model == "cnn";
  IRModule backbone = ParseModule(cnn ? ReadExample("lenet.rxt") : cli::SeedMlpText(o.batch), o.model);
  std::ostringstream optimizer_options;
  optimizer_options << "lr=" << o.lr;
  if (cnn) {
    optimizer_options << ", momentum=0.9";
  } else {
    optimizer_options << ", weight_decay=" << o.weight_decay;
  }
  TrainerProgram program = BuildTrainerProgram(
      backbone,
      {.loss = {"cross_entropy", "reduction=\"" + o.reduction + "\""},
       .optimizer = {cnn ? "momentum" : "sgd", optimizer_options.str()}},
      {.backend = o.backend, .opt_level = 2, .libraries = ChooseLibraries(o.backend)});
  cli::DataLayout layout = cli::MatchModelToData(program, o.batch, data.train);
  Trainer trainer(std::move(program), std::make_shared<PluginKernelProvider>(PluginKernelProvider::Find(o.backend)));
  trainer.InitXavierUniform(o.seed);
  double compile_s = std::chrono::duration<double>(Clock::now() - c0).count();

  const int64_t n = data.train.count;
  const int64_t steps = n / o.batch;
  std::printf("rxt %s, backend %s, %d thread(s), %lld steps/epoch; loaded in %.2f s, compiled in %.2f s\n",
              o.model.c_str(), o.backend.c_str(), o.threads, static_cast<long long>(steps), load_s, compile_s);
  std::fflush(stdout);

  // One batch buffer, refilled before each step (outside the step timer, inside the epoch's):
  // the Trainer reads its inputs only during the call.
  Tensor xb = Tensor::Empty(layout.input_shape, DType::kFloat32);
  Tensor yb = Tensor::Empty({o.batch}, DType::kInt64);
  std::vector<int64_t> order(n);
  std::vector<double> step_ms, epoch_s, accs, losses;
  bool diverged = false;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    auto te = Clock::now();
    std::iota(order.begin(), order.end(), 0);
    Random rng = Random::Stream(o.seed, static_cast<uint64_t>(epoch));
    Shuffle(order, rng);
    double logged = 0;
    for (int64_t s = 0; s < steps; ++s) {
      std::span<const int64_t> samples(order.data() + s * o.batch, static_cast<size_t>(o.batch));
      cli::FillInputBatch(data.train, samples, o.batch, xb.data_as<float>());
      for (int64_t i = 0; i < o.batch; ++i) yb.data_as<int64_t>()[i] = data.train.labels[samples[i]];
      auto ts = Clock::now();
      Tensor loss = trainer.Update({xb}, {yb});
      step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - ts).count());
      if (s % 100 == 0) logged = loss.GetAsDouble(0);
      diverged = diverged || !std::isfinite(loss.GetAsDouble(0));
    }
    epoch_s.push_back(std::chrono::duration<double>(Clock::now() - te).count());
    accs.push_back(cli::TestAccuracy(trainer, layout, data.test));
    losses.push_back(logged);
    std::printf("epoch %d: train_time %.3fs  last_logged_loss %.4f  test_acc %.4f\n", epoch, epoch_s.back(), logged,
                accs.back());
    std::fflush(stdout);
  }
  if (o.profile > 0) {
    // Steady state: after the epochs, the same batch profiled again and again; the last step's
    // profile is printed (each ProfileStep resets the counters).
    Profile profile;
    for (int i = 0; i < o.profile; ++i) profile = trainer.ProfileStep({xb}, {yb});
    std::printf("profile of one steady-state step:\n%s", profile.Format().c_str());
  }
  std::vector<double> steady(step_ms.begin() + std::min<size_t>(50, step_ms.size()), step_ms.end());
  double mean = steady.empty() ? 0 : std::accumulate(steady.begin(), steady.end(), 0.0) / steady.size();
  auto list = [](const std::vector<double>& v) {
    std::ostringstream s;
    s << "[";
    for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
    return s.str() + "]";
  };
  std::ostringstream js;
  js << "{\"impl\": \"rxt\", \"model\": \"" << o.model << "\", \"backend\": \"" << o.backend
     << "\", \"threads\": " << o.threads << ", \"lr\": " << o.lr << ", \"reduction\": \"" << o.reduction
     << "\", \"load_s\": " << load_s << ", \"rss_after_load_mb\": " << rss_after_load
     << ", \"compile_s\": " << compile_s << ", \"steps_per_epoch\": " << steps
     << ", \"step_median_ms\": " << Median(steady) << ", \"step_mean_ms\": " << mean
     << ", \"step_p10_ms\": " << Percentile(steady, 10) << ", \"step_p90_ms\": " << Percentile(steady, 90)
     << ", \"epoch_s\": " << list(epoch_s) << ", \"epoch_median_s\": " << Median(epoch_s)
     << ", \"test_acc\": " << list(accs) << ", \"final_test_acc\": " << (accs.empty() ? 0 : accs.back())
     << ", \"logged_loss\": " << list(losses) << ", \"diverged\": " << (diverged ? "true" : "false")
     << ", \"collapsed\": "
     << (!accs.empty() && accs.back() < *std::max_element(accs.begin(), accs.end()) - 0.10 ? "true" : "false")
     << ", \"peak_rss_mb\": " << PeakRssMb() << "}";
  std::printf("RESULT %s\n", js.str().c_str());
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
