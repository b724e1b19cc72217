// The .npy reader and writer of `rxt run` (apps/rxt/npy.cc).
#include "npy.h"

#include <gtest/gtest.h>

#include "rxt/support/error.h"

namespace rxt::cli {
namespace {

std::string ParseError(std::string_view bytes, ErrorCode expected_code) {
  try {
    ParseNpy(bytes, "t.npy");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected_code) << e.what();
    return e.what();
  }
  return "(no error)";
}

std::string Patched(std::string bytes, const std::string& from, const std::string& to) {
  size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

TEST(Npy, RoundTripsEverySupportedDtype) {
  for (DType dtype : {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16, DType::kInt32,
                      DType::kInt64, DType::kUInt8, DType::kBool}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{2, 3}, {5}, {}, {0, 4}}) {
      Tensor t = Tensor::Empty(shape, dtype);
      for (int64_t i = 0; i < t.numel(); ++i) t.SetFromDouble(i, dtype == DType::kBool ? i % 2 : i * 3 - 2);
      std::string bytes = SerializeNpy(t);
      size_t data_start = bytes.size() - t.nbytes();
      EXPECT_EQ(data_start % 64, 0u) << "the data starts 64-byte aligned";
      EXPECT_EQ(bytes[data_start - 1], '\n');
      EXPECT_TRUE(ParseNpy(bytes, "t.npy").BitwiseEqual(t)) << DTypeName(dtype) << " ndim " << shape.size();
    }
  }
}

TEST(Npy, WritesTheDescrsNumpyWrites) {
  EXPECT_NE(SerializeNpy(Tensor::Empty({1}, DType::kInt8)).find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(SerializeNpy(Tensor::Empty({1}, DType::kInt16)).find("'descr': '<i2'"), std::string::npos);
  EXPECT_NE(SerializeNpy(Tensor::Empty({1}, DType::kFloat16)).find("'descr': '<f2'"), std::string::npos);
}

TEST(Npy, WritesTheHeaderNumpyWrites) {
  std::string bytes = SerializeNpy(Tensor::Empty({3}, DType::kFloat32));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"), std::string::npos);
  ASSERT_EQ(bytes.size(), 128u + 12u);  // a 118-byte header after 10 bytes of preamble, then 3 floats
  EXPECT_EQ(static_cast<uint8_t>(bytes[8]), 118u);
  EXPECT_EQ(bytes[127], '\n');
}

TEST(Npy, ReadsVersion2HeadersAndDoubleQuotes) {
  // Version 2.0: a 4-byte header length.
  std::string header = "{\"descr\": \"<i8\", \"shape\": (2,), \"fortran_order\": False}\n";
  std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += std::string(3, '\0');
  bytes += header;
  int64_t values[2] = {7, -9};
  bytes.append(reinterpret_cast<const char*>(values), sizeof(values));
  Tensor t = ParseNpy(bytes, "t.npy");
  EXPECT_EQ(t.dtype(), DType::kInt64);
  EXPECT_EQ(t.shape(), std::vector<int64_t>{2});
  EXPECT_EQ(t.data_as<int64_t>()[1], -9);
}

TEST(Npy, RejectsWhatItDoesNotSupport) {
  std::string good = SerializeNpy(Tensor::Empty({2, 2}, DType::kFloat32));
  EXPECT_EQ(ParseError(Patched(good, "False", "True "), ErrorCode::kInvalidArgument),
            "t.npy: Fortran-order arrays are not supported (save a C-order copy)");
  EXPECT_EQ(ParseError(Patched(good, "<f4", ">f4"), ErrorCode::kInvalidArgument),
            "t.npy: big-endian data ('>f4') is not supported");
  EXPECT_EQ(ParseError(Patched(good, "<f4", "<c8"), ErrorCode::kInvalidArgument),
            "t.npy: unsupported dtype '<c8' (supported: float16, float32, float64, int8, int16, int32, int64, uint8, bool)");
  EXPECT_THROW(SerializeNpy(Tensor::Empty({2}, DType::kBFloat16)), Error);  // NumPy has no bfloat16
}

TEST(Npy, RejectsMalformedFiles) {
  std::string good = SerializeNpy(Tensor::Empty({2, 2}, DType::kFloat32));
  EXPECT_EQ(ParseError("hello", ErrorCode::kInvalidArgument), "t.npy: not an .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(ParseError(Patched(good, std::string("\x01\x00", 2), std::string("\x07\x00", 2)), ErrorCode::kInvalidArgument),
            "t.npy: unsupported .npy format version 7");
  EXPECT_EQ(ParseError(good.substr(0, 20), ErrorCode::kDataLoss), "t.npy: truncated .npy header");
  EXPECT_EQ(ParseError(good.substr(0, good.size() - 1), ErrorCode::kDataLoss),
            "t.npy: truncated data: the header promises 16 bytes, the file has 15");
  EXPECT_EQ(ParseError(good + "x", ErrorCode::kDataLoss), "t.npy: trailing data: the header promises 16 bytes, the file has 17");
  EXPECT_NE(ParseError(Patched(good, "(2, 2)", "[2, 2]"), ErrorCode::kInvalidArgument).find("t.npy: bad .npy header: expected '('"),
            std::string::npos);
  EXPECT_NE(ParseError(Patched(good, "'shape'", "'shapy'"), ErrorCode::kInvalidArgument).find("unknown key 'shapy'"),
            std::string::npos);
  EXPECT_NE(ParseError(Patched(good, "(2, 2)", "(2,-2)"), ErrorCode::kInvalidArgument).find("bad shape"),
            std::string::npos);
  EXPECT_NE(ParseError(Patched(good, "'descr': '<f4', ", "                "), ErrorCode::kInvalidArgument)
                .find("needs 'descr', 'fortran_order' and 'shape'"),
            std::string::npos);
  // A huge shape is refused before anything is allocated.
  EXPECT_NE(ParseError(Patched(good, "(2, 2)", "(999999999999, 999999)"), ErrorCode::kInvalidArgument).find("too large"),
            std::string::npos);
}

// A version-2 .npy file (4-byte header length) with |header| and |data_bytes| zero bytes.
std::string MakeNpy(std::string header, size_t data_bytes) {
  header += std::string((64 - (12 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return bytes + header + std::string(data_bytes, '\0');
}

// Issue 11, class 1: an error echoed a ~60 KB header whole (and the CLI then crashed on it).
TEST(Npy, ErrorsAboutHugeHeadersStayShort) {
  std::string bytes =
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'junk': '" + std::string(60000, 'x') + "'}", 16);
  std::string error = ParseError(bytes, ErrorCode::kInvalidArgument);
  EXPECT_NE(error.find("t.npy: bad .npy header: unknown key 'junk' at offset"), std::string::npos) << error.substr(0, 300);
  EXPECT_LT(error.size(), 400u);
  EXPECT_NE(error.find("more bytes"), std::string::npos);
}

TEST(Npy, RejectsMoreDimsThanNumpyHas) {
  auto with_dims = [](int n) {
    std::string dims;
    for (int i = 0; i < n; ++i) dims += "1, ";
    return MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }", 4);
  };
  EXPECT_NE(ParseError(with_dims(65), ErrorCode::kInvalidArgument).find("more than 64 dims"), std::string::npos);
  EXPECT_EQ(ParseNpy(with_dims(64), "t.npy").ndim(), 64);
}

}  // namespace
}  // namespace rxt::cli
