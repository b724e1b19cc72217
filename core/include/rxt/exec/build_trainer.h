// The compiler's half of the Trainer: from a backbone module (with a loss and an optimizer) or
// a trainer module to the TrainerProgram the runtime's Trainer runs (train/trainer.h).
//
//   TrainerProgram program = BuildTrainerProgram(backbone,
//       {.loss = {"cross_entropy", "reduction=\"sum\""}, .optimizer = {"sgd", "lr=0.01"}},
//       {.backend = "cpu", .libraries = ChooseLibraries("cpu")});
//   Trainer trainer(std::move(program), std::make_shared<PluginKernelProvider>(
//       PluginKernelProvider::Find("cpu")));
#pragma once

#include "rxt/exec/build.h"
#include "rxt/ir/module.h"
#include "rxt/train/trainer_program.h"
#include "rxt/transform/training/setup_trainer.h"

namespace rxt {

/// Builds a trainer module (SetupTrainer's result, legalized or not: it has @train_step and
/// the attributes input_num, target_num, param_num, state_num, output_num, optim_state,
/// optim_state_names). Xavier fans come from how @backbone uses each parameter when its op
/// calls are still there (conv2d kernels in OIHW or HWIO, matmul weights (in, out)).
/// kInvalidArgument naming what is missing or inconsistent.
TrainerProgram BuildTrainerProgram(const IRModule& trainer_module, const BuildOptions& options = {});

/// SetupTrainer(backbone, setup) (legalization left to the build), then the above.
TrainerProgram BuildTrainerProgram(const IRModule& backbone, const TrainerSetup& setup,
                                   const BuildOptions& options = {});

/// True if |module| is a trainer module (has @train_step), false for a backbone module.
bool IsTrainerModule(const IRModule& module);

}  // namespace rxt
