// Helpers of the CPU backend's tests: kernels from text compiled by the backend, and a
// differential harness that runs a kernel on the reference interpreter (the oracle) and on
// the CPU backend with the same arguments and compares every tensor afterwards.
//
//   ExpectAgree(kText, "ops", {ArgSpec::Tensor({n}, kF16), ArgSpec::Tensor({n}, kF16)});
#pragma once

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cpu_kernel.h"
#include "rxt/plugin_support/kernel_codec.h"
#include "test_util.h"  // tests/plugins/backend_reference: HostTensor, Compile, dtype constants

namespace rxt::backend_cpu::testing {

using backend_reference::testing::HostTensor;
using backend_reference::testing::kBF16;
using backend_reference::testing::kBool;
using backend_reference::testing::kF16;
using backend_reference::testing::kF32;
using backend_reference::testing::kF64;
using backend_reference::testing::kI16;
using backend_reference::testing::kI32;
using backend_reference::testing::kI64;
using backend_reference::testing::kI8;
using backend_reference::testing::kU8;
using backend_reference::testing::ReadSourceFile;

/// The test binary's one JIT.
JitCompiler& TestJit();
/// The runtime of a thread pool of |threads| threads (pools live for the whole test binary).
const rxt_kernel_runtime_t* PoolRuntime(int threads);

/// Kernel |name| of |text| in the portable kernel format (what the backend compiles).
plugin_support::kernel_format::Kernel DecodeKernelText(const std::string& text, const std::string& name);
/// Parses |text| and compiles kernel |name| with the CPU backend.
std::unique_ptr<CpuKernel> CompileCpu(const std::string& text, const std::string& name);
/// Calls |kernel| on |args| (scalars as 0-d tensors); "" or the error message.
std::string CallCpu(CpuKernel& kernel, const std::vector<DLTensor*>& args, const rxt_kernel_runtime_t* runtime = nullptr);

/// One argument of a differential run.
struct ArgSpec {
  enum class Kind { kTensor, kInt, kFloat } kind = Kind::kTensor;
  std::vector<int64_t> shape;
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<int64_t> strides;  // empty: compact
  int64_t int_value = 0;
  double float_value = 0;

  static ArgSpec Tensor(std::vector<int64_t> shape, DLDataType dtype, std::vector<int64_t> strides = {}) {
    ArgSpec a;
    a.shape = std::move(shape);
    a.dtype = dtype;
    a.strides = std::move(strides);
    return a;
  }
  static ArgSpec Int(int64_t v) {
    ArgSpec a;
    a.kind = Kind::kInt;
    a.int_value = v;
    return a;
  }
  static ArgSpec Float(double v) {
    ArgSpec a;
    a.kind = Kind::kFloat;
    a.float_value = v;
    return a;
  }
};

struct AgreeOptions {
  uint32_t seed = 1;
  double lo = -4, hi = 4;    // float inputs: uniform in [lo, hi]; integers: in [lo, hi] too
  bool full_int_range = false;  // integers: random bits instead
  bool special_floats = false;  // some float inputs NaN, infinities, signed zeros
  int threads = 1;              // the CPU backend's pool
};

/// Runs kernel |name| of |text| on both backends with the same (random) arguments and checks
/// that both fail alike or every tensor ends bit-for-bit equal (any NaN equals any NaN).
void ExpectAgree(const std::string& text, const std::string& name, const std::vector<ArgSpec>& args,
                 const AgreeOptions& options = {});

}  // namespace rxt::backend_cpu::testing
