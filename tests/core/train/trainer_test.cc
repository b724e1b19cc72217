// The Trainer (core/src/train/trainer.cc, trainer_init.cc): layout, initialization, loading
// and exporting parameters, predict / update / evaluate against plain C++, the learning rate
// and its schedules, profiling, and every invalid input.
#include "rxt/train/trainer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/train/trainer_fixture.h"

namespace rxt {
namespace {

using test::CodeOf;
using test::ErrorOf;
using test::LinearTrainer;
using test::Ramp;
using test::SampleInputs;
using test::SampleTargets;

/// x w + b in double.
std::vector<double> Linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  std::vector<double> out(8);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      double acc = b.GetAsDouble(j);
      for (int k = 0; k < 3; ++k) acc += x.GetAsDouble(i * 3 + k) * w.GetAsDouble(k * 2 + j);
      out[i * 2 + j] = acc;
    }
  }
  return out;
}

TEST(Trainer, LayoutComesFromTheBackbone) {
  auto trainer = LinearTrainer();
  EXPECT_EQ(trainer->input_num(), 1);
  EXPECT_EQ(trainer->target_num(), 1);
  EXPECT_EQ(trainer->param_num(), 2);
  EXPECT_EQ(trainer->state_num(), 0);
  EXPECT_EQ(trainer->output_num(), 1);
  EXPECT_EQ(trainer->program().params[0].name, "w");
  EXPECT_EQ(trainer->program().params[1].name, "b");
  EXPECT_EQ(trainer->program().inputs[0].name, "x");
  EXPECT_EQ(trainer->program().params[0].TypeText(), "Tensor((3, 2), float32)");
  EXPECT_EQ(trainer->ParamIndex("b"), 1);
  EXPECT_EQ(ErrorOf([&] { trainer->ParamIndex("w9"); }), "trainer: no parameter named 'w9' (parameters: w, b)");
  // The matmul weight (3, 2) is stored (in, out).
  EXPECT_EQ(trainer->program().params[0].fan_in, 3);
  EXPECT_EQ(trainer->program().params[0].fan_out, 2);
}

TEST(Trainer, StartsAtZeroWithTheInitialOptimizerState) {
  auto trainer = LinearTrainer("sgd", "lr=0.05");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(trainer->param("w").GetAsDouble(i), 0.0);
  EXPECT_EQ(trainer->step(), 0);
  EXPECT_FLOAT_EQ(trainer->learning_rate(), 0.05);
}

TEST(Trainer, ResetOptimizerRestoresTheInitialStateWithoutSharingIt) {
  auto trainer = LinearTrainer("adam", "lr=0.05");
  trainer->InitXavierUniform(3);
  std::vector<Tensor> initial;
  for (const Tensor& o : trainer->optimizer_state()) initial.push_back(o.Clone());
  Tensor x = SampleInputs(), y = SampleTargets();
  for (int i = 0; i < 3; ++i) trainer->Update({x}, {y});
  bool changed = false;
  for (size_t i = 0; i < initial.size(); ++i) changed = changed || !trainer->optimizer_state()[i].BitwiseEqual(initial[i]);
  EXPECT_TRUE(changed);
  trainer->ResetOptimizer();
  EXPECT_EQ(trainer->step(), 0);
  ASSERT_EQ(trainer->optimizer_state().size(), initial.size());
  for (size_t i = 0; i < initial.size(); ++i) {
    EXPECT_TRUE(trainer->optimizer_state()[i].BitwiseEqual(initial[i])) << trainer->program().optim_state_names[i];
  }
  // Each reset makes new buffers: an update after it cannot change the next reset's values.
  trainer->Update({x}, {y});
  trainer->ResetOptimizer();
  for (size_t i = 0; i < initial.size(); ++i) EXPECT_TRUE(trainer->optimizer_state()[i].BitwiseEqual(initial[i]));
}

TEST(InitialOptimState, KeepsOneElementOfAUniformValue) {
  Tensor zeros = Tensor::Empty({512, 3}, DType::kFloat32);
  for (int64_t i = 0; i < zeros.numel(); ++i) zeros.SetFromDouble(i, 0.25);
  InitialOptimState uniform = InitialOptimState::Of(zeros);
  EXPECT_EQ(uniform.values.numel(), 1);
  EXPECT_EQ(uniform.shape, (std::vector<int64_t>{512, 3}));
  Tensor again = uniform.Materialize();
  EXPECT_TRUE(again.BitwiseEqual(zeros));
  EXPECT_NE(again.data(), zeros.data());

  Tensor ramp = Tensor::Empty({4}, DType::kInt64);
  for (int64_t i = 0; i < 4; ++i) ramp.SetFromDouble(i, static_cast<double>(i));
  InitialOptimState varied = InitialOptimState::Of(ramp);
  EXPECT_EQ(varied.values.numel(), 4);
  EXPECT_TRUE(varied.Materialize().BitwiseEqual(ramp));
  // -0.0 and 0.0 differ bitwise: not uniform.
  Tensor signs = Tensor::Empty({2}, DType::kFloat32);
  signs.SetFromDouble(0, 0.0);
  signs.SetFromDouble(1, -0.0);
  EXPECT_TRUE(InitialOptimState::Of(signs).Materialize().BitwiseEqual(signs));
  Tensor scalar = Tensor::Empty({}, DType::kFloat64);
  scalar.SetFromDouble(0, 0.01);
  EXPECT_TRUE(InitialOptimState::Of(scalar).Materialize().BitwiseEqual(scalar));
}

TEST(Trainer, XavierUniformIsSeededBoundedAndZeroForBiases) {
  auto a = LinearTrainer(), b = LinearTrainer();
  a->InitXavierUniform(7);
  b->InitXavierUniform(7);
  EXPECT_TRUE(a->param(0).BitwiseEqual(b->param(0)));
  b->InitXavierUniform(8);
  EXPECT_FALSE(a->param(0).BitwiseEqual(b->param(0)));
  double bound = std::sqrt(6.0 / (3 + 2)), largest = 0;
  for (int i = 0; i < 6; ++i) largest = std::max(largest, std::abs(a->param(0).GetAsDouble(i)));
  EXPECT_LE(largest, bound);
  EXPECT_GT(largest, 0.0);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(a->param("b").GetAsDouble(i), 0.0);
  a->ZeroInitParams();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a->param(0).GetAsDouble(i), 0.0);
}

TEST(Trainer, LoadsAndExportsByIndexAndByName) {
  auto trainer = LinearTrainer();
  Tensor w = Ramp({3, 2}, 0.1f, 0.1f), b = Ramp({2}, -1, 2);
  trainer->LoadParams(std::vector<Tensor>{w, b});
  EXPECT_TRUE(trainer->param(0).BitwiseEqual(w));
  EXPECT_TRUE(trainer->param("b").BitwiseEqual(b));
  // Copied in: changing the caller's tensor afterwards changes nothing.
  w.data_as<float>()[0] = 42;
  EXPECT_EQ(trainer->param(0).GetAsDouble(0), static_cast<double>(0.1f));

  Tensor b2 = Ramp({2}, 5, 1);
  trainer->LoadParams(std::map<std::string, Tensor>{{"b", b2}});
  EXPECT_TRUE(trainer->param(1).BitwiseEqual(b2));
  trainer->SetParam("w", Ramp({3, 2}, 0, 0));
  trainer->SetParam(1, Ramp({2}, 7, 0));
  auto exported = trainer->ExportParams();
  ASSERT_EQ(exported.size(), 2u);
  EXPECT_EQ(exported[0].first, "w");
  EXPECT_EQ(exported[1].first, "b");
  EXPECT_EQ(exported[1].second.GetAsDouble(1), 7.0);
}

TEST(Trainer, RejectsParametersOfTheWrongKind) {
  auto trainer = LinearTrainer();
  Tensor good = Ramp({3, 2}, 0, 1);
  EXPECT_EQ(ErrorOf([&] { trainer->SetParam("w", Ramp({2, 3}, 0, 1)); }),
            "parameter 'w': expected Tensor((3, 2), float32), got float32 (2, 3)");
  EXPECT_EQ(ErrorOf([&] { trainer->SetParam("w", Tensor::Empty({3, 2}, DType::kFloat64)); }),
            "parameter 'w': expected Tensor((3, 2), float32), got float64 (3, 2)");
  EXPECT_EQ(ErrorOf([&] { trainer->SetParam(0, Tensor()); }), "parameter 'w': the tensor is undefined");
  EXPECT_EQ(CodeOf([&] { trainer->SetParam(2, good); }), ErrorCode::kOutOfRange);
  EXPECT_EQ(CodeOf([&] { trainer->SetParam("nope", good); }), ErrorCode::kNotFound);
  EXPECT_EQ(ErrorOf([&] { trainer->LoadParams(std::vector<Tensor>{good}); }),
            "trainer: expected 2 parameters (w, b), got 1");
  // A list with one bad tensor changes nothing.
  EXPECT_EQ(CodeOf([&] { trainer->LoadParams(std::vector<Tensor>{good, Ramp({3}, 0, 1)}); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(trainer->param(0).GetAsDouble(1), 0.0);
  EXPECT_EQ(CodeOf([&] { trainer->state(0); }), ErrorCode::kOutOfRange);
  EXPECT_EQ(CodeOf([&] { trainer->SetState("running_mean", good); }), ErrorCode::kNotFound);
}

TEST(Trainer, PredictIsTheBackbone) {
  auto trainer = LinearTrainer();
  trainer->InitXavierUniform(1);
  trainer->SetParam("b", Ramp({2}, 0.25f, 0.5f));
  Tensor x = SampleInputs();
  std::vector<Tensor> out = trainer->Predict({x});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want = Linear(x, trainer->param(0), trainer->param(1));
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(out[0].GetAsDouble(i), want[i], 1e-6);
}

TEST(Trainer, UpdateIsOneSgdStepOnTheMseLoss) {
  auto trainer = LinearTrainer("sgd", "lr=0.05");
  trainer->InitXavierUniform(3);
  Tensor x = SampleInputs(), y = SampleTargets();
  Tensor w = trainer->param(0), b = trainer->param(1), w_before = w.Clone();
  std::vector<double> out = Linear(x, w, b);
  double loss = 0;
  std::vector<double> dout(8), dw(6, 0), db(2, 0);
  for (int i = 0; i < 8; ++i) {
    double e = out[i] - y.GetAsDouble(i);
    loss += e * e;
    dout[i] = 2 * e;
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      db[j] += dout[i * 2 + j];
      for (int k = 0; k < 3; ++k) dw[k * 2 + j] += x.GetAsDouble(i * 3 + k) * dout[i * 2 + j];
    }
  }
  EXPECT_NEAR(trainer->Evaluate({x}, {y}).GetAsDouble(0), loss, 1e-5);
  Tensor got = trainer->Update({x}, {y});
  EXPECT_EQ(got.ndim(), 0);
  EXPECT_NEAR(got.GetAsDouble(0), loss, 1e-5);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(trainer->param(0).GetAsDouble(i), w.GetAsDouble(i) - 0.05 * dw[i], 1e-6);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(trainer->param(1).GetAsDouble(i), b.GetAsDouble(i) - 0.05 * db[i], 1e-6);
  EXPECT_EQ(trainer->step(), 1);
  // The tensors handed out before are untouched: the trainer replaces, never writes in place.
  EXPECT_TRUE(w.BitwiseEqual(w_before));
}

TEST(Trainer, TrainingLowersTheLossAndEvaluateChangesNothing) {
  auto trainer = LinearTrainer("adam", "lr=0.05");
  trainer->InitXavierUniform(5);
  Tensor x = SampleInputs(), y = SampleTargets();
  double first = trainer->Evaluate({x}, {y}).GetAsDouble(0);
  Tensor w = trainer->param(0);
  trainer->Evaluate({x}, {y});
  EXPECT_TRUE(trainer->param(0).BitwiseEqual(w));
  EXPECT_EQ(trainer->step(), 0);
  for (int i = 0; i < 60; ++i) trainer->Update({x}, {y});
  EXPECT_LT(trainer->Evaluate({x}, {y}).GetAsDouble(0), 0.1 * first);
  EXPECT_EQ(trainer->step(), 60);
  // Adam's own step counter went along.
  const auto& names = trainer->program().optim_state_names;
  size_t step_index = std::find(names.begin(), names.end(), "step") - names.begin();
  ASSERT_LT(step_index, names.size());
  EXPECT_EQ(trainer->optimizer_state()[step_index].GetAsDouble(0), 60);
}

// The VM recycles the tensors a step returns once the trainer has replaced them: after two
// steps, a step takes no storage from the heap. Holding on to every old tensor (so nothing
// can be recycled) gives the same parameters bit for bit.
TEST(Trainer, StepsAllocateNoStorageInSteadyState) {
  auto recycled = LinearTrainer("adam", "lr=0.05");
  auto fresh = LinearTrainer("adam", "lr=0.05");
  recycled->InitXavierUniform(7);
  fresh->InitXavierUniform(7);
  Tensor x = SampleInputs(), y = SampleTargets();
  for (int i = 0; i < 3; ++i) recycled->Update({x}, {y});
  int64_t storage = recycled->num_storage_allocations();
  for (int i = 0; i < 5; ++i) recycled->Update({x}, {y});
  EXPECT_EQ(recycled->num_storage_allocations(), storage);

  std::vector<Tensor> kept;
  for (int i = 0; i < 8; ++i) {
    kept.push_back(fresh->Update({x}, {y}));
    for (int p = 0; p < fresh->param_num(); ++p) kept.push_back(fresh->param(p));
    for (const Tensor& o : fresh->optimizer_state()) kept.push_back(o);
  }
  EXPECT_GT(fresh->num_storage_allocations(), storage);
  for (int p = 0; p < recycled->param_num(); ++p) {
    EXPECT_TRUE(recycled->param(p).BitwiseEqual(fresh->param(p))) << p;
  }
}

// docs/vm.md, "Donated inputs": a step writes the new parameters over the old ones when the
// trainer holds the only reference; a parameter someone copied keeps its values and the step
// writes the new ones elsewhere. Both give the same bits.
TEST(Trainer, UpdatesWriteOverParametersNobodyElseHolds) {
  auto alone = LinearTrainer("momentum", "lr=0.05");
  auto shared = LinearTrainer("momentum", "lr=0.05");
  alone->InitXavierUniform(3);
  shared->InitXavierUniform(3);
  Tensor x = SampleInputs(), y = SampleTargets();
  for (int step = 0; step < 3; ++step) {
    const void* before = alone->param(0).data();
    alone->Update({x}, {y});
    EXPECT_EQ(alone->param(0).data(), before) << "step " << step << ": written in place";

    Tensor held = shared->param(0);
    Tensor copy = held.Clone();
    shared->Update({x}, {y});
    EXPECT_NE(shared->param(0).data(), held.data());
    EXPECT_TRUE(held.BitwiseEqual(copy)) << "a held parameter is never written";
  }
  for (int p = 0; p < alone->param_num(); ++p) EXPECT_TRUE(alone->param(p).BitwiseEqual(shared->param(p))) << p;
  for (size_t i = 0; i < alone->optimizer_state().size(); ++i) {
    EXPECT_TRUE(alone->optimizer_state()[i].BitwiseEqual(shared->optimizer_state()[i])) << i;
  }
}

TEST(Trainer, LearningRateIsARuntimeValue) {
  auto trainer = LinearTrainer("sgd", "lr=0.05");
  trainer->InitXavierUniform(2);
  Tensor x = SampleInputs(), y = SampleTargets();
  trainer->SetLearningRate(0);
  Tensor w = trainer->param(0);
  trainer->Update({x}, {y});
  EXPECT_TRUE(trainer->param(0).BitwiseEqual(w));  // lr 0: no change (no weight decay)
  trainer->SetLearningRate(0.1);
  EXPECT_FLOAT_EQ(trainer->learning_rate(), 0.1);
  trainer->Update({x}, {y});
  EXPECT_FALSE(trainer->param(0).BitwiseEqual(w));
  EXPECT_EQ(CodeOf([&] { trainer->SetLearningRate(-1); }), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { trainer->SetLearningRate(NAN); }), ErrorCode::kInvalidArgument);
}

TEST(Trainer, ScheduleSetsTheRateOfEachUpdate) {
  auto trainer = LinearTrainer("sgd", "lr=0.05");
  Tensor x = SampleInputs(), y = SampleTargets();
  LrSchedule schedule = ParseLrSchedule("step:step_size=2,gamma=0.5,warmup=2");
  trainer->SetSchedule(schedule, 0.4);
  std::vector<double> rates;
  for (int i = 0; i < 6; ++i) {
    trainer->Update({x}, {y});
    rates.push_back(trainer->learning_rate());  // the rate the update just used
  }
  std::vector<double> want = {0.2, 0.4, 0.4, 0.4, 0.2, 0.2};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(rates[i], want[i]) << "update " << i;
  // A fixed rate replaces the schedule.
  trainer->SetLearningRate(0.01);
  trainer->Update({x}, {y});
  EXPECT_FALSE(trainer->schedule().has_value());
  EXPECT_FLOAT_EQ(trainer->learning_rate(), 0.01);
  EXPECT_EQ(CodeOf([&] { trainer->SetSchedule(ParseLrSchedule("cosine"), 0.1); }), ErrorCode::kInvalidArgument);
}

TEST(Trainer, ProfileOfAStepChangesNothing) {
  auto trainer = LinearTrainer();
  trainer->InitXavierUniform(4);
  Tensor w = trainer->param(0);
  Profile profile = trainer->ProfileStep({SampleInputs()}, {SampleTargets()});
  EXPECT_FALSE(profile.kernels.empty());
  int64_t calls = 0;
  for (const ProfileRow& row : profile.kernels) calls += row.calls;
  EXPECT_GT(calls, 0);
  EXPECT_NE(profile.Format().find("kernel"), std::string::npos);
  EXPECT_TRUE(trainer->param(0).BitwiseEqual(w));
  EXPECT_EQ(trainer->step(), 0);
}

TEST(Trainer, WrongInputsAreClearErrorsAndChangeNothing) {
  auto trainer = LinearTrainer();
  trainer->InitXavierUniform(4);
  Tensor x = SampleInputs(), y = SampleTargets();
  Tensor w = trainer->param(0);
  EXPECT_EQ(ErrorOf([&] { trainer->Update({x, x}, {y}); }),
            "train_step: expected 1 input (x) and 1 target (targets), got 2 inputs and 1 target");
  EXPECT_EQ(ErrorOf([&] { trainer->Update({x}, {}); }),
            "train_step: expected 1 input (x) and 1 target (targets), got 1 input and 0 targets");
  EXPECT_EQ(ErrorOf([&] { trainer->Predict({}); }), "predict: expected 1 input (x), got 0 inputs");
  EXPECT_EQ(ErrorOf([&] { trainer->Update({Tensor()}, {y}); }), "train_step: input 0 (x) is an undefined tensor");
  std::string dtype = ErrorOf([&] { trainer->Update({Tensor::Empty({4, 3}, DType::kFloat64)}, {y}); });
  EXPECT_NE(dtype.find("train_step: argument 0 (%x)"), std::string::npos) << dtype;
  EXPECT_NE(dtype.find("float64"), std::string::npos) << dtype;
  std::string shape = ErrorOf([&] { trainer->Predict({Ramp({5, 3}, 0, 1)}); });
  EXPECT_NE(shape.find("predict: argument 0 (%x)"), std::string::npos) << shape;
  std::string target = ErrorOf([&] { trainer->Evaluate({x}, {Ramp({4, 3}, 0, 1)}); });
  EXPECT_NE(target.find("backbone_loss: argument"), std::string::npos) << target;
  EXPECT_NE(target.find("targets"), std::string::npos) << target;
  EXPECT_TRUE(trainer->param(0).BitwiseEqual(w));
  EXPECT_EQ(trainer->step(), 0);
}

TEST(Trainer, CrossEntropyWithClassIndices) {
  auto trainer = test::MakeTrainer(test::LinearProgram("cross_entropy", "momentum", "lr=0.1, momentum=0.9"));
  EXPECT_EQ(trainer->program().targets[0].dtype, DType::kInt64);
  trainer->InitXavierUniform(9);
  Tensor labels = Tensor::FromVector<int64_t>({4}, DType::kInt64, {0, 1, 1, 0});
  double first = trainer->Update({SampleInputs()}, {labels}).GetAsDouble(0);
  for (int i = 0; i < 30; ++i) trainer->Update({SampleInputs()}, {labels});
  EXPECT_LT(trainer->Evaluate({SampleInputs()}, {labels}).GetAsDouble(0), first);
  std::string error = ErrorOf([&] { trainer->Update({SampleInputs()}, {SampleTargets()}); });
  EXPECT_NE(error.find("train_step: argument 1 (%targets)"), std::string::npos) << error;
}

}  // namespace
}  // namespace rxt
