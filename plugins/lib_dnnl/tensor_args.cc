#include "tensor_args.h"

namespace rxt::lib_dnnl {

int64_t FloatTensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

void CheckArity(int num_args, int expected, const char* function) {
  if (num_args != expected) {
    throw ArgumentError(std::string(function) + " takes " + std::to_string(expected) + " arguments (output last), got " +
                        std::to_string(num_args));
  }
}

namespace {

const DLTensor& TensorAt(void* const* args, int index, const char* what) {
  const auto* t = static_cast<const DLTensor*>(args[index]);
  if (t == nullptr) throw ArgumentError(std::string(what) + " is null");
  if (t->device.device_type != kDLCPU) throw ArgumentError(std::string(what) + " is not on the CPU");
  return *t;
}

bool IsCompact(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

}  // namespace

int64_t FloatView::size() const {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

FloatTensor FloatArg(void* const* args, int index, const char* what, int ndim, int min_ndim) {
  FloatView v = FloatArgView(args, index, what, ndim, min_ndim);
  FloatTensor out;
  out.data = v.data;
  out.shape = v.Shape();
  return out;
}

FloatView FloatArgView(void* const* args, int index, const char* what, int ndim, int min_ndim) {
  const DLTensor& t = TensorAt(args, index, what);
  if (t.dtype.code != kDLFloat || t.dtype.bits != 32 || t.dtype.lanes != 1) {
    throw ArgumentError(std::string(what) + " must be float32");
  }
  if ((ndim >= 0 && t.ndim != ndim) || t.ndim < min_ndim) {
    throw ArgumentError(std::string(what) + " must have " + (ndim >= 0 ? std::to_string(ndim) : "at least " + std::to_string(min_ndim)) +
                        " dims, got " + std::to_string(t.ndim));
  }
  if (!IsCompact(t)) throw ArgumentError(std::string(what) + " must be compact row-major");
  FloatView out;
  out.data = reinterpret_cast<float*>(static_cast<uint8_t*>(t.data) + t.byte_offset);
  out.shape = t.shape;
  out.ndim = t.ndim;
  return out;
}

int64_t IntArg(void* const* args, int index, const char* what) {
  const DLTensor& t = TensorAt(args, index, what);
  if (t.ndim != 0 || t.dtype.code != kDLInt || t.dtype.bits != 64) {
    throw ArgumentError(std::string(what) + " must be an int64 scalar");
  }
  return *reinterpret_cast<const int64_t*>(static_cast<const uint8_t*>(t.data) + t.byte_offset);
}

}  // namespace rxt::lib_dnnl
