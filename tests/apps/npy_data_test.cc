// LoadNpySet (apps/rxt/npy_data.cc): the arrays of rxt train --train-data, and each bad input.
#include "npy_data.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "npy.h"
#include "rxt/support/error.h"

namespace rxt::cli {
namespace {

std::string Dir() {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "rxt_npy_data_test" /
                              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string Save(const std::string& dir, const std::string& name, const Tensor& t) {
  std::string path = dir + "/" + name;
  WriteNpy(path, t);
  return path;
}

std::string ErrorOf(const std::string& spec) {
  try {
    LoadNpySet(spec, "--train-data");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

TEST(LoadNpySet, SamplesAsFloat32AndLabelsAsClasses) {
  std::string dir = Dir();
  std::string x = Save(dir, "x.npy", Tensor::FromVector<double>({3, 2}, DType::kFloat64, std::vector<double>{1, 2, 3, 4, 5, 6}));
  std::string y = Save(dir, "y.npy", Tensor::FromVector<int32_t>({3}, DType::kInt32, std::vector<int32_t>{0, 4, 1}));
  LabeledSet set = LoadNpySet(x + "," + y, "--train-data");
  EXPECT_EQ(set.count, 3);
  EXPECT_EQ(set.features, 2);
  EXPECT_EQ(set.values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(set.pixels.empty());
  EXPECT_EQ(set.labels, (std::vector<int64_t>{0, 4, 1}));
  EXPECT_EQ(set.num_classes, 5);
}

TEST(LoadNpySet, BadInputIsAnErrorNamingTheFile) {
  std::string dir = Dir();
  std::string x = Save(dir, "x.npy", Tensor::FromVector<float>({2, 2}, DType::kFloat32, std::vector<float>{1, 2, 3, 4}));
  std::string y = Save(dir, "y.npy", Tensor::FromVector<int64_t>({2}, DType::kInt64, std::vector<int64_t>{0, 1}));
  std::string ints = Save(dir, "ints.npy", Tensor::FromVector<int64_t>({2, 2}, DType::kInt64, std::vector<int64_t>{1, 2, 3, 4}));
  std::string three = Save(dir, "three.npy", Tensor::FromVector<int64_t>({3}, DType::kInt64, std::vector<int64_t>{0, 1, 2}));
  std::string negative = Save(dir, "neg.npy", Tensor::FromVector<int64_t>({2}, DType::kInt64, std::vector<int64_t>{0, -1}));
  std::string floats = Save(dir, "floats.npy", Tensor::FromVector<float>({2}, DType::kFloat32, std::vector<float>{0, 1}));

  EXPECT_NE(ErrorOf(x).find("expected X.npy,Y.npy"), std::string::npos);
  EXPECT_NE(ErrorOf(x + "," + y + "," + y).find("expected X.npy,Y.npy"), std::string::npos);
  EXPECT_NE(ErrorOf(ints + "," + y).find("ints.npy is int64 (2, 2); the samples must be a float array"), std::string::npos);
  EXPECT_NE(ErrorOf(x + "," + three).find("three.npy is int64 (3,); the labels must be a 1-D integer array of 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf(x + "," + floats).find("floats.npy is float32"), std::string::npos);
  EXPECT_NE(ErrorOf(x + "," + negative).find("label -1 of sample 1 is negative"), std::string::npos);
  try {
    LoadNpySet(dir + "/missing.npy," + y, "--train-data");
    ADD_FAILURE() << "a missing file loads";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.npy"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rxt::cli
