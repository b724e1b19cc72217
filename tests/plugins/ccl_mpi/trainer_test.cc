// Data-parallel training with the collective "mpi" (plugins/ccl_mpi) under mpirun: every rank
// runs these tests; each compares its data-parallel trainer with a plain trainer of the whole
// batch that it runs itself (the reference), and with the other ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/train/trainer_fixture.h"
#include "rxt/plugin/plugin_host.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/support/error.h"
#include "world.h"

namespace rxt {
namespace {

using test::World;

struct Build {
  int batch = 8;
  bool data_parallel = false;
  bool accumulation = false;
  std::string reduction = "mean";
  std::string optimizer = "adam";
  int64_t bucket_bytes = 25 << 20;
  bool overlap = true;
};

std::unique_ptr<Trainer> Make(const Build& b, uint64_t seed = 5) {
  TrainerProgram program = BuildTrainerProgram(
      ParseModule(test::LinearBackboneOfBatch(b.batch)),
      {.loss = {"mse", "reduction=\"" + b.reduction + "\""},
       .optimizer = {b.optimizer, "lr=0.05"},
       .plugins = &test::TrainingPlugins(),
       .data_parallel = b.data_parallel,
       .bucket_bytes = b.bucket_bytes,
       .overlap = b.overlap,
       .accumulation = b.accumulation},
      {.backend = "reference"});
  auto trainer = test::MakeTrainer(std::move(program));
  trainer->InitXavierUniform(seed);
  return trainer;
}

/// Step |step|'s whole batch: (8, 3) samples, (8, 2) targets.
std::pair<Tensor, Tensor> Batch(int step) {
  return {test::Ramp({8, 3}, -0.9f + 0.05f * static_cast<float>(step), 0.07f),
          test::Ramp({8, 2}, 0.4f - 0.1f * static_cast<float>(step), 0.05f)};
}

/// Rows |rank|, |rank| + |size|, ... of |t| (DistributedSampler's split), |count| of them.
Tensor Strided(const Tensor& t, int rank, int size, int64_t first = 0, int64_t count = -1) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  std::vector<float> values;
  for (int64_t r = rank; r < rows; r += size) {
    for (int64_t c = 0; c < cols; ++c) values.push_back(t.data_as<float>()[r * cols + c]);
  }
  int64_t n = static_cast<int64_t>(values.size()) / cols;
  if (count < 0) count = n - first;
  return Tensor::FromBytes({count, cols}, DType::kFloat32, values.data() + first * cols,
                           static_cast<size_t>(count * cols) * sizeof(float));
}

/// FNV-1a of every parameter's bytes.
uint64_t ParamHash(const Trainer& trainer) {
  uint64_t h = 1469598103934665603ull;
  for (const auto& [name, t] : trainer.ExportParams()) {
    const auto* bytes = static_cast<const unsigned char*>(t.data());
    for (size_t i = 0; i < t.nbytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  }
  return h;
}

/// Whether every rank's |value| equals rank 0's.
bool SameOnEveryRank(uint64_t value) {
  auto world = World();
  Tensor root = Tensor::FromVector<int64_t>({1}, DType::kInt64, {static_cast<int64_t>(value)});
  DLTensor view = ToDLTensorView(root);
  world->Broadcast(view, 0);
  Tensor differs = Tensor::FromVector<int32_t>({1}, DType::kInt32,
                                               {*root.data_as<int64_t>() == static_cast<int64_t>(value) ? 0 : 1});
  DLTensor differs_view = ToDLTensorView(differs);
  world->AllReduce(differs_view, RXT_REDUCE_SUM);
  return *differs.data_as<int32_t>() == 0;
}

void ExpectNear(const Trainer& a, const Trainer& b, double tolerance, const std::string& when) {
  for (int i = 0; i < a.param_num(); ++i) {
    const Tensor &x = a.param(i), &y = b.param(i);
    for (int64_t k = 0; k < x.numel(); ++k) {
      EXPECT_NEAR(x.GetAsDouble(k), y.GetAsDouble(k), tolerance) << a.program().params[i].name << "[" << k << "] " << when;
    }
  }
}

int Size() { return World()->size(); }
int Rank() { return World()->rank(); }

class ShardedBatches : public ::testing::TestWithParam<std::string> {};

TEST_P(ShardedBatches, RanksOfAShareStepAsOneRankOfTheWholeBatch) {
  ASSERT_EQ(8 % Size(), 0) << "run with 1, 2, 4 or 8 ranks";
  auto whole = Make({.batch = 8, .reduction = GetParam()});
  // Another seed on every rank but 0: the start makes them all rank 0's.
  auto shard = Make({.batch = 8 / Size(), .data_parallel = true, .reduction = GetParam()}, 5 + Rank() * 11);
  shard->SetCommunicator(World());
  EXPECT_TRUE(SameOnEveryRank(ParamHash(*shard)));
  for (int i = 0; i < whole->param_num(); ++i) EXPECT_TRUE(shard->param(i).BitwiseEqual(whole->param(i)));
  for (int step = 0; step < 6; ++step) {
    auto [x, y] = Batch(step);
    double loss = whole->Update({x}, {y}).GetAsDouble(0);
    double reduced = shard->Update({Strided(x, Rank(), Size())}, {Strided(y, Rank(), Size())}).GetAsDouble(0);
    EXPECT_NEAR(reduced, loss, 1e-5 * std::max(1.0, std::abs(loss))) << "the loss of step " << step;
    // Bit-identical on every rank after every step (the same reduced gradients, the same update).
    EXPECT_TRUE(SameOnEveryRank(ParamHash(*shard))) << "after step " << step;
    ExpectNear(*shard, *whole, 1e-5, StrCat("after step ", step));
  }
}

INSTANTIATE_TEST_SUITE_P(Reductions, ShardedBatches, ::testing::Values("mean", "sum"));

TEST(DataParallelMpi, AccumulatedMicroBatchesOfEveryRankStepAsTheWholeBatch) {
  ASSERT_EQ(8 % (2 * Size()), 0);
  const int micro = 8 / Size() / 2;
  auto whole = Make({.batch = 8});
  auto shard = Make({.batch = micro, .data_parallel = true, .accumulation = true});
  shard->SetCommunicator(World());
  for (int step = 0; step < 4; ++step) {
    auto [x, y] = Batch(step);
    double loss = whole->Update({x}, {y}).GetAsDouble(0);
    shard->Accumulate({Strided(x, Rank(), Size(), 0, micro)}, {Strided(y, Rank(), Size(), 0, micro)});
    shard->Accumulate({Strided(x, Rank(), Size(), micro, micro)}, {Strided(y, Rank(), Size(), micro, micro)});
    EXPECT_NEAR(shard->ApplyAccumulated().GetAsDouble(0), loss, 1e-5);
    EXPECT_TRUE(SameOnEveryRank(ParamHash(*shard)));
    ExpectNear(*shard, *whole, 1e-5, StrCat("after step ", step));
  }
}

TEST(DataParallelMpi, SmallBucketsGiveTheSameBitsAsOne) {
  auto one = Make({.batch = 4, .data_parallel = true});
  auto many = Make({.batch = 4, .data_parallel = true, .bucket_bytes = 4});
  one->SetCommunicator(World());
  many->SetCommunicator(World());
  for (int step = 0; step < 3; ++step) {
    auto [x, y] = Batch(step);
    Tensor xs = Strided(x, Rank(), Size(), 0, 4), ys = Strided(y, Rank(), Size(), 0, 4);
    EXPECT_TRUE(one->Update({xs}, {ys}).BitwiseEqual(many->Update({xs}, {ys})));
  }
  EXPECT_EQ(ParamHash(*one), ParamHash(*many));
}

bool CallsExtern(const Trainer& trainer, const std::string& name) {
  const std::vector<std::string>& externs = trainer.program().executable.externs;
  return std::find(externs.begin(), externs.end(), name) != externs.end();
}

// Buckets started during the backward pass and waited for before the optimizer (requests in
// flight together, on the communicator's thread) give the bits of blocking allreduces.
TEST(DataParallelMpi, OverlappedAllReducesGiveTheBitsOfBlockingOnes) {
  auto blocking = Make({.batch = 4, .data_parallel = true, .bucket_bytes = 4, .overlap = false});
  auto overlapped = Make({.batch = 4, .data_parallel = true, .bucket_bytes = 4, .overlap = true});
  EXPECT_TRUE(CallsExtern(*blocking, "ccl.allreduce_mean"));
  EXPECT_FALSE(CallsExtern(*blocking, "ccl.allreduce_wait"));
  EXPECT_TRUE(CallsExtern(*overlapped, "ccl.allreduce_start_mean"));
  EXPECT_TRUE(CallsExtern(*overlapped, "ccl.allreduce_wait"));
  EXPECT_FALSE(CallsExtern(*overlapped, "ccl.allreduce_mean"));
  blocking->SetCommunicator(World());
  overlapped->SetCommunicator(World());
  for (int step = 0; step < 4; ++step) {
    auto [x, y] = Batch(step);
    Tensor xs = Strided(x, Rank(), Size(), 0, 4), ys = Strided(y, Rank(), Size(), 0, 4);
    EXPECT_TRUE(blocking->Update({xs}, {ys}).BitwiseEqual(overlapped->Update({xs}, {ys})));
    EXPECT_TRUE(SameOnEveryRank(ParamHash(*overlapped))) << "after step " << step;
  }
  EXPECT_EQ(ParamHash(*blocking), ParamHash(*overlapped));
}

TEST(DataParallelMpi, RanksOfAnotherProgramAreRefusedOnEveryRank) {
  if (Size() < 2) GTEST_SKIP() << "needs two ranks";
  // The last rank builds with another bucket size: another program.
  auto trainer = Make({.batch = 4, .data_parallel = true, .bucket_bytes = Rank() == Size() - 1 ? 4 : 1 << 20});
  try {
    trainer->SetCommunicator(World());
    FAIL() << "rank " << Rank() << " accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    std::string expected = StrCat("trainer: 1 of ", Size(), " ranks run another trainer program than rank 0");
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
  }
  EXPECT_EQ(trainer->communicator(), nullptr);
}

TEST(DataParallelMpi, APlainProgramCannotTrainOnSeveralRanks) {
  if (Size() < 2) GTEST_SKIP() << "needs two ranks";
  auto trainer = Make({.batch = 4});
  try {
    trainer->SetCommunicator(World());
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("build it for data parallelism"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rxt
