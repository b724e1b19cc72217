// Small trainers for the Trainer's tests: a linear layer (4 samples, 3 features, 2 outputs)
// built with the standard training plugins and run on the reference interpreter.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "test_util/reference_provider.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/ir/parser.h"
#include "rxt/train/trainer.h"
#include "test_util/training_plugins.h"

namespace rxt::test {

inline const char* kLinearBackbone = R"(
attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))
    -> Tensor((4, 2), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
})";

/// The linear backbone for batches of |batch| samples (3 features, 2 outputs).
inline std::string LinearBackboneOfBatch(int batch) {
  std::string text = kLinearBackbone;
  for (const std::string from : {"(4, 3)", "(4, 2)"}) {
    std::string to = "(" + std::to_string(batch) + from.substr(2);
    text.replace(text.find(from), from.size(), to);
  }
  return text;
}

inline TrainerProgram LinearProgram(const std::string& loss, const std::string& optimizer,
                                    const std::string& optimizer_options) {
  return BuildTrainerProgram(ParseModule(kLinearBackbone),
                             {.loss = {loss, "reduction=\"sum\""},
                              .optimizer = {optimizer, optimizer_options},
                              .plugins = &TrainingPlugins()},
                             {.backend = "reference"});
}

inline std::unique_ptr<Trainer> MakeTrainer(TrainerProgram program) {
  return std::make_unique<Trainer>(std::move(program), std::make_shared<testing::ReferenceKernelProvider>());
}

/// A linear trainer with MSE (sum) and |optimizer|.
inline std::unique_ptr<Trainer> LinearTrainer(const std::string& optimizer = "sgd",
                                              const std::string& options = "lr=0.05") {
  return MakeTrainer(LinearProgram("mse", optimizer, options));
}

/// A float32 tensor whose element i is start + i * step.
inline Tensor Ramp(std::vector<int64_t> shape, float start, float step) {
  Tensor t = Tensor::Empty(std::move(shape), DType::kFloat32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = start + static_cast<float>(i) * step;
  return t;
}

inline Tensor SampleInputs() { return Ramp({4, 3}, -0.5f, 0.1f); }
inline Tensor SampleTargets() { return Ramp({4, 2}, 0.3f, -0.07f); }

/// The message of the rxt::Error |f| throws, or "(no error)".
inline std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// The code of the rxt::Error |f| throws, or kOk.
inline ErrorCode CodeOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

}  // namespace rxt::test
