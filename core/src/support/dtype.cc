#include "rxt/support/dtype.h"

namespace rxt {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  const char* suffix;
  int bits;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kFloat16, "float16", "f16", 16}, {DType::kBFloat16, "bfloat16", "bf16", 16},
    {DType::kFloat32, "float32", "f32", 32}, {DType::kFloat64, "float64", "f64", 64},
    {DType::kInt8, "int8", "i8", 8},         {DType::kInt16, "int16", "i16", 16},
    {DType::kInt32, "int32", "i32", 32},     {DType::kInt64, "int64", "i64", 64},
    {DType::kUInt8, "uint8", "u8", 8},       {DType::kBool, "bool", "", 8},
};

const DTypeInfo* Find(DType t) {
  for (const auto& info : kDTypes) {
    if (info.dtype == t) return &info;
  }
  return nullptr;
}

}  // namespace

const char* DTypeName(DType t) {
  const DTypeInfo* info = Find(t);
  return info ? info->name : "unknown";
}

const char* DTypeSuffix(DType t) {
  const DTypeInfo* info = Find(t);
  return info ? info->suffix : "";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (const auto& info : kDTypes) {
    if (name == info.name || (*info.suffix != '\0' && name == info.suffix)) return info.dtype;
  }
  return std::nullopt;
}

int DTypeBits(DType t) {
  const DTypeInfo* info = Find(t);
  return info ? info->bits : 0;
}

bool IsFloat(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

bool IsInt(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt8;
}

bool IsUnsigned(DType t) { return t == DType::kUInt8; }

}  // namespace rxt
