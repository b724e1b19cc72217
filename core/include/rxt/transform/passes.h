// Every pass of rxt, one line each: the index to read first. Each pass lives in its own file
// (named after it) under core/src/transform/{analysis,rewrite,legalize,fusion,training}/,
// which documents the details.
//
// By name: ListPasses() / CreatePass(name) / RunPasses(module, names, context), as used by
// `rxt show --passes` and the C ABI. Pass options travel in PassContext::options under
// "<PassName>.<option>"; each pass lists its options below.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rxt/pass/pass.h"
#include "rxt/pass/pass_registry.h"
#include "rxt/runtime/tensor.h"

namespace rxt {
class LibraryProvider;   // transform/legalize/library_patterns.h
class TrainingProvider;  // transform/training/providers.h
}

namespace rxt {

/// Checks the module is well formed (ir/well_formed.h); throws listing every problem.
Pass WellFormed();

/// Re-normalizes every function through the BlockBuilder: fills struct info, A-normal form,
/// merges adjacent non-dataflow blocks, drops empty blocks.
Pass Normalize();

/// Removes unused pure bindings (to a fixpoint) and empty blocks; keeps every function.
/// Option DeadCodeElimination.remove_unused_kernels (bool, false): also removes kernels that
/// no Relax function references.
Pass DeadCodeElimination();

/// Replaces variables bound to another variable (and other trivial aliases: a tuple field of
/// a tuple literal, a match_cast that refines nothing) by the original.
Pass CanonicalizeBindings();

/// Replaces the named parameters of |func_name| by constants, drops them from its signature
/// and fixes the symbolic dims their shapes determine (the seed's BindParams).
/// By name ("BindParams"): options BindParams.func_name (string, "main") and one
/// BindParams.param.<name> (tensor) per parameter to bind.
Pass BindParams(std::string func_name, std::map<std::string, Tensor> params);

/// Fixes the named symbolic dims of |func_name|'s parameters to numbers everywhere in the
/// function (TVM's BindSymbolicVars), then re-normalizes: struct info downstream becomes static.
Pass BindSymbolicVars(std::string func_name, std::map<std::string, int64_t> values);

/// Groups runs of pure bindings outside dataflow blocks into dataflow blocks; variables used
/// after the run stay its outputs. Option ConvertToDataflow.min_size (int, 2): shorter runs
/// are left alone.
Pass ConvertToDataflow();

/// Replaces each gradient_of(y, wrt) call at the top level of a function by the backward pass
/// of the bindings that compute y from wrt (the Gradient pass's adjoint of a function made of
/// them, returning sum(y)), inlined in its place (transform/training/lower_gradient_of.cc).
/// Runs before LegalizeOps, which cannot lower gradient_of call by call. |rules| as for Gradient
/// (default: the process-wide plugin host's gradient rules).
Pass LowerGradientOf(const TrainingProvider* rules = nullptr);

/// Lowers every op call to a call_kernel of a kernel generated from the op's compute
/// definition (transform/legalize/legalize.h, tensor_expr.h); structurally equal kernels are shared.
/// Calls it cannot lower are all reported in one error, unless option
/// LegalizeOps.allow_missing (bool, false) leaves them as they are.
Pass LegalizeOps();

/// Groups call_kernel chains inside dataflow blocks that can become one kernel (elementwise,
/// broadcast and injective producers into their consumer, injective producers into a
/// reduction, elementwise work after a matmul-like kernel) into functions marked
/// `primitive = true`, called in their place. Kinds come from the kernels' op_pattern
/// attribute (transform/analysis/op_pattern.h). opt_level 1.
Pass FuseOps();

/// Merges each function FuseOps made into one kernel (producers inlined, epilogues in the
/// reduction's loop nest) and calls it with call_kernel; structurally equal kernels are
/// shared, kernels left unused by the merge are removed. opt_level 1.
Pass FuseKernels();

/// Marks the outermost loop of each loop nest of every kernel `parallel` where its iterations
/// write disjoint elements (spatial loops; never a reduction's, nor one a reduction starts
/// under). The backend decides at run time whether a loop has enough work for the threads.
Pass ParallelizeLoops();

/// Inside each dataflow block, moves a call whose results only reach the function's result to
/// just after the bindings it reads, when it is the last reader of a tensor computed there (a
/// training step's parameter updates: each runs once its gradient exists, so the memory plan
/// shares the gradients' memory). Same results; last in the build pipeline.
Pass ReorderForMemory();

/// Inside each dataflow block, moves each ccl.allreduce_start (or the call_extern it legalizes
/// to) to just after the bindings it reads, keeping the starts in their order: a bucket of
/// gradients starts combining over the ranks as soon as the backward pass has computed it, and
/// the communication overlaps with the rest (docs/distributed.md). Same results.
Pass ScheduleCollectives();

/// Replaces op calls a kernel library does better by what its patterns build, call_extern of
/// its functions with what follows folded in (a bias add, a ReLU...; docs/libraries.md).
/// Libraries come from |libraries| (null: the process-wide plugin host, whose plugins provide
/// them). Option LegalizeLibraryCalls.libraries: comma-separated names ("dnnl"); absent:
/// changes nothing.
Pass LegalizeLibraryCalls(const LibraryProvider* libraries = nullptr);

/// Reverse-mode automatic differentiation (transform/training/gradient.h, docs/training.md): adds
/// @<func_name>_adjoint returning (original result, (adjoint of each required parameter)).
/// Gradient rules come from loaded plugins (plugins/grad_std). By name ("Gradient"): options
/// Gradient.func_name (string, "main"), Gradient.require_grads (int list of parameter indices;
/// absent: every parameter), Gradient.target_index (int, 0).
Pass Gradient(std::string func_name, std::optional<std::vector<int>> require_grads = std::nullopt,
              int target_index = 0);

/// Folds each inference batch normalization (nn.batch_norm, training=false) of a convolution
/// whose weights and normalization parameters are constants into the convolution's weights and
/// a bias add; leaves everything else as it is.
Pass FoldBatchNorm();
/// Cuts the kernel taps of convolutions with constant weights that read only padding (a 3x3
/// kernel on a 1x1 map keeps its centre) and shrinks the padding to match; same result.
Pass TrimConvTaps();
/// Removes the transposes differentiation leaves behind: permute_dims of permute_dims becomes
/// one permute_dims (or nothing), and matmul with transposed operands is rewritten to need
/// fewer transposes (matmul(aT, bT) = (b a)T; (a bT)T = b aT). Run it after Gradient.
Pass SimplifyTransposes();

// Training transforms, in their own headers (they take functions and plugin items; by name they
// take the loss and optimizer by name, from the process's plugins):
//   Pass AppendLoss(...) (transform/training/append_loss.h): appends a loss function to a
//   backbone function. By name: AppendLoss(loss=mse, loss_options="...", func_name=backbone).
//   Pass SetupTrainer(...) (transform/training/setup_trainer.h): backbone module -> trainer
//   module (loss, adjoint, optimizer, predict, train_step, attributes), docs/training.md. By
//   name: SetupTrainer(loss=..., optimizer=..., optimizer_options="...", legalize=true).

// ---- By name (pass/pass_registry.h: ListPasses, CreatePass, RunPasses).

/// Adds every pass above to |registry| (the compiler's initialisation does, for the global one).
void RegisterStandardPasses(PassRegistry& registry);

}  // namespace rxt
