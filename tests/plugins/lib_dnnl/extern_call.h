// Calling the rxt_lib_dnnl extern functions from tests the way the VM calls them (DLTensor
// views, output last, integers as 0-d int64 tensors), and comparing float results.
#pragma once

#include <string>
#include <vector>

#include "rxt/runtime/tensor.h"

namespace rxt::test {

/// Loads the plugin (once) and calls extern |name|; throws what the call reports.
void CallExtern(const std::string& name, const std::vector<Tensor>& args);
/// The error message of the call, or "(no error)".
std::string CallExternError(const std::string& name, const std::vector<Tensor>& args);
/// A 0-d int64 tensor.
Tensor IntScalar(int64_t v);
/// Every element of float32 |got| within |tolerance| (relative to 1 + |expected|).
void ExpectClose(const Tensor& got, const std::vector<double>& expected, double tolerance = 1e-4);

}  // namespace rxt::test
