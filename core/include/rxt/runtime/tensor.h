// A dense host tensor: dtype, shape and shared, 64-byte aligned storage.
// Constants in the IR, module attributes and runtime values all use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "rxt/support/dtype.h"

namespace rxt {

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor

  /// Allocates uninitialized (but zero-filled for determinism) storage.
  static Tensor Empty(std::vector<int64_t> shape, DType dtype);
  /// Copies |nbytes| bytes from |data|; nbytes must equal the tensor's size.
  static Tensor FromBytes(std::vector<int64_t> shape, DType dtype, const void* data, size_t nbytes);
  /// Wraps existing storage without copying (DLPack import): |storage| must hold the tensor's
  /// bytes, 64-byte aligned; the tensor shares ownership of it.
  static Tensor FromSharedStorage(std::vector<int64_t> shape, DType dtype, std::shared_ptr<std::byte> storage) {
    Tensor t;
    t.shape_ = std::move(shape);
    t.dtype_ = dtype;
    t.storage_ = std::move(storage);
    return t;
  }
  template <typename T>
  static Tensor FromVector(std::vector<int64_t> shape, DType dtype, const std::vector<T>& values) {
    return FromBytes(std::move(shape), dtype, values.data(), values.size() * sizeof(T));
  }

  bool defined() const { return storage_ != nullptr; }
  /// How many tensors (and views) share this tensor's storage, itself included; 0 if undefined.
  long storage_use_count() const { return storage_.use_count(); }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const;
  size_t nbytes() const;

  void* data() { return storage_.get(); }
  const void* data() const { return storage_.get(); }
  template <typename T>
  T* data_as() { return static_cast<T*>(data()); }
  template <typename T>
  const T* data_as() const { return static_cast<const T*>(data()); }

  /// Reads element |i| (flat index) converted to double, for any dtype.
  double GetAsDouble(int64_t i) const;
  /// Writes element |i| (flat index) from a double, converting to the dtype.
  void SetFromDouble(int64_t i, double value);

  /// A view of the same storage with |shape| (row-major, so only the dims change): no copy.
  /// Throws kInvalidArgument unless the element counts agree.
  Tensor Reshaped(std::vector<int64_t> shape) const;
  /// Deep copy.
  Tensor Clone() const;
  /// Same dtype, shape and bytes.
  bool BitwiseEqual(const Tensor& other) const;

 private:
  std::shared_ptr<std::byte> storage_;
  std::vector<int64_t> shape_;
  DType dtype_ = DType::kUnknown;
};

}  // namespace rxt
