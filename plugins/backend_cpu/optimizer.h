// From LLVM IR to machine code for a target machine: LLVM's O3 pipeline without loop unrolling
// and interleaving (optimizer.cc says why; its cost model sees
// the machine: vector widths, AVX-512), without fast-math, so that floating-point results stay
// those of serial, per-operation rounding; then an ELF object file.
#pragma once

#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace rxt::backend_cpu {

/// Keeps LLVM's remarks and warnings ("loop not vectorized: ...") off stderr; appends errors
/// to |*errors| (which must outlive the context's use).
void QuietDiagnostics(llvm::LLVMContext& context, std::string* errors);

/// Sets the module's target triple and data layout from |machine| and optimizes it in place.
void Optimize(llvm::Module& module, llvm::TargetMachine& machine);

/// The module as a relocatable object file. Throws std::runtime_error if the machine cannot
/// emit one.
std::vector<char> EmitObjectFile(llvm::Module& module, llvm::TargetMachine& machine);

}  // namespace rxt::backend_cpu
