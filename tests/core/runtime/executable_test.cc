// The executable file format: round trips, and every kind of damage is a clear error.
#include "rxt/runtime/executable.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "test_util/fnv_checksum.h"

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
  test::ResealFnvChecksum(future);
  EXPECT_EQ(LoadError(future),
            "executable 'small.rxtx': format version 9 is not supported (this build reads versions 1 to 3)");
}

// ---- The ahead-of-time kernel library's path (format version 2).

TEST(Executable, KernelLibraryPathIsStoredNextToTheFileAndResolvedOnLoad) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "rxt_executable_library_test";
  fs::create_directories(dir / "sub");
  Executable exec = SmallExecutable();
  exec.kernels[0].aot_symbol = "rxt_aot_kernel_0";

  // Next to the executable (or below it): stored relative, so the two move together.
  exec.aot_library = (dir / "kernels.so").string();
  exec.Save((dir / "model.rxtx").string());
  std::vector<uint8_t> bytes = exec.Serialize();
  Executable loaded = Executable::Load((dir / "model.rxtx").string());
  EXPECT_EQ(loaded.aot_library, (dir / "kernels.so").string());
  EXPECT_EQ(loaded.kernels[0].aot_symbol, "rxt_aot_kernel_0");
  std::ifstream in(dir / "model.rxtx", std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(file.find("kernels.so"), std::string::npos);
  EXPECT_EQ(file.find((dir / "kernels.so").string()), std::string::npos) << "stored absolute";
  fs::rename(dir / "model.rxtx", dir / "sub" / "moved.rxtx");
  EXPECT_EQ(Executable::Load((dir / "sub" / "moved.rxtx").string()).aot_library, (dir / "sub" / "kernels.so").string());

  exec.aot_library = (dir / "sub" / "kernels.so").string();
  exec.Save((dir / "model.rxtx").string());
  EXPECT_EQ(Executable::Load((dir / "model.rxtx").string()).aot_library, (dir / "sub" / "kernels.so").string());

  // Elsewhere: stored absolute.
  exec.aot_library = "/opt/elsewhere/kernels.so";
  exec.Save((dir / "sub" / "model.rxtx").string());
  EXPECT_EQ(Executable::Load((dir / "sub" / "model.rxtx").string()).aot_library, "/opt/elsewhere/kernels.so");

  // In memory, Serialize keeps the path as it is.
  exec.aot_library = "relative/kernels.so";
  std::vector<uint8_t> raw = exec.Serialize();
  EXPECT_EQ(Executable::Deserialize(raw.data(), raw.size()).aot_library, "relative/kernels.so");
  fs::remove_all(dir);
}

// A minimal version-1 file, written byte by byte as version 1 wrote it: no memory plan, no
// kernel library.
std::vector<uint8_t> VersionOneFile() {
  std::vector<uint8_t> out;
  auto raw = [&](const void* p, size_t n) { out.insert(out.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n); };
  auto u8 = [&](uint8_t v) { raw(&v, 1); };
  auto u32 = [&](uint32_t v) { raw(&v, 4); };
  auto i32 = [&](int32_t v) { raw(&v, 4); };
  auto i64 = [&](int64_t v) { raw(&v, 8); };
  auto str = [&](const std::string& s) { u32(static_cast<uint32_t>(s.size())); raw(s.data(), s.size()); };
  auto section = [&](uint32_t tag, const std::function<void()>& payload) {
    u32(tag);
    size_t length_at = out.size();
    i64(0);
    size_t start = out.size();
    payload();
    int64_t length = static_cast<int64_t>(out.size() - start);
    std::memcpy(out.data() + length_at, &length, 8);
  };
  raw("RXTEXEC\x1a", 8);
  u32(1);  // version
  u32(5);  // sections
  section(1, [&] { str("reference"); });
  section(2, [&] {
    u32(1);  // one function: def main(%x) { return %x }
    str("main");
    u32(1);
    str("%x");
    i32(1);  // registers
    i32(0);  // slots
    u32(0);  // slot names
    u32(0);  // shape exprs
    u32(0);  // patterns
    u32(1);  // instructions
    u8(static_cast<uint8_t>(Opcode::kReturn));
    i32(-1), i32(0), i32(-1), i32(0);
    u32(0);
  });
  section(3, [&] { u32(0); });
  section(4, [&] { u32(0); });
  section(5, [&] { u32(0); });
  i64(0);  // checksum, set by ResealFnvChecksum
  test::ResealFnvChecksum(out);
  return out;
}

TEST(Executable, ReadsVersionOneFiles) {
  std::vector<uint8_t> bytes = VersionOneFile();
  Executable exec = Executable::Deserialize(bytes.data(), bytes.size(), "v1.rxtx");
  EXPECT_EQ(exec.format_version, 1u);
  EXPECT_EQ(exec.backend, "reference");
  EXPECT_EQ(exec.aot_library, "");
  ASSERT_EQ(exec.functions.size(), 1u);
  EXPECT_EQ(exec.functions[0].arena_bytes, 0);
  // Written back, it is a version-2 file that reads back the same.
  std::vector<uint8_t> upgraded = exec.Serialize();
  Executable again = Executable::Deserialize(upgraded.data(), upgraded.size());
  EXPECT_EQ(again.format_version, Executable::kFormatVersion);
  EXPECT_EQ(again.Disassemble().substr(again.Disassemble().find(':')), exec.Disassemble().substr(exec.Disassemble().find(':')));
  // A version-1 file with version-2 fields has bytes left over: rejected.
  std::vector<uint8_t> mixed = upgraded;
  mixed[8] = 1;
  test::ResealFnvChecksum(mixed);
  EXPECT_NE(LoadError(mixed).find("trailing bytes"), std::string::npos) << LoadError(mixed);
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
      test::ResealFnvChecksum(bad);
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

// An executable with a memory plan: %a lives in the arena, the result escapes.
Executable PlannedExecutable() {
  const char* text = R"(
kernel @relu0(X: Buffer((1, n), float32), Y: Buffer((1, n), float32)) {
  for i in range(1) {
    for j in range(n) {
      block Y(vi = i, vj = j) {
        Y[vi, vj] = max(X[vi, vj], 0f32)
      }
    }
  }
}

def @main(%x: Tensor((1, 1000), float32)) -> Tensor((1, 1000), float32) {
  dataflow {
    %a: Tensor((1, 1000), float32) = call_kernel(@relu0, (%x,), out_sinfo=Tensor((1, 1000), float32))
    %b: Tensor((1, 1000), float32) = call_kernel(@relu0, (%a,), out_sinfo=Tensor((1, 1000), float32))
    output %b
  }
  return %b
}
)";
  return CompileToExecutable(ParseModule(text), {.backend = "reference"});
}

// Issue 11, class 5: a re-signed file asked for an 8.6 GB arena and rxt tried.
TEST(Executable, AnArenaLargerThanItsPlanIsRefused) {
  Executable exec = PlannedExecutable();
  ASSERT_EQ(exec.functions[0].arena_tensors.size(), 1u);
  ASSERT_EQ(exec.functions[0].arena_bytes, 4032);  // 4000 bytes, aligned to 64
  exec.functions[0].arena_bytes = 8600000000;
  std::string error = LoadError(exec.Serialize());
  EXPECT_NE(error.find("executable 'small.rxtx': function 'main' has an arena of 8600000000 bytes, but its planned "
                       "tensors end at byte 4032"),
            std::string::npos)
      << error;
}

TEST(Executable, AnArenaTensorNoInstructionUsesIsRefused) {
  Executable exec = PlannedExecutable();
  exec.functions[0].arena_tensors.push_back({4032, 4000});
  exec.functions[0].arena_bytes = 8064;
  std::string error = LoadError(exec.Serialize());
  EXPECT_NE(error.find("places arena tensor 1 but no instruction allocates it"), std::string::npos) << error;
}

// Issue 11, class 6: raw bytes from a file went into messages ("no backend 'referen\xff...'").
TEST(Executable, NamesThatAreNotPrintableAreRefusedAtTheirByte) {
  Executable exec = SmallExecutable();
  exec.backend = std::string("referen\xff\nce", 11);
  std::string error = LoadError(exec.Serialize());
  EXPECT_NE(error.find("backend name 'referen\\xff\\nce' is not printable text (at byte "), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  exec = SmallExecutable();
  exec.kernels[0].name = "relu\x01";
  error = LoadError(exec.Serialize());
  EXPECT_NE(error.find("kernel name 'relu\\x01' is not printable text"), std::string::npos) << error;
}

// A shape expression that doubles at each step would take 2^n steps to evaluate.
TEST(Executable, ShapeExpressionsOfExponentialSizeAreRefused) {
  Executable exec = SmallExecutable();
  VMFunction& f = exec.functions[0];
  int32_t first = static_cast<int32_t>(f.shape_exprs.size());
  f.shape_exprs.push_back({ShapeExprOp::Kind::kConst, 1, -1, -1});
  for (int i = 0; i < 60; ++i) {
    int32_t previous = first + i;
    f.shape_exprs.push_back({ShapeExprOp::Kind::kAdd, 0, previous, previous});
  }
  std::string error = LoadError(exec.Serialize());
  EXPECT_NE(error.find("has more than 1024 terms"), std::string::npos) << error;
}

TEST(Executable, ValidationErrorsNameTheFile) {
  Executable exec = SmallExecutable();
  exec.functions[0].code[0].arg = 1000;
  std::string error = LoadError(exec.Serialize());
  EXPECT_EQ(error.rfind("executable 'small.rxtx': function 'main' instruction 0 uses register 1000", 0), 0u) << error;
}

}  // namespace
}  // namespace rxt
