#include "target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>
#include <optional>
#include <stdexcept>

namespace rxt::backend_cpu {

void InitializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

const HostTarget& Host() {
  static const HostTarget host = [] {
    HostTarget t;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    if (llvm::sys::getHostCPUFeatures(features)) {
      for (const auto& f : features) {
        if (!t.features.empty()) t.features += ",";
        t.features += (f.second ? "+" : "-") + f.first().str();
      }
    }
    return t;
  }();
  return host;
}

std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const HostTarget& target) {
  InitializeLlvm();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (t == nullptr) throw std::runtime_error("LLVM has no target for " + target.triple + ": " + error);
  llvm::TargetOptions options;
  // No fused multiply-add unless the IR asks for it: results must equal the reference
  // interpreter's, which rounds after every operation.
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  std::unique_ptr<llvm::TargetMachine> machine(t->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOpt::Aggressive));
  if (!machine) throw std::runtime_error("LLVM cannot create a target machine for " + target.cpu);
  return machine;
}

}  // namespace rxt::backend_cpu
