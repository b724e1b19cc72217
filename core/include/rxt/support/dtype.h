// Element types of tensors and scalars.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rxt {

enum class DType : uint8_t {
  kUnknown = 0,  // "any dtype" in struct info; never the type of actual data
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kBool,
};

/// Full name used in types: "float32", "int64", "bool"; "unknown" for kUnknown.
const char* DTypeName(DType t);
/// Short suffix used on literals: "f32", "i64", "u8", "bf16"; "" for bool/unknown.
const char* DTypeSuffix(DType t);
/// Parses a full name ("float32") or a suffix ("f32"); nullopt if neither.
std::optional<DType> ParseDType(std::string_view name);
int DTypeBits(DType t);
inline int DTypeBytes(DType t) { return (DTypeBits(t) + 7) / 8; }
bool IsFloat(DType t);
bool IsInt(DType t);  // signed or unsigned integer, not bool
bool IsUnsigned(DType t);

}  // namespace rxt
