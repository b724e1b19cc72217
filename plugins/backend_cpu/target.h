// The machine the CPU backend compiles for: this host (its CPU name and features, so that
// AVX-512 is used where present), for the JIT and for ahead-of-time libraries alike.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
}

namespace rxt::backend_cpu {

struct HostTarget {
  std::string triple;    // "x86_64-pc-linux-gnu"
  std::string cpu;       // "sapphirerapids"
  std::string features;  // "+avx512f,+avx2,...,-amx-tile" (what LLVM detected)
};

/// Initializes LLVM's native target once per process (thread-safe).
void InitializeLlvm();

/// This host, as LLVM sees it.
const HostTarget& Host();

/// A target machine for |target| at the highest optimization level, position-independent
/// (the JIT does not mind, and shared libraries need it). Throws std::runtime_error if LLVM
/// has no such target.
std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const HostTarget& target);

}  // namespace rxt::backend_cpu
