#include "tensor_data.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "onnx_model.h"

namespace rxt::import_onnx {
namespace {

using onnx::TensorProto;

/// Appends |value| as sizeof(To) little-endian bytes.
template <typename To, typename From>
void Append(std::string& out, From value) {
  To v = static_cast<To>(value);
  out.append(reinterpret_cast<const char*>(&v), sizeof(To));
}

/// The bytes of the typed repeated field that holds |t|'s data (ONNX's layout: int32_data for
/// the types of 32 bits or fewer, float16 as its bits; int64_data; float_data; double_data).
std::string TypedFieldBytes(const TensorProto& t) {
  std::string out;
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      for (float v : t.float_data()) Append<float>(out, v);
      break;
    case TensorProto::DOUBLE:
      for (double v : t.double_data()) Append<double>(out, v);
      break;
    case TensorProto::INT64:
      for (int64_t v : t.int64_data()) Append<int64_t>(out, v);
      break;
    case TensorProto::INT32:
      for (int32_t v : t.int32_data()) Append<int32_t>(out, v);
      break;
    case TensorProto::INT16:
      for (int32_t v : t.int32_data()) Append<int16_t>(out, v);
      break;
    case TensorProto::INT8:
      for (int32_t v : t.int32_data()) Append<int8_t>(out, v);
      break;
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      for (int32_t v : t.int32_data()) Append<uint8_t>(out, v);
      break;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      for (int32_t v : t.int32_data()) Append<uint16_t>(out, v);
      break;
    default:
      break;
  }
  return out;
}

std::string ExternalBytes(const TensorProto& t, const std::string& model_dir, size_t expected) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    try {
      if (e.key() == "location") location = e.value();
      if (e.key() == "offset") offset = std::stoll(e.value());
      if (e.key() == "length") length = std::stoll(e.value());
    } catch (const std::exception&) {
      throw ImportError("initializer '" + t.name() + "': external data " + e.key() + " '" + e.value() +
                        "' is not a number");
    }
  }
  if (location.empty()) throw ImportError("initializer '" + t.name() + "': external data without a location");
  // As ONNX Runtime: the data stays in the model's directory (no absolute paths, no "..").
  const std::filesystem::path relative(location);
  bool escapes = relative.is_absolute() || relative.has_root_name();
  for (const auto& part : relative) escapes = escapes || part == "..";
  if (escapes) {
    throw ImportError("initializer '" + t.name() + "': external data location '" + location +
                      "' is not a path inside the model's directory");
  }
  std::filesystem::path file = std::filesystem::path(model_dir) / location;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) throw ImportError("initializer '" + t.name() + "': external data file '" + file.string() + "' is missing");
  const int64_t size = in.tellg();
  if (length < 0) length = static_cast<int64_t>(expected);
  if (offset < 0 || static_cast<size_t>(length) != expected || offset > size || length > size - offset) {
    throw ImportError("initializer '" + t.name() + "': external data (offset " + std::to_string(offset) +
                      ", length " + std::to_string(length) + ") does not fit its " + std::to_string(expected) +
                      " bytes in '" + file.string() + "' (" + std::to_string(size) + " bytes)");
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) throw ImportError("initializer '" + t.name() + "': cannot read external data from '" + file.string() + "'");
  return bytes;
}

}  // namespace

const char* RxtDType(int onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT: return "float32";
    case TensorProto::DOUBLE: return "float64";
    case TensorProto::FLOAT16: return "float16";
    case TensorProto::BFLOAT16: return "bfloat16";
    case TensorProto::INT64: return "int64";
    case TensorProto::INT32: return "int32";
    case TensorProto::INT16: return "int16";
    case TensorProto::INT8: return "int8";
    case TensorProto::UINT8: return "uint8";
    case TensorProto::BOOL: return "bool";
    default: return nullptr;
  }
}

size_t ElementBytes(int onnx_type) {
  switch (onnx_type) {
    case TensorProto::DOUBLE:
    case TensorProto::INT64: return 8;
    case TensorProto::FLOAT:
    case TensorProto::INT32: return 4;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT16: return 2;
    default: return 1;
  }
}

bool IsFloatType(int onnx_type) {
  return onnx_type == TensorProto::FLOAT || onnx_type == TensorProto::DOUBLE || onnx_type == TensorProto::FLOAT16 ||
         onnx_type == TensorProto::BFLOAT16;
}

void DLTypeOf(int onnx_type, uint8_t* code, uint8_t* bits) {
  *bits = static_cast<uint8_t>(ElementBytes(onnx_type) * 8);
  switch (onnx_type) {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE:
    case TensorProto::FLOAT16: *code = 2; break;  // kDLFloat
    case TensorProto::BFLOAT16: *code = 4; break;  // kDLBfloat
    case TensorProto::UINT8: *code = 1; break;     // kDLUInt
    case TensorProto::BOOL: *code = 6; break;      // kDLBool
    default: *code = 0; break;                     // kDLInt
  }
}

size_t ElementCount(const TensorProto& t) {
  size_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) throw ImportError("tensor '" + t.name() + "' has a negative dim " + std::to_string(d));
    if (d != 0 && count > std::numeric_limits<size_t>::max() / 16 / static_cast<size_t>(d)) {
      throw ImportError("tensor '" + t.name() + "' is too large");
    }
    count *= static_cast<size_t>(d);
  }
  return count;
}

std::string TensorBytes(const TensorProto& t, const std::string& model_dir) {
  if (RxtDType(t.data_type()) == nullptr) {
    throw ImportError("tensor '" + t.name() + "' has element type " + std::to_string(t.data_type()) +
                      ", which rxt has no dtype for");
  }
  const size_t expected = ElementCount(t) * ElementBytes(t.data_type());
  std::string bytes;
  if (t.data_location() == TensorProto::EXTERNAL) {
    bytes = ExternalBytes(t, model_dir, expected);
  } else if (t.has_raw_data()) {
    bytes = t.raw_data();  // little-endian, as ONNX stores it
  } else {
    bytes = TypedFieldBytes(t);
  }
  if (bytes.size() != expected) {
    throw ImportError("tensor '" + t.name() + "' holds " + std::to_string(bytes.size()) + " bytes of data for " +
                      std::to_string(ElementCount(t)) + " elements of " + RxtDType(t.data_type()) + " (" +
                      std::to_string(expected) + " bytes)");
  }
  return bytes;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    exponent = 113;
    while ((mantissa & 0x400) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float BFloat16ToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace rxt::import_onnx
