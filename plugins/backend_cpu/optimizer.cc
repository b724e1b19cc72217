#include "optimizer.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <stdexcept>
#include <string>

namespace rxt::backend_cpu {

void QuietDiagnostics(llvm::LLVMContext& context, std::string* errors) {
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& info, void* user) {
        if (info.getSeverity() != llvm::DS_Error) return;
        auto* errors = static_cast<std::string*>(user);
        llvm::raw_string_ostream os(*errors);
        llvm::DiagnosticPrinterRawOStream printer(os);
        if (!errors->empty()) os << "; ";
        info.print(printer);
      },
      errors);
}

void Optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os)) throw std::runtime_error("code generation produced invalid LLVM IR: " + os.str());

  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  // O3 without loop unrolling and interleaving: kernels' loops stay vectorized, but their bodies
  // are not copied 4-8 times over. The work that could use the copies (GEMMs, convolutions) runs
  // in the kernel libraries; what is generated is elementwise and reductions over memory, where
  // the copies measured no faster (resnet18 inference, the encoder's training step, the seed MLP's
  // epoch: within noise) and cost half the compile time (resnet18's training step: 7.6-9.0 s of
  // CPU -> 4.3-4.4 s; its batch normalizations were 110-255 ms each). docs/backend_cpu.md.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = false;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

std::vector<char> EmitObjectFile(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, llvm::CGFT_ObjectFile)) {
    throw std::runtime_error("LLVM cannot emit object files for " + machine.getTargetTriple().str());
  }
  passes.run(module);
  return std::vector<char>(buffer.begin(), buffer.end());
}

}  // namespace rxt::backend_cpu
