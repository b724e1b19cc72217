// The executable file format: round trips, and every kind of damage is a clear error.
#include "rxt/runtime/executable.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"

namespace rxt {
namespace {

Executable SmallExecutable() {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/my_module.rxt");
  std::stringstream ss;
  ss << in.rdbuf();
  Executable exec = CompileToExecutable(ParseModule(ss.str()), {.backend = "reference"});
  exec.constants.push_back(Value::Tuple({Value(Tensor::FromVector<float>({2}, DType::kFloat32, {1.5f, -2})),
                                         Value::Shape({3, 4}), Value::Int(-7), Value::Float(0.25),
                                         Value::String("hi"), Value()}));
  exec.externs.push_back("env.relu");
  return exec;
}

// The format's checksum, recomputed so that a test can damage the body and still get past it.
void Resign(std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < bytes.size(); ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
}

std::string LoadError(const std::vector<uint8_t>& bytes) {
  try {
    Executable::Deserialize(bytes.data(), bytes.size(), "small.rxtx");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    return e.what();
  }
  return "";
}

TEST(Executable, SerializeRoundTripsByteForByte) {
  Executable exec = SmallExecutable();
  std::vector<uint8_t> bytes = exec.Serialize();
  Executable back = Executable::Deserialize(bytes.data(), bytes.size());
  EXPECT_EQ(back.Serialize(), bytes);
  EXPECT_EQ(back.backend, "reference");
  EXPECT_EQ(back.Disassemble(), exec.Disassemble());
  ASSERT_EQ(back.constants.size(), exec.constants.size());
  EXPECT_TRUE(BitwiseEqual(back.constants.back(), exec.constants.back()));
}

TEST(Executable, SaveAndLoadAFile) {
  std::string path = (std::filesystem::temp_directory_path() / "rxt_executable_test.rxtx").string();
  Executable exec = SmallExecutable();
  exec.Save(path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(Executable::Load(path).Serialize(), exec.Serialize());
  std::filesystem::remove(path);
  try {
    Executable::Load(path);
    FAIL() << "loaded a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

TEST(Executable, RejectsBadMagicAndWrongVersion) {
  std::vector<uint8_t> bytes = SmallExecutable().Serialize();
  std::vector<uint8_t> bad_magic = bytes;
  bad_magic[0] = 'X';
  EXPECT_EQ(LoadError(bad_magic), "executable 'small.rxtx': not an rxt executable (bad magic number)");
  std::vector<uint8_t> future = bytes;
  future[8] = 9;
  Resign(future);
  EXPECT_EQ(LoadError(future),
            "executable 'small.rxtx': format version 9 is not supported (this build reads version 1)");
}

TEST(Executable, RejectsEveryTruncation) {
  std::vector<uint8_t> bytes = SmallExecutable().Serialize();
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    std::string error = LoadError(cut);
    ASSERT_NE(error.find("small.rxtx"), std::string::npos) << "truncated at " << n << ": " << error;
  }
}

TEST(Executable, RejectsEveryFlippedByte) {
  std::vector<uint8_t> bytes = SmallExecutable().Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0x5a;
    std::string error = LoadError(bad);
    ASSERT_FALSE(error.empty()) << "flipped byte " << i << " was accepted";
  }
}

// Damage that the checksum does not catch (a re-signed file) must still be an error or a valid
// executable, never a crash or an out-of-bounds read.
TEST(Executable, SurvivesResignedDamage) {
  std::vector<uint8_t> bytes = SmallExecutable().Serialize();
  int rejected = 0;
  for (size_t i = 12; i + 8 < bytes.size(); ++i) {
    for (uint8_t x : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= x;
      Resign(bad);
      try {
        Executable::Deserialize(bad.data(), bad.size(), "small.rxtx").Validate();
      } catch (const Error& e) {
        ASSERT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(Executable, ValidateCatchesOutOfRangeRegisters) {
  Executable exec = SmallExecutable();
  exec.functions[0].code[0].arg = 1000;
  try {
    exec.Validate();
    FAIL() << "accepted a bad register";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("register 1000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rxt
