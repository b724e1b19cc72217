// The machine the CPU backend compiles for: this host (its CPU name and features, so that
// AVX-512 is used where present) for the JIT and, by default, for ahead-of-time libraries; or
// another machine, of another CPU or architecture, for a library built here to run there.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace rxt::backend_cpu {

struct MachineTarget {
  std::string triple;    // "x86_64-pc-linux-gnu"
  std::string cpu;       // "sapphirerapids"
  std::string features;  // "+avx512f,+avx2,...,-amx-tile" (what LLVM detected)
};

/// Initializes LLVM's native target once per process (thread-safe).
void InitializeLlvm();

/// This host, as LLVM sees it.
const MachineTarget& Host();

/// The machine |triple| ("aarch64-linux-gnu"), |cpu| and |features| describe; empty fields
/// take this host's values, its CPU and features only when |triple| is empty or the host's
/// (another triple gets the architecture's baseline CPU, "generic"). |features| adds to the
/// CPU's own. Throws std::invalid_argument naming the triple when LLVM cannot compile for it.
MachineTarget ResolveTarget(const std::string& triple, const std::string& cpu, const std::string& features);

/// Whether |target| is this host's architecture and system (then this process can load what is
/// compiled for it, CPU features permitting).
bool IsHostTriple(const MachineTarget& target);

/// A target machine for |target| at the highest optimization level, position-independent
/// (the JIT does not mind, and shared libraries need it). Throws std::runtime_error if LLVM
/// has no such target.
std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const MachineTarget& target);

}  // namespace rxt::backend_cpu
