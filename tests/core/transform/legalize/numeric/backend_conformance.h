// The conformance check of every backend: each kernel the numeric tests run on the reference
// interpreter is also run on every other backend the build has (plugins in the build's plugin
// directory, e.g. the LLVM "cpu" backend), on the same inputs, and must give the same outputs
// (integers and booleans exactly, floats within a few ulps' worth of tolerance). So every op's
// numeric tests are the conformance suite of every backend.
#pragma once

#include <dlpack/dlpack.h>

#include <map>
#include <string>
#include <vector>

namespace rxt::numeric {

/// Runs kernel |name| (portable-format |bytes|) on every non-reference backend with |args| (the
/// kernel's inputs, then outputs already holding the reference's results; scalars as 0-d
/// tensors) and records a test failure for any output that differs.
void CheckKernelOnEveryBackend(const std::string& name, const std::vector<uint8_t>& bytes,
                               const std::vector<DLTensor>& args, size_t num_outputs);

/// Kernels compared so far, per backend name.
const std::map<std::string, int>& KernelsCheckedPerBackend();
/// The backends loaded for the check.
std::vector<std::string> ConformanceBackends();

}  // namespace rxt::numeric
