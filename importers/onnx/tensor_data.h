// ONNX tensors as bytes: element types and their rxt dtypes, and the raw little-endian bytes of
// a TensorProto whichever way it stores them (raw_data, the typed repeated fields, or external
// data in a file beside the model).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rxt::import_onnx {

/// The rxt dtype name of an ONNX element type ("float32"); nullptr when rxt has none.
const char* RxtDType(int onnx_type);
/// Bytes per element of a type RxtDType knows (bool: 1).
size_t ElementBytes(int onnx_type);
bool IsFloatType(int onnx_type);
/// The DLPack code and bits of a type RxtDType knows.
void DLTypeOf(int onnx_type, uint8_t* code, uint8_t* bits);

/// The number of elements of |t| (its dims' product), refusing negative dims and overflow.
size_t ElementCount(const onnx::TensorProto& t);

/// The bytes of |t| (ElementCount * ElementBytes of them). |model_dir| is where external data
/// files are looked up. Throws ImportError naming the tensor when the data does not fit.
std::string TensorBytes(const onnx::TensorProto& t, const std::string& model_dir);

/// half and bfloat16 bits as float.
float HalfToFloat(uint16_t bits);
float BFloat16ToFloat(uint16_t bits);

}  // namespace rxt::import_onnx
