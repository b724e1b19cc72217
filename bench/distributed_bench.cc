// Data-parallel training benchmark (issue 17; docs/distributed.md), rxt's side: the seed MLP or
// LeNet-5 on Fashion-MNIST with a global batch of 64 (or a model file an importer reads, e.g.
// resnet18.onnx, on random data with a global batch of --global-batch), split over the ranks of
// the launch (`mpirun -np 2 rxt_distributed_bench --distributed mpi`: 2 ranks x 32) or whole in
// one process (no --distributed: 1 rank x 64, on --threads threads). bench/distributed.sh runs
// both layouts and the PyTorch DDP peer (bench/peers/torch_ddp.py) in one run and compares them.
//
//   rxt_distributed_bench --model mlp|cnn|FILE.onnx [--distributed mpi] [--threads 1]
//                         [--steps 400] [--warmup 50] [--global-batch 64] [--bucket-mb 0]
//                         [--overlap 0] [--seed 0]
//
// --bucket-mb 0 and --overlap 0 are SetupTrainer's defaults (25 MiB buckets combined after the
// backward pass); --overlap 1 starts each bucket's allreduce during it (1 MiB by default).
//
// Same optimizers as bench/train_bench.cc (mlp: SGD lr 0.01 wd 0.01, sum; cnn: SGD momentum
// 0.9, mean). Shards by DistributedSampler's rule; the batch buffer is filled outside the step
// timer. Rank 0 prints "RESULT {json}": step time (median of the steady state, the slowest
// rank's: a step ends for everyone at the allreduce), steps/s, and the share of a step spent in
// ccl.allreduce (the profile of steady-state steps).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <regex>
#include <sstream>

#include "bench_util.h"
#include "fashion_mnist.h"
#include "imported_model.h"
#include "rxt/exec/session.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/profile.h"
#include "rxt/train/random.h"
#include "seed_mlp.h"
#include "train_batches.h"
#include "train_distributed.h"

namespace rxt::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string model = "mlp";
  std::string distributed;
  int threads = 1;
  int steps = 400;
  int warmup = 50;
  int global_batch = 64;
  double bucket_mb = 0;
  bool overlap = false;
  uint64_t seed = 0;
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--model") o.model = v;
    else if (k == "--distributed") o.distributed = v;
    else if (k == "--threads") o.threads = std::stoi(v);
    else if (k == "--steps") o.steps = std::stoi(v);
    else if (k == "--warmup") o.warmup = std::stoi(v);
    else if (k == "--bucket-mb") o.bucket_mb = std::stod(v);
    else if (k == "--overlap") o.overlap = std::stoi(v) != 0;
    else if (k == "--global-batch") o.global_batch = std::stoi(v);
    else if (k == "--seed") o.seed = std::stoull(v);
    else throw std::runtime_error("unknown option " + k);
  }
  if (o.model.empty()) throw std::runtime_error("--model is mlp, cnn or a model file");
  return o;
}

/// LeNet-5 (examples/lenet.rxt, batch 64) for batches of |batch|.
std::string LeNetText(int batch) {
  return std::regex_replace(ReadExample("lenet.rxt"), std::regex("\\(64,"), StrCat("(", batch, ","));
}

/// The slowest rank's value (the step of every rank ends at the allreduce with it).
double Slowest(const cli::Ranks& ranks, double value) {
  if (ranks.communicator == nullptr) return value;
  std::vector<double> all(ranks.size, 0.0);
  all[ranks.rank] = value;
  Tensor t = Tensor::FromVector<double>({ranks.size}, DType::kFloat64, all);
  DLTensor view = ToDLTensorView(t);
  ranks.communicator->AllReduce(view, RXT_REDUCE_SUM);
  return *std::max_element(t.data_as<double>(), t.data_as<double>() + ranks.size);
}

int Main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  setenv("RXT_NUM_THREADS", std::to_string(o.threads).c_str(), 1);  // before the pool or a plugin starts
  Context context({.num_threads = o.threads});
  Session session(context);
  cli::Ranks ranks;
  if (!o.distributed.empty()) {
    ranks.communicator = session.CreateCommunicator(o.distributed);
    ranks.rank = ranks.communicator->rank();
    ranks.size = ranks.communicator->size();
  }
  const int global_batch = o.global_batch;
  if (global_batch % ranks.size != 0) throw std::runtime_error("the global batch does not split over the ranks");
  const int batch = global_batch / ranks.size;
  // The seed models train on Fashion-MNIST; a model file on random data (its loader is not what
  // this measures).
  const bool file = o.model != "mlp" && o.model != "cnn";
  cli::FashionMnist data = file ? cli::FashionMnist{} : cli::LoadFashionMnist(cli::kFashionMnistDir);

  bool cnn = o.model == "cnn";
  IRModule backbone = file  ? BindBatch(session.Import(o.model).module, batch)
                      : cnn ? ParseModule(LeNetText(batch), o.model)
                            : ParseModule(cli::SeedMlpText(batch), o.model);
  bool mean = cnn || file;
  TrainRequest request{.build = {.backend = "cpu"},
                       .loss = {"cross_entropy", mean ? "reduction=\"mean\"" : "reduction=\"sum\""},
                       .optimizer = {mean ? "momentum" : "sgd", mean ? "lr=0.01, momentum=0.9" : "lr=0.01, weight_decay=0.01"},
                       .data_parallel = ranks.communicator != nullptr,
                       .bucket_bytes = static_cast<int64_t>(o.bucket_mb * (1 << 20)),
                       .overlap = o.overlap};
  auto c0 = Clock::now();
  std::unique_ptr<Trainer> trainer = session.CreateTrainer(backbone, request);
  double compile_s = std::chrono::duration<double>(Clock::now() - c0).count();
  trainer->InitXavierUniform(o.seed);
  if (ranks.communicator != nullptr) trainer->SetCommunicator(ranks.communicator);

  Tensor xb = Tensor::Empty(trainer->program().inputs.at(0).shape, DType::kFloat32);
  Tensor yb = Tensor::Empty({batch}, DType::kInt64);
  if (file) {
    Random rng = Random::Stream(o.seed, static_cast<uint64_t>(ranks.rank) + 1);
    xb = RandomNormal(trainer->program().inputs.at(0).shape, rng);
    for (int64_t i = 0; i < batch; ++i) yb.data_as<int64_t>()[i] = static_cast<int64_t>(rng.NextBelow(10));
  } else {
    cli::MatchModelToData(trainer->program(), batch, data.train);  // the model takes the images
  }
  std::vector<int64_t> order(data.train.count);
  std::vector<int64_t> shard;
  int64_t position = 0;
  auto next_batch = [&] {
    if (file) return;  // the same random batch every step
    if (shard.empty() || position + batch > static_cast<int64_t>(shard.size())) {
      std::iota(order.begin(), order.end(), 0);
      Random rng = Random::Stream(o.seed, static_cast<uint64_t>(position));
      Shuffle(order, rng);
      shard = cli::ShardOf(order, ranks.rank, ranks.size);
      position = 0;
    }
    std::span<const int64_t> samples(shard.data() + position, static_cast<size_t>(batch));
    position += batch;
    cli::FillInputBatch(data.train, samples, batch, xb.data_as<float>());
    for (int64_t i = 0; i < batch; ++i) yb.data_as<int64_t>()[i] = data.train.labels[samples[i]];
  };
  std::vector<double> step_ms;
  double loss = 0;
  auto run0 = Clock::now();
  for (int s = 0; s < o.warmup + o.steps; ++s) {
    next_batch();
    auto ts = Clock::now();
    loss = trainer->Update({xb}, {yb}).GetAsDouble(0);
    if (s >= o.warmup) step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - ts).count());
  }
  double run_s = std::chrono::duration<double>(Clock::now() - run0).count();
  // The time of a steady-state step in the allreduce (waiting for the other ranks included):
  // the profile of 20 steps.
  const int profiled = 20;
  double allreduce_ms = 0;
  auto p0 = Clock::now();
  for (int i = 0; i < profiled; ++i) {
    Profile profile = trainer->ProfileStep({xb}, {yb});
    for (const ProfileRow& row : profile.kernels) {
      if (row.name.rfind("extern ccl.allreduce", 0) == 0) allreduce_ms += static_cast<double>(row.total_ns) / 1e6;
    }
  }
  double profiled_ms = std::chrono::duration<double, std::milli>(Clock::now() - p0).count();
  double median = Slowest(ranks, Median(step_ms));
  double slowest_share = Slowest(ranks, allreduce_ms / profiled_ms);
  if (ranks.is_root()) {
    std::ostringstream js;
    std::string model = o.model.substr(o.model.find_last_of('/') + 1);
    js << "{\"impl\": \"rxt\", \"model\": \"" << model << "\", \"ranks\": " << ranks.size
       << ", \"threads\": " << o.threads << ", \"batch_per_rank\": " << batch
       << ", \"overlap\": " << (o.overlap ? "true" : "false") << ", \"bucket_mb\": " << o.bucket_mb << ", \"compile_s\": " << compile_s
       << ", \"steps\": " << o.steps << ", \"step_median_ms\": " << median
       << ", \"steps_per_s\": " << 1000.0 / median << ", \"run_s\": " << run_s
       << ", \"allreduce_share\": " << slowest_share << ", \"last_loss\": " << loss
       << ", \"peak_rss_mb\": " << PeakRssMb() << "}";
    std::printf("RESULT %s\n", js.str().c_str());
  }
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
