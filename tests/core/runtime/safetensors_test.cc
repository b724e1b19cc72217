// safetensors: round trips of every dtype, a file laid out as the reference writer lays it out,
// every malformed input rejected with its problem named, and atomic saving.
#include "rxt/runtime/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "rxt/support/error.h"
#include "rxt/support/file_io.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> FileBytes(const std::string& header, const std::vector<uint8_t>& data) {
  // Sized once and filled in place: growing it by insert trips GCC 12's -Warray-bounds at -O3.
  std::vector<uint8_t> out(8 + header.size() + data.size());
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::copy(header.begin(), header.end(), out.begin() + 8);
  std::copy(data.begin(), data.end(), out.begin() + 8 + static_cast<std::ptrdiff_t>(header.size()));
  return out;
}

std::string ParseError(const std::vector<uint8_t>& bytes) {
  try {
    ParseSafetensors(bytes.data(), bytes.size(), "ckpt.safetensors");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss);
    EXPECT_NE(std::string(e.what()).find("ckpt.safetensors"), std::string::npos) << e.what();
    return e.what();
  }
  return "(no error)";
}

TEST(Safetensors, RoundTripsEveryDTypeShapeAndMetadata) {
  TensorFile file;
  int i = 0;
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}) {
    Tensor x = Tensor::Empty({2, 3}, t);
    for (size_t b = 0; b < x.nbytes(); ++b) static_cast<uint8_t*>(x.data())[b] = static_cast<uint8_t>(b * 7 + i);
    if (t == DType::kBool) std::memset(x.data(), 1, x.nbytes());
    file.tensors.emplace_back("t" + std::to_string(i++), x);
  }
  file.tensors.emplace_back("scalar", Tensor::FromVector<float>({}, DType::kFloat32, {2.5f}));
  file.tensors.emplace_back("empty", Tensor::Empty({0, 4}, DType::kFloat32));
  file.metadata = {{"step", "937"}, {"format", "rxt-checkpoint"}};
  std::vector<uint8_t> bytes = SerializeSafetensors(file);
  // The header length and the data start are 8-byte aligned.
  uint64_t header = 0;
  for (int b = 0; b < 8; ++b) header |= uint64_t{bytes[b]} << (8 * b);
  EXPECT_EQ(header % 8, 0u);
  TensorFile back = ParseSafetensors(bytes.data(), bytes.size());
  ASSERT_EQ(back.tensors.size(), file.tensors.size());
  EXPECT_EQ(back.metadata, file.metadata);
  for (const auto& [name, tensor] : file.tensors) {
    const Tensor* got = back.Find(name);
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(got->shape(), tensor.shape()) << name;
    EXPECT_EQ(got->dtype(), tensor.dtype()) << name;
    ASSERT_EQ(got->nbytes(), tensor.nbytes());
    EXPECT_EQ(std::memcmp(got->data(), tensor.data(), tensor.nbytes()), 0) << name;
  }
  // Serializing what was read gives the same bytes (tensors come back in data order).
  EXPECT_EQ(SerializeSafetensors(back), bytes);
}

TEST(Safetensors, ReadsTheReferenceLayout) {
  // As Hugging Face's writer lays a file out: keys sorted, data in the header's order.
  float w[2] = {1.5f, -2.0f};
  int64_t s = 42;
  std::vector<uint8_t> data(sizeof(w) + sizeof(s));
  std::memcpy(data.data(), &s, sizeof(s));
  std::memcpy(data.data() + sizeof(s), w, sizeof(w));
  std::string header =
      R"({"__metadata__":{"format":"pt"},"step":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
      R"("weight":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})";
  std::vector<uint8_t> bytes = FileBytes(header, data);
  TensorFile file = ParseSafetensors(bytes.data(), bytes.size());
  ASSERT_EQ(file.tensors.size(), 2u);
  EXPECT_EQ(file.tensors[0].first, "step");
  EXPECT_EQ(file.Find("step")->data_as<int64_t>()[0], 42);
  EXPECT_EQ(file.Find("weight")->data_as<float>()[1], -2.0f);
  EXPECT_EQ(file.metadata.at("format"), "pt");
}

TEST(Safetensors, RejectsEveryMalformedFile) {
  std::vector<uint8_t> four(4, 0);
  EXPECT_NE(ParseError({1, 2, 3}).find("truncated"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes("{}", {})).find("(no error)"), std::string::npos);  // an empty file is valid
  std::vector<uint8_t> huge = FileBytes("{}", {});
  huge[5] = 1;  // header length 2^40
  EXPECT_NE(ParseError(huge).find("the header claims"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes("{not json", {})).find("not valid JSON"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes("{\"x\": 1e999}", {})).find("holds a number out of range"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes("[1]", {})).find("not a JSON object"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32"}})", {})).find("needs dtype, shape and data_offsets"),
            std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"C64","shape":[1],"data_offsets":[0,4]}})", four))
                .find("unsupported dtype 'C64'"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four)).find("dim 0 is -1, not a size"),
            std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four))
                .find("4 bytes of data for shape and dtype needing 8"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", four))
                .find("out of the data's 4 bytes"), std::string::npos);
  std::vector<uint8_t> eight(8, 0);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                 R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight))
                .find("overlaps"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight)).find("a hole"),
            std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight))
                .find("4 bytes after the last tensor"), std::string::npos);
  EXPECT_NE(ParseError(FileBytes(R"({"__metadata__":{"k":1}})", {})).find("is not a string"), std::string::npos);
  // Every truncation of a good file is rejected, none crashes.
  TensorFile good;
  good.tensors.emplace_back("w", Tensor::FromVector<float>({3}, DType::kFloat32, {1, 2, 3}));
  std::vector<uint8_t> bytes = SerializeSafetensors(good);
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    EXPECT_NE(ParseError(cut), "(no error)") << n;
  }
}

TEST(Safetensors, RefusesBadNamesWhenWriting) {
  TensorFile twice;
  twice.tensors.emplace_back("w", Tensor::Empty({1}, DType::kFloat32));
  twice.tensors.emplace_back("w", Tensor::Empty({1}, DType::kFloat32));
  EXPECT_THROW(SerializeSafetensors(twice), Error);
  TensorFile reserved;
  reserved.tensors.emplace_back("__metadata__", Tensor::Empty({1}, DType::kFloat32));
  EXPECT_THROW(SerializeSafetensors(reserved), Error);
}

// Found by fuzzing (its seed writer): JSON's type_error escaped instead of an rxt::Error.
TEST(Safetensors, RefusesNamesAndMetadataThatAreNotUtf8) {
  TensorFile name{{{"w\xff", Tensor::Empty({1}, DType::kFloat32)}}, {}};
  TensorFile metadata{{}, {{"note", "\xfe\xff"}}};
  for (const TensorFile& file : {name, metadata}) {
    try {
      SerializeSafetensors(file);
      ADD_FAILURE() << "non-UTF-8 text was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_STREQ(e.what(), "safetensors: tensor names and metadata must be valid UTF-8");
    }
  }
}

TEST(Safetensors, SavesAtomicallyAndKeepsTheOldFileOnFailure) {
  fs::path dir = fs::temp_directory_path() / ("rxt_safetensors_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "ckpt.safetensors").string();
  TensorFile first;
  first.tensors.emplace_back("w", Tensor::FromVector<float>({2}, DType::kFloat32, {1, 2}));
  SaveSafetensors(path, first);
  EXPECT_EQ(LoadSafetensors(path).Find("w")->data_as<float>()[1], 2.0f);
  // No temporary is left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  // A write that cannot happen (the target is a directory) fails and leaves nothing changed.
  fs::create_directories(dir / "sub.safetensors");
  EXPECT_THROW(SaveSafetensors((dir / "sub.safetensors").string(), first), Error);
  EXPECT_EQ(LoadSafetensors(path).Find("w")->data_as<float>()[0], 1.0f);
  try {
    LoadSafetensors((dir / "missing.safetensors").string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rxt
