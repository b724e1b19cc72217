// Data parallelism and gradient accumulation in the trainer module (core/src/transform/training/
// data_parallel.cc, trainer_functions.cc): where SetupTrainer puts ccl.allreduce, in how many
// buckets, with which op; the accumulation functions; and that a data-parallel program run by
// one process (no communicator: a world of one rank) trains exactly as the plain one.
#include <gtest/gtest.h>

#include "core/train/trainer_fixture.h"
#include "rxt/ir/op.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/well_formed.h"
#include "rxt/transform/passes.h"
#include "rxt/transform/training/setup_trainer.h"

namespace rxt {
namespace {

// The seed MLP's shapes: 784-128-128-10 (gradients of 401408, 512, 65536, 512, 5120, 40 bytes).
const char* kSeedMlp = R"(
attributes {param_num = 6, state_num = 0}
def @backbone(%x: Tensor((8, 784), float32), %w0: Tensor((784, 128), float32), %b0: Tensor((128,), float32),
              %w1: Tensor((128, 128), float32), %b1: Tensor((128,), float32),
              %w2: Tensor((128, 10), float32), %b2: Tensor((10,), float32)) -> Tensor((8, 10), float32) {
  dataflow {
    %h0 = nn.relu(add(matmul(%x, %w0), %b0))
    %h1 = nn.relu(add(matmul(%h0, %w1), %b1))
    %out = add(matmul(%h1, %w2), %b2)
    output %out
  }
  return %out
})";

TrainerSetup MlpSetup(bool data_parallel, int64_t bucket_bytes = 25 << 20, std::string reduction = "mean",
                   bool accumulation = false, bool overlap = false) {
  return {.loss = {"cross_entropy", "reduction=\"" + reduction + "\""},
          .optimizer = {"sgd", "lr=0.1"},
          .legalize = false,
          .plugins = &test::TrainingPlugins(),
          .data_parallel = data_parallel,
          .bucket_bytes = bucket_bytes,
          .overlap = overlap,
          .accumulation = accumulation};
}

/// The op attribute of each ccl.allreduce call in |f|, and each reduced tensor's type.
struct AllReduceCalls : ExprVisitor {
  std::vector<std::string> ops, types;
  void VisitCall(const CallNode& call) override {
    if (const OpDef* op = AsOp(call.callee); op != nullptr && op->name() == "ccl.allreduce") {
      ops.push_back(call.attrs.Find("op")->get<std::string>());
      types.push_back(ToString(call.struct_info));
    }
    ExprVisitor::VisitCall(call);
  }
};

AllReduceCalls CallsIn(const IRModule& module, const char* function) {
  AllReduceCalls calls;
  calls.VisitFunction(*module.GetFunction(function));
  return calls;
}

TEST(DataParallel, OneBucketHoldsTheSeedMlpsGradientsAndLoss) {
  IRModule trainer = SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true));
  EXPECT_TRUE(CheckWellFormed(trainer).empty());
  AllReduceCalls calls = CallsIn(trainer, trainer_module::kTrainStep);
  // The six gradients and the loss in one call.
  EXPECT_EQ(calls.ops, std::vector<std::string>({"mean"}));
  EXPECT_EQ(calls.types, std::vector<std::string>({"Tuple(Tensor((784, 128), float32), Tensor((128,), float32), "
                                                   "Tensor((128, 128), float32), Tensor((128,), float32), "
                                                   "Tensor((128, 10), float32), Tensor((10,), float32), "
                                                   "Tensor((), float32))"}));
  EXPECT_EQ(trainer.attrs.Find(trainer_module::kGradientReduction)->get<std::string>(), "mean");
  EXPECT_EQ(trainer.attrs.Find(trainer_module::kDataParallel)->get<int64_t>(), 25 << 20);
  // Nothing of it elsewhere: predict and the loss are each rank's own.
  EXPECT_TRUE(CallsIn(trainer, trainer_module::kPredict).ops.empty());
  EXPECT_TRUE(CallsIn(trainer, trainer_module::kBackboneLoss).ops.empty());
}

TEST(DataParallel, BucketsHoldAtMostTheirSizeAndABigTensorGoesAlone) {
  // w0 (401408 bytes) alone; then b0 w1 b1 w2 b2 and the loss (71724 bytes) together.
  AllReduceCalls calls = CallsIn(SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true, 100000)), trainer_module::kTrainStep);
  EXPECT_EQ(calls.types, std::vector<std::string>({"Tensor((784, 128), float32)",
                                                   "Tuple(Tensor((128,), float32), Tensor((128, 128), float32), "
                                                   "Tensor((128,), float32), Tensor((128, 10), float32), "
                                                   "Tensor((10,), float32), Tensor((), float32))"}));
  // One tensor per bucket when each is larger than a bucket.
  calls = CallsIn(SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true, 4)), trainer_module::kTrainStep);
  EXPECT_EQ(calls.ops.size(), 7u);
}

TEST(DataParallel, TheOpFollowsTheLossReduction) {
  IRModule sum = SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true, 25 << 20, "sum"));
  EXPECT_EQ(CallsIn(sum, trainer_module::kTrainStep).ops, std::vector<std::string>({"sum"}));
  TrainerSetup told = MlpSetup(true, 25 << 20, "sum");
  told.gradient_reduction = "mean";
  EXPECT_EQ(CallsIn(SetupTrainer(ParseModule(kSeedMlp), told), trainer_module::kTrainStep).ops,
            std::vector<std::string>({"mean"}));
  // A loss without the option: "mean".
  TrainerSetup plain = MlpSetup(true);
  plain.loss.options = "";
  EXPECT_EQ(CallsIn(SetupTrainer(ParseModule(kSeedMlp), plain), trainer_module::kTrainStep).ops,
            std::vector<std::string>({"mean"}));
}

TEST(DataParallel, BadOptionsAreRefused) {
  TrainerSetup setup = MlpSetup(true);
  setup.gradient_reduction = "max";
  try {
    SetupTrainer(ParseModule(kSeedMlp), setup);
    FAIL() << "accepted gradient_reduction max";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "SetupTrainer: gradient_reduction \"max\" is neither \"mean\" nor \"sum\"");
  }
  try {
    SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true, -1));
    FAIL() << "accepted bucket_bytes -1";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "SetupTrainer: bucket_bytes -1 is negative");
  }
}

/// The bindings of |f|'s dataflow block that start and wait for allreduces: "start <type of
/// x>" and "wait <out_sinfo>", in order, with the position of each in the block.
struct SplitCalls {
  std::vector<std::string> calls;
  std::vector<size_t> positions;
  size_t block_size = 0;
};

SplitCalls SplitCallsIn(const IRModule& module, const char* function) {
  SplitCalls found;
  const BindingBlock& block = module.GetFunction(function)->body->blocks.back();
  found.block_size = block.bindings.size();
  for (size_t i = 0; i < block.bindings.size(); ++i) {
    const auto* call = block.bindings[i].value->As<CallNode>();
    const OpDef* op = call != nullptr ? AsOp(call->callee) : nullptr;
    if (op == nullptr) continue;
    if (op->name() == "ccl.allreduce_start") {
      found.calls.push_back("start " + ToString(GetStructInfo(call->args[0])) + " " +
                            call->attrs.Find("op")->get<std::string>());
      found.positions.push_back(i);
    } else if (op->name() == "ccl.allreduce_wait") {
      found.calls.push_back("wait " + ToString(call->sinfo_args[0]));
      found.positions.push_back(i);
    }
  }
  return found;
}

TEST(DataParallel, OverlapBucketsInTheOrderTheBackwardPassComputesAndWaitsBeforeTheOptimizer) {
  // The loss comes first (the forward pass), then b2 w2 b1 w1 b0 (71724 bytes), then w0 alone.
  IRModule trainer = SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true, 100000, "mean", false, /*overlap=*/true));
  EXPECT_TRUE(CheckWellFormed(trainer).empty());
  EXPECT_TRUE(CallsIn(trainer, trainer_module::kTrainStep).ops.empty());  // no blocking call
  const std::string bucket =
      "Tuple(Tensor((), float32), Tensor((10,), float32), Tensor((128, 10), float32), Tensor((128,), float32), "
      "Tensor((128, 128), float32), Tensor((128,), float32))";
  SplitCalls split = SplitCallsIn(trainer, trainer_module::kTrainStep);
  EXPECT_EQ(split.calls, std::vector<std::string>({"start " + bucket + " mean",
                                                   "start Tensor((784, 128), float32) mean", "wait " + bucket,
                                                   "wait Tensor((784, 128), float32)"}));
  // ScheduleCollectives moves the first bucket's start into the backward pass: before the
  // gradient of w0 is computed; the second follows it; the waits stay.
  IRModule scheduled = ScheduleCollectives()(trainer);
  SplitCalls moved = SplitCallsIn(scheduled, trainer_module::kTrainStep);
  EXPECT_EQ(moved.calls, split.calls);
  ASSERT_EQ(moved.positions.size(), 4u);
  EXPECT_LT(moved.positions[0], split.positions[0]);
  EXPECT_EQ(moved.positions[2], split.positions[2]);
  EXPECT_LT(moved.positions[1], moved.positions[2]);
  const BindingBlock& block = scheduled.GetFunction(trainer_module::kTrainStep)->body->blocks.back();
  bool w0_gradient_after_start = false;
  for (size_t i = moved.positions[0] + 1; i < moved.positions[1]; ++i) {
    w0_gradient_after_start = w0_gradient_after_start || block.bindings[i].var->name == "w0_adjoint";
  }
  EXPECT_TRUE(w0_gradient_after_start) << PrintModule(scheduled);
}

TEST(DataParallel, TheDefaultBucketIsSmallWithOverlapAndLargeWithout) {
  TrainerSetup overlapped = MlpSetup(true, 0, "mean", false, true);
  EXPECT_EQ(SetupTrainer(ParseModule(kSeedMlp), overlapped).attrs.Find(trainer_module::kDataParallel)->get<int64_t>(),
            kOverlappedBucketBytes);
  TrainerSetup blocking = MlpSetup(true, 0, "mean", false, false);
  EXPECT_EQ(SetupTrainer(ParseModule(kSeedMlp), blocking).attrs.Find(trainer_module::kDataParallel)->get<int64_t>(),
            kBucketBytes);
  EXPECT_FALSE(TrainerSetup{}.overlap);
  EXPECT_EQ(TrainerSetup{}.bucket_bytes, 0);
}

TEST(DataParallel, WithoutItTheModuleIsAsBefore) {
  IRModule trainer = SetupTrainer(ParseModule(kSeedMlp), MlpSetup(false));
  EXPECT_TRUE(CallsIn(trainer, trainer_module::kTrainStep).ops.empty());
  EXPECT_EQ(trainer.attrs.Find(trainer_module::kGradientReduction), nullptr);
  EXPECT_EQ(trainer.attrs.Find(trainer_module::kDataParallel), nullptr);
  EXPECT_EQ(trainer.FindFunction(trainer_module::kAccumulateStep), nullptr);
}

TEST(Accumulation, TheFunctionsAndTheirSignatures) {
  IRModule trainer = SetupTrainer(ParseModule(kSeedMlp), MlpSetup(true, 25 << 20, "mean", true));
  EXPECT_TRUE(CheckWellFormed(trainer).empty());
  Function accumulate = trainer.GetFunction(trainer_module::kAccumulateStep);
  Function apply = trainer.GetFunction(trainer_module::kApplyStep);
  // accumulate_step(x, targets, 6 params, loss_sum, 6 grad sums) -> (loss, loss_sum', grad sums'...)
  ASSERT_EQ(accumulate->params.size(), 1u + 1 + 6 + 1 + 6);
  EXPECT_EQ(accumulate->params[8]->name, "loss_sum");
  EXPECT_EQ(accumulate->params[9]->name, "grad_sum_w0");
  EXPECT_EQ(ToString(accumulate->params[9]->struct_info), "Tensor((784, 128), float32)");
  EXPECT_EQ(accumulate->ret_sinfo->As<TupleSINode>()->fields.size(), 1u + 1 + 6);
  // No communication while accumulating; one bucket when applying.
  EXPECT_TRUE(CallsIn(trainer, trainer_module::kAccumulateStep).ops.empty());
  EXPECT_EQ(CallsIn(trainer, trainer_module::kApplyStep).ops, std::vector<std::string>({"mean"}));
  // apply_step(loss_sum, 6 grad sums, micro_batches, 6 params, optimizer states) -> (loss, params', optim'...)
  EXPECT_EQ(apply->params[7]->name, "micro_batches");
  EXPECT_EQ(ToString(apply->params[7]->struct_info), "Tensor((), float32)");
  EXPECT_EQ(trainer.attrs.Find(trainer_module::kGradientReduction)->get<std::string>(), "mean");
}

// A data-parallel program in one process: the allreduce of a world of one is the identity, and
// the buckets' flatten, concat and split move bits without changing them.
TEST(DataParallel, OneRankTrainsBitIdenticallyToThePlainProgram) {
  auto build = [](bool data_parallel, int64_t bucket_bytes, bool overlap = false) {
    TrainerSetup setup = MlpSetup(data_parallel, bucket_bytes, "mean", false, overlap);
    setup.optimizer = {"adam", "lr=0.01"};
    auto trainer = test::MakeTrainer(BuildTrainerProgram(ParseModule(kSeedMlp), setup, {.backend = "reference"}));
    trainer->InitXavierUniform(3);
    return trainer;
  };
  auto plain = build(false, 25 << 20), one_bucket = build(true, 25 << 20), buckets = build(true, 100000);
  auto overlapped = build(true, 100000, true);
  EXPECT_FALSE(plain->data_parallel());
  EXPECT_TRUE(one_bucket->data_parallel());
  Tensor x = test::Ramp({8, 784}, -1.0f, 0.0003f);
  Tensor y = Tensor::FromVector<int64_t>({8}, DType::kInt64, {0, 1, 2, 3, 4, 5, 6, 7});
  for (int step = 0; step < 3; ++step) {
    Tensor loss = plain->Update({x}, {y});
    EXPECT_TRUE(one_bucket->Update({x}, {y}).BitwiseEqual(loss));
    EXPECT_TRUE(buckets->Update({x}, {y}).BitwiseEqual(loss));
    EXPECT_TRUE(overlapped->Update({x}, {y}).BitwiseEqual(loss));
  }
  for (int i = 0; i < plain->param_num(); ++i) {
    EXPECT_TRUE(one_bucket->param(i).BitwiseEqual(plain->param(i))) << plain->program().params[i].name;
    EXPECT_TRUE(buckets->param(i).BitwiseEqual(plain->param(i))) << plain->program().params[i].name;
    EXPECT_TRUE(overlapped->param(i).BitwiseEqual(plain->param(i))) << plain->program().params[i].name;
  }
}

}  // namespace
}  // namespace rxt
