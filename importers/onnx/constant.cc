#include "constant.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include "onnx_model.h"
#include "tensor_data.h"

namespace rxt::import_onnx {
namespace {

using onnx::TensorProto;

template <typename T>
T Load(const std::string& bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void Store(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

std::string NumberText(double v, int dtype) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[64];
  std::to_chars_result r = dtype == TensorProto::DOUBLE
                               ? std::to_chars(buffer, buffer + sizeof buffer, v)
                               : std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(v));
  return std::string(buffer, r.ptr);
}

namespace {

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);  // inf, nan
  if (abs >= 0x477ff000) return sign | 0x7c00;                                      // overflow: inf
  if (abs < 0x38800000) {                                                           // subnormal or zero
    const float scaled = std::fabs(f) * 16777216.0f;                                // 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  const uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);  // round to nearest even
  return sign | static_cast<uint16_t>((rounded - 0x38000000) >> 13);
}

}  // namespace

size_t Constant::size() const { return is_float() ? floats.size() : ints.size(); }

bool Constant::is_float() const { return IsFloatType(dtype); }

bool Constant::is_symbolic() const {
  for (const std::string& s : symbols) {
    if (!s.empty()) return true;
  }
  return false;
}

std::string Constant::element_text(size_t i) const {
  if (is_symbolic(i)) return symbols[i];
  return is_float() ? NumberText(floats[i], dtype) : std::to_string(ints[i]);
}

Constant ConstantFromTensor(const TensorProto& t, const std::string& model_dir) {
  const std::string bytes = TensorBytes(t, model_dir);
  Constant c;
  c.dtype = t.data_type();
  c.shape.assign(t.dims().begin(), t.dims().end());
  const size_t n = ElementCount(t);
  if (c.is_float()) c.floats.resize(n);
  else c.ints.resize(n);
  for (size_t i = 0; i < n; ++i) {
    switch (c.dtype) {
      case TensorProto::FLOAT: c.floats[i] = Load<float>(bytes, i); break;
      case TensorProto::DOUBLE: c.floats[i] = Load<double>(bytes, i); break;
      case TensorProto::FLOAT16: c.floats[i] = HalfToFloat(Load<uint16_t>(bytes, i)); break;
      case TensorProto::BFLOAT16: c.floats[i] = BFloat16ToFloat(Load<uint16_t>(bytes, i)); break;
      case TensorProto::INT64: c.ints[i] = Load<int64_t>(bytes, i); break;
      case TensorProto::INT32: c.ints[i] = Load<int32_t>(bytes, i); break;
      case TensorProto::INT16: c.ints[i] = Load<int16_t>(bytes, i); break;
      case TensorProto::INT8: c.ints[i] = Load<int8_t>(bytes, i); break;
      case TensorProto::UINT8: c.ints[i] = Load<uint8_t>(bytes, i); break;
      case TensorProto::BOOL: c.ints[i] = Load<uint8_t>(bytes, i) != 0; break;
      default: break;
    }
  }
  return c;
}

Constant MakeIntConstant(std::vector<int64_t> values, std::vector<int64_t> shape) {
  Constant c;
  c.dtype = TensorProto::INT64;
  c.ints = std::move(values);
  c.shape = std::move(shape);
  return c;
}

double RoundToType(double value, int dtype) {
  switch (dtype) {
    case TensorProto::FLOAT: return static_cast<float>(value);
    case TensorProto::FLOAT16: return HalfToFloat(FloatToHalf(static_cast<float>(value)));
    case TensorProto::BFLOAT16: {
      float f = static_cast<float>(value);
      uint32_t x;
      std::memcpy(&x, &f, sizeof x);
      if ((x & 0x7fffffff) <= 0x7f800000) x += 0x7fff + ((x >> 16) & 1);
      return BFloat16ToFloat(static_cast<uint16_t>(x >> 16));
    }
    default: return value;
  }
}

int64_t WrapToType(int64_t value, int dtype) {
  switch (dtype) {
    case TensorProto::INT32: return static_cast<int32_t>(value);
    case TensorProto::INT16: return static_cast<int16_t>(value);
    case TensorProto::INT8: return static_cast<int8_t>(value);
    case TensorProto::UINT8: return static_cast<uint8_t>(value);
    case TensorProto::BOOL: return value != 0;
    default: return value;
  }
}

std::string ConstantBytes(const Constant& c) {
  std::string out;
  for (size_t i = 0; i < c.size(); ++i) {
    switch (c.dtype) {
      case TensorProto::FLOAT: Store<float>(out, static_cast<float>(c.floats[i])); break;
      case TensorProto::DOUBLE: Store<double>(out, c.floats[i]); break;
      case TensorProto::FLOAT16: Store<uint16_t>(out, FloatToHalf(static_cast<float>(c.floats[i]))); break;
      case TensorProto::BFLOAT16: {
        float f = static_cast<float>(RoundToType(c.floats[i], TensorProto::BFLOAT16));
        uint32_t x;
        std::memcpy(&x, &f, sizeof x);
        Store<uint16_t>(out, static_cast<uint16_t>(x >> 16));
        break;
      }
      case TensorProto::INT64: Store<int64_t>(out, c.ints[i]); break;
      case TensorProto::INT32: Store<int32_t>(out, static_cast<int32_t>(c.ints[i])); break;
      case TensorProto::INT16: Store<int16_t>(out, static_cast<int16_t>(c.ints[i])); break;
      case TensorProto::INT8: Store<int8_t>(out, static_cast<int8_t>(c.ints[i])); break;
      default: Store<uint8_t>(out, static_cast<uint8_t>(c.ints[i])); break;
    }
  }
  return out;
}

std::string ConstantDataText(const Constant& c) {
  auto element = [&](size_t i) -> std::string {
    if (c.dtype == TensorProto::BOOL) return c.ints[i] != 0 ? "true" : "false";
    return c.element_text(i);
  };
  if (c.shape.empty()) return element(0);
  // Row-major nesting: open a bracket per dim, close them as indices roll over.
  std::string out;
  size_t flat = 0;
  std::function<void(size_t)> emit = [&](size_t dim) {
    out += '[';
    for (int64_t k = 0; k < c.shape[dim]; ++k) {
      if (k > 0) out += ", ";
      if (dim + 1 == c.shape.size()) {
        out += element(flat++);
      } else {
        emit(dim + 1);
      }
    }
    out += ']';
  };
  emit(0);
  return out;
}

}  // namespace rxt::import_onnx
