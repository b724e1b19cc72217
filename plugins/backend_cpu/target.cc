#include "target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

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

namespace {

// Every target LLVM was built with, once: a library may be compiled for another architecture.
void InitializeAllLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

}  // namespace

const MachineTarget& Host() {
  static const MachineTarget host = [] {
    MachineTarget t;
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

MachineTarget ResolveTarget(const std::string& triple, const std::string& cpu, const std::string& features) {
  const MachineTarget& host = Host();
  MachineTarget t;
  const bool host_triple = triple.empty() || llvm::Triple::normalize(triple) == llvm::Triple::normalize(host.triple);
  if (host_triple) {
    t = host;
    if (!cpu.empty()) {
      t.cpu = cpu;
      t.features.clear();  // the CPU's own: the host's features describe the host's CPU
    }
  } else {
    t = {llvm::Triple::normalize(triple), cpu.empty() ? "generic" : cpu, ""};
  }
  if (!features.empty()) t.features += (t.features.empty() ? "" : ",") + features;
  if (host_triple && cpu.empty()) return t;
  InitializeLlvm();
  if (!host_triple) InitializeAllLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (target == nullptr) throw std::invalid_argument("cannot compile for '" + triple + "': " + error);
  // LLVM would only warn (on stderr) and compile for its default CPU.
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(t.triple, "", ""));
  if (t.cpu != "generic" && (info == nullptr || !info->isCPUStringValid(t.cpu))) {
    throw std::invalid_argument("'" + t.cpu + "' is not a CPU LLVM knows for " + t.triple);
  }
  return t;
}

bool IsHostTriple(const MachineTarget& target) {
  llvm::Triple t(target.triple), host(Host().triple);
  return t.getArch() == host.getArch() && t.getOS() == host.getOS();
}

std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const MachineTarget& target) {
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
