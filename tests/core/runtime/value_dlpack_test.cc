// Runtime values and DLPack interop.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "rxt/runtime/dlpack.h"
#include "rxt/runtime/value.h"
#include "rxt/support/error.h"

namespace rxt {
namespace {

TEST(Value, DescribesEachKind) {
  EXPECT_EQ(Value(Tensor::Empty({2, 784}, DType::kFloat64)).Describe(), "float64 (2, 784)");
  EXPECT_EQ(Value::Tuple({Value(Tensor::Empty({3}, DType::kFloat32)), Value::Int(4)}).Describe(),
            "(float32 (3,), 4)");
  EXPECT_EQ(Value::Shape({2, 3}).Describe(), "shape(2, 3)");
  EXPECT_EQ(Value::String("a").Describe(), "\"a\"");
  EXPECT_EQ(Value().Describe(), "none");
}

TEST(Value, CopiesShareTensorsAndWrongKindThrows) {
  Value a(Tensor::Empty({4}, DType::kFloat32));
  Value b = a;
  EXPECT_EQ(a.tensor().data(), b.tensor().data());
  EXPECT_THROW(a.int_value(), Error);
  EXPECT_TRUE(BitwiseEqual(a, b));
  EXPECT_FALSE(BitwiseEqual(a, Value::Int(1)));
}

TEST(DLPack, ExportIsZeroCopyAndImportBackToo) {
  Tensor t = Tensor::FromVector<float>({2, 2}, DType::kFloat32, {1, 2, 3, 4});
  DLManagedTensor* managed = ToDLPack(t);
  EXPECT_EQ(managed->dl_tensor.data, t.data());
  EXPECT_EQ(managed->dl_tensor.ndim, 2);
  EXPECT_EQ(managed->dl_tensor.shape[1], 2);
  Tensor back = FromDLPack(managed);  // takes ownership of |managed|
  EXPECT_EQ(back.data(), t.data());
  EXPECT_TRUE(back.BitwiseEqual(t));
}

TEST(DLPack, StridedOrUnalignedImportsCopy) {
  float data[7] = {0, 1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 2};
  int64_t strides[2] = {1, 2};  // column-major view
  DLTensor dl{};
  dl.data = data + 1;  // not 64-byte aligned
  dl.device = {kDLCPU, 0};
  dl.ndim = 2;
  dl.dtype = ToDLDataType(DType::kFloat32);
  dl.shape = shape;
  dl.strides = strides;
  Tensor t = CopyFromDLTensor(dl);
  EXPECT_EQ(t.GetAsDouble(0), 1);
  EXPECT_EQ(t.GetAsDouble(1), 3);
  EXPECT_EQ(t.GetAsDouble(2), 2);
  EXPECT_EQ(t.GetAsDouble(3), 4);
  DLDataType complex{kDLComplex, 64, 1};
  EXPECT_THROW(FromDLDataType(complex), Error);
}

// Bool goes out as uint8 (DLPack 0.6 has no bool, so NumPy 1.24 and torch 1.13 read uint8) and
// comes in as DLPack 0.8's kDLBool (6) or as uint8.
TEST(DLPack, BoolLeavesAsUInt8AndArrivesAsKDLBool) {
  DLDataType out = ToDLDataType(DType::kBool);
  EXPECT_EQ(out.code, kDLUInt);
  EXPECT_EQ(out.bits, 8);
  EXPECT_EQ(FromDLDataType(DLDataType{6, 8, 1}), DType::kBool);
  EXPECT_EQ(FromDLDataType(out), DType::kUInt8);
  EXPECT_THROW(FromDLDataType(DLDataType{6, 1, 1}), Error);
}

// Bad tensors from a caller (the C ABI, a binding) are refused, never read.
TEST(DLPack, ImpossibleTensorsAreRefused) {
  float data[4] = {};
  int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  DLTensor dl{};
  dl.data = data;
  dl.device = {kDLCPU, 0};
  dl.ndim = 2;
  dl.dtype = ToDLDataType(DType::kFloat32);
  dl.shape = huge;
  auto message = [&] {
    try {
      BorrowFromDLTensor(dl);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message(), "dlpack: the shape (1099511627776, 1099511627776) has more than 2^62 bytes");
  dl.shape = nullptr;
  EXPECT_EQ(message(), "dlpack: ndim is 2 but shape is NULL");
  int64_t two[2] = {2, 2};
  dl.shape = two;
  dl.data = nullptr;
  EXPECT_EQ(message(), "dlpack: data is NULL for 16 bytes");
  int64_t empty[2] = {0, 2};
  dl.shape = empty;
  EXPECT_EQ(BorrowFromDLTensor(dl).numel(), 0);
}

}  // namespace
}  // namespace rxt
