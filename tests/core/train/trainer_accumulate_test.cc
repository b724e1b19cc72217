// Gradient accumulation in the Trainer (core/src/train/trainer_accumulate.cc): micro-batches
// accumulated then applied give the step of one batch of all their samples; and the misuses.
#include <gtest/gtest.h>

#include "core/train/trainer_fixture.h"
#include "rxt/support/error.h"

namespace rxt {
namespace {

using test::CodeOf;
using test::ErrorOf;
using test::Ramp;

std::unique_ptr<Trainer> Linear(int batch, const std::string& reduction, const std::string& optimizer,
                                bool accumulation) {
  TrainerProgram program =
      BuildTrainerProgram(ParseModule(test::LinearBackboneOfBatch(batch)),
                          {.loss = {"mse", StrCat("reduction=\"", reduction, "\"")},
                           .optimizer = {optimizer, "lr=0.05"},
                           .plugins = &test::TrainingPlugins(),
                           .accumulation = accumulation},
                          {.backend = "reference"});
  auto trainer = test::MakeTrainer(std::move(program));
  trainer->InitXavierUniform(7);
  return trainer;
}

/// Rows [begin, end) of an (n, cols) tensor.
Tensor Rows(const Tensor& t, int64_t begin, int64_t end) {
  const int64_t cols = t.shape()[1];
  return Tensor::FromBytes({end - begin, cols}, t.dtype(), t.data_as<float>() + begin * cols,
                           static_cast<size_t>((end - begin) * cols) * sizeof(float));
}

void ExpectNear(const Tensor& a, const Tensor& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.numel(), b.numel()) << what;
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.GetAsDouble(i), b.GetAsDouble(i), tolerance) << what << "[" << i << "]";
}

class AccumulationTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(AccumulationTest, TwoMicroBatchesStepAsOneBatchOfBoth) {
  auto [reduction, optimizer] = GetParam();
  auto whole = Linear(4, reduction, optimizer, false);
  auto halves = Linear(2, reduction, optimizer, true);
  ASSERT_TRUE(halves->can_accumulate());
  ASSERT_FALSE(whole->can_accumulate());
  for (int step = 0; step < 5; ++step) {
    Tensor x = Ramp({4, 3}, -0.5f + 0.1f * static_cast<float>(step), 0.13f);
    Tensor y = Ramp({4, 2}, 0.3f, -0.07f * static_cast<float>(step + 1));
    double loss = whole->Update({x}, {y}).GetAsDouble(0);
    halves->Accumulate({Rows(x, 0, 2)}, {Rows(y, 0, 2)});
    EXPECT_EQ(halves->accumulated(), 1);
    halves->Accumulate({Rows(x, 2, 4)}, {Rows(y, 2, 4)});
    EXPECT_EQ(halves->step(), step);  // no update before the apply
    double applied = halves->ApplyAccumulated().GetAsDouble(0);
    EXPECT_EQ(halves->accumulated(), 0);
    EXPECT_EQ(halves->step(), step + 1);
    EXPECT_NEAR(applied, loss, 1e-5 * std::max(1.0, std::abs(loss))) << "step " << step;
    ExpectNear(halves->param("w"), whole->param("w"), 1e-5, StrCat("w after step ", step));
    ExpectNear(halves->param("b"), whole->param("b"), 1e-5, StrCat("b after step ", step));
  }
}

INSTANTIATE_TEST_SUITE_P(Reductions, AccumulationTest,
                         ::testing::Combine(::testing::Values("mean", "sum"), ::testing::Values("sgd", "adam")));

TEST(Accumulation, OneMicroBatchIsAnUpdate) {
  auto plain = Linear(4, "mean", "adam", false);
  auto accumulating = Linear(4, "mean", "adam", true);
  Tensor x = test::SampleInputs(), y = test::SampleTargets();
  for (int i = 0; i < 3; ++i) {
    Tensor loss = plain->Update({x}, {y});
    accumulating->Accumulate({x}, {y});
    EXPECT_TRUE(accumulating->ApplyAccumulated().BitwiseEqual(loss));
  }
  // The same arithmetic (a division by 1 aside): the same bits.
  EXPECT_TRUE(accumulating->param("w").BitwiseEqual(plain->param("w")));
  // Update still works on an accumulating trainer.
  EXPECT_NO_THROW(accumulating->Update({x}, {y}));
}

TEST(Accumulation, MisusesAreRefusedAndChangeNothing) {
  auto plain = Linear(4, "mean", "sgd", false);
  Tensor x = test::SampleInputs(), y = test::SampleTargets();
  EXPECT_EQ(CodeOf([&] { plain->Accumulate({x}, {y}); }), ErrorCode::kFailedPrecondition);
  EXPECT_NE(ErrorOf([&] { plain->Accumulate({x}, {y}); }).find("built without gradient accumulation"), std::string::npos);

  auto trainer = Linear(4, "mean", "sgd", true);
  EXPECT_EQ(ErrorOf([&] { trainer->ApplyAccumulated(); }), "apply: no micro-batch accumulated (Accumulate first)");
  Tensor w = trainer->param("w").Clone();
  trainer->Accumulate({x}, {y});
  EXPECT_TRUE(trainer->param("w").BitwiseEqual(w));  // accumulating does not update
  EXPECT_EQ(ErrorOf([&] { trainer->Update({x}, {y}); }),
            "trainer: cannot update with 1 micro-batch accumulated and not applied (ApplyAccumulated first)");
  EXPECT_EQ(CodeOf([&] { trainer->MakeCheckpoint(); }), ErrorCode::kFailedPrecondition);
  // A wrong micro-batch is refused by the VM's checks, and the sums stay as they were.
  Tensor wrong = Ramp({4, 4}, 0, 1);
  EXPECT_EQ(CodeOf([&] { trainer->Accumulate({wrong}, {y}); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(trainer->accumulated(), 1);
  trainer->Accumulate({x}, {y});
  EXPECT_EQ(trainer->accumulated(), 2);
  // Restoring a checkpoint drops what was accumulated.
  auto other = Linear(4, "mean", "sgd", true);
  trainer->RestoreCheckpoint(other->MakeCheckpoint(), "other");
  EXPECT_EQ(trainer->accumulated(), 0);
  EXPECT_NO_THROW(trainer->Update({x}, {y}));
}

}  // namespace
}  // namespace rxt
