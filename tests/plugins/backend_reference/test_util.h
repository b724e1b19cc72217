// Helpers of the reference interpreter's tests: kernels from text, and host tensors that
// own their memory and lend it out as DLTensors.
#pragma once

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "reference_interpreter.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"

namespace rxt::backend_reference::testing {

inline constexpr DLDataType kF16{kDLFloat, 16, 1};
inline constexpr DLDataType kBF16{kDLBfloat, 16, 1};
inline constexpr DLDataType kF32{kDLFloat, 32, 1};
inline constexpr DLDataType kF64{kDLFloat, 64, 1};
inline constexpr DLDataType kI8{kDLInt, 8, 1};
inline constexpr DLDataType kI16{kDLInt, 16, 1};
inline constexpr DLDataType kI32{kDLInt, 32, 1};
inline constexpr DLDataType kI64{kDLInt, 64, 1};
inline constexpr DLDataType kU8{kDLUInt, 8, 1};
inline constexpr DLDataType kBool{kDLUInt, 8, 1};  // how DLPack 0.6 producers send bool

/// Parses |text| (one or more kernels), encodes kernel |name| in the portable format and
/// decodes it for the interpreter: the path every kernel takes to a backend.
inline ReferenceInterpreter Compile(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  std::vector<uint8_t> bytes = EncodeKernel(module.GetKernel(name), name);
  return ReferenceInterpreter::FromBytes(bytes.data(), bytes.size());
}

inline std::string ReadSourceFile(const std::string& relative_path) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/" + relative_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A CPU tensor owning its bytes. |strides| (in elements) may leave gaps; the storage spans
/// every element they reach.
class HostTensor {
 public:
  HostTensor(std::vector<int64_t> shape, DLDataType dtype, std::vector<int64_t> strides = {})
      : shape_(std::move(shape)), strides_(std::move(strides)) {
    int64_t span = 1;
    bool empty = false;
    for (size_t d = 0; d < shape_.size(); ++d) {
      if (shape_[d] == 0) empty = true;
      if (!strides_.empty()) span += (shape_[d] - 1) * strides_[d];
    }
    if (strides_.empty()) span = std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<>());
    bytes_.assign(static_cast<size_t>(empty ? 0 : span) * dtype.bits / 8 + 64, 0);
    tensor_.data = bytes_.data();
    tensor_.device = {kDLCPU, 0};
    tensor_.ndim = static_cast<int>(shape_.size());
    tensor_.dtype = dtype;
    tensor_.shape = shape_.data();
    tensor_.strides = strides_.empty() ? nullptr : strides_.data();
    tensor_.byte_offset = 0;
  }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  DLTensor* dl() { return &tensor_; }
  KernelArg arg() { return KernelArg::Tensor(&tensor_); }
  int64_t numel() const { return std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<>()); }

  /// Element at |index| (in the logical shape), honouring strides.
  template <typename T>
  T& at(std::initializer_list<int64_t> index) {
    return *reinterpret_cast<T*>(static_cast<uint8_t*>(tensor_.data) + tensor_.byte_offset + Offset(index) * sizeof(T));
  }
  /// Element |i| in row-major order of the logical shape.
  template <typename T>
  T& flat(int64_t i) {
    int64_t offset = 0;
    for (size_t d = shape_.size(); d-- > 0;) {
      int64_t stride = strides_.empty() ? RowMajorStride(d) : strides_[d];
      offset += (i % shape_[d]) * stride;
      i /= shape_[d];
    }
    return *reinterpret_cast<T*>(static_cast<uint8_t*>(tensor_.data) + tensor_.byte_offset + offset * sizeof(T));
  }
  template <typename T>
  void Fill(const std::vector<T>& values) {
    for (size_t i = 0; i < values.size(); ++i) flat<T>(static_cast<int64_t>(i)) = values[i];
  }
  template <typename T>
  std::vector<T> Values() {
    std::vector<T> out(static_cast<size_t>(numel()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = flat<T>(static_cast<int64_t>(i));
    return out;
  }

 private:
  int64_t RowMajorStride(size_t d) const {
    int64_t s = 1;
    for (size_t k = d + 1; k < shape_.size(); ++k) s *= shape_[k];
    return s;
  }
  int64_t Offset(std::initializer_list<int64_t> index) const {
    int64_t offset = 0;
    size_t d = 0;
    for (int64_t i : index) {
      offset += i * (strides_.empty() ? RowMajorStride(d) : strides_[d]);
      ++d;
    }
    return offset;
  }

  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  std::vector<uint8_t> bytes_;
  DLTensor tensor_{};
};

/// Runs |kernel| and returns the KernelError's message, or "" if it ran.
inline std::string RunError(const ReferenceInterpreter& kernel, const std::vector<KernelArg>& args) {
  try {
    kernel.Run(args);
  } catch (const KernelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace rxt::backend_reference::testing
