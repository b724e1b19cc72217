// What the Trainer runs: the executable of a trainer module (transform/training/setup_trainer.h) and
// the layout of its functions' arguments. It is plain data of the runtime, so a device that
// only trains links the runtime; the compiler makes it (exec/build_trainer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rxt/runtime/executable.h"
#include "rxt/runtime/tensor.h"

namespace rxt {

/// One argument of the trainer's functions: its name in the backbone (without '%') and type.
struct TrainerTensorSpec {
  std::string name;
  DType dtype = DType::kUnknown;
  /// -1 for a dim that is not static; empty with ndim < 0 unknown (never for params).
  std::vector<int64_t> shape;
  int ndim = -1;
  /// Xavier initialization's fans, from how the backbone uses the parameter: a conv2d kernel
  /// in OIHW or HWIO (in/out channels times the kernel's window), a matmul weight stored as
  /// (in, out). 0 when not known: Xavier then uses PyTorch's rule (dim 1 and dim 0 times the
  /// product of the other dims).
  int64_t fan_in = 0;
  int64_t fan_out = 0;

  bool IsStatic() const;
  /// "Tensor((784, 128), float32)" (with "?" for a dim that is not static).
  std::string TypeText() const;
};

/// The value an optimizer state starts from. Most are filled with one value (momentum buffers:
/// zeros), kept as that one element so that a trainer does not hold a second copy of every
/// buffer for ResetOptimizer; the others keep their tensor.
struct InitialOptimState {
  DType dtype = DType::kUnknown;
  std::vector<int64_t> shape;
  Tensor values;  // the whole value, or one element (shape ()) repeated everywhere
  /// |value| as one element when all its elements are bitwise equal, else as it is.
  static InitialOptimState Of(const Tensor& value);
  /// A new tensor holding the initial value (zeros are the new storage as it comes: untouched).
  Tensor Materialize() const;
  /// Whether |value| is bitwise the initial value (dtype, shape and every element).
  bool Holds(const Tensor& value) const;
};

struct TrainerProgram {
  /// Functions @train_step, @predict and @backbone_loss (the argument orders are in
  /// transform/training/setup_trainer.h).
  Executable executable;
  std::vector<TrainerTensorSpec> inputs, targets, params, states;
  int output_num = 1;
  /// The optimizer's state: names ("lr", "weight_decay", "step", "exp_avg.0", ...) and
  /// initial values, in @train_step's order.
  std::vector<std::string> optim_state_names;
  std::vector<InitialOptimState> initial_optim_state;
};

}  // namespace rxt
