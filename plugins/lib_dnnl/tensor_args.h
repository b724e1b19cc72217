// Reading the DLPack arguments of an extern call: checked float32 tensors and int scalars.
// Every check failure throws ArgumentError with a message naming the argument.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rxt::lib_dnnl {

struct ArgumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A compact row-major float32 CPU tensor.
struct FloatTensor {
  float* data = nullptr;
  std::vector<int64_t> shape;
  int64_t size() const;
};

/// A float32 argument read in place (its dims are the caller's: nothing is copied or
/// allocated), for calls small enough that a copy of the shape would show (batch-1 GEMMs).
struct FloatView {
  float* data = nullptr;
  const int64_t* shape = nullptr;
  int ndim = 0;
  int64_t size() const;
  std::vector<int64_t> Shape() const { return std::vector<int64_t>(shape, shape + ndim); }
};

/// Checks the argument count: |expected| including the output.
void CheckArity(int num_args, int expected, const char* function);
/// args[index] as a float32 tensor of |ndim| dims (-1: any, at least |min_ndim|).
FloatTensor FloatArg(void* const* args, int index, const char* what, int ndim, int min_ndim = 0);
/// The same checks, read in place.
FloatView FloatArgView(void* const* args, int index, const char* what, int ndim, int min_ndim = 0);
/// args[index] as a 0-d int64 scalar (how the VM passes integer arguments).
int64_t IntArg(void* const* args, int index, const char* what);
/// "(2, 3)"
std::string ShapeText(const std::vector<int64_t>& shape);

}  // namespace rxt::lib_dnnl
