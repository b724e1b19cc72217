// Trainer files (core/src/train/trainer_file.cc): a trainer saved and opened again goes on bit
// for bit; a trainer that has not stepped leaves its optimizer state out; every malformed file
// is a kDataLoss naming the file. The kernels here run on the reference interpreter (the file
// carries no library); tests/core/exec/session_trainer_file_test.cc saves and loads libraries.
#include "rxt/train/trainer_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <cstring>
#include <fstream>

#include <unistd.h>

#include "core/train/trainer_fixture.h"
#include "test_util/fnv_checksum.h"
#include "rxt/train/lr_schedule.h"

namespace rxt {
namespace {

using test::CodeOf;
using test::ErrorOf;
using test::LinearTrainer;
using test::SampleInputs;
using test::SampleTargets;

std::shared_ptr<KernelProvider> Reference() { return std::make_shared<testing::ReferenceKernelProvider>(); }

/// |trainer| written and read back as bytes.
std::unique_ptr<Trainer> RoundTrip(const Trainer& trainer) {
  std::vector<uint8_t> bytes = MakeTrainerFile(trainer, {}).Serialize();
  return OpenTrainerFile(TrainerFile::Deserialize(bytes.data(), bytes.size(), "t.rxtt"), Reference());
}

void ExpectSameValues(const Trainer& a, const Trainer& b) {
  ASSERT_EQ(a.param_num(), b.param_num());
  for (int i = 0; i < a.param_num(); ++i) EXPECT_TRUE(a.param(i).BitwiseEqual(b.param(i))) << "param " << i;
  ASSERT_EQ(a.optimizer_state().size(), b.optimizer_state().size());
  for (size_t i = 0; i < a.optimizer_state().size(); ++i) {
    EXPECT_TRUE(a.optimizer_state()[i].BitwiseEqual(b.optimizer_state()[i])) << a.program().optim_state_names[i];
  }
  EXPECT_EQ(a.step(), b.step());
}

std::string DeserializeError(const std::vector<uint8_t>& bytes) {
  return ErrorOf([&] { TrainerFile::Deserialize(bytes.data(), bytes.size(), "t.rxtt"); });
}

TEST(TrainerFile, ATrainerSavedMidwayGoesOnBitForBit) {
  auto trainer = LinearTrainer("adam", "lr=0.05");
  trainer->InitXavierUniform(7);
  trainer->SetSchedule(ParseLrSchedule("cosine:total_steps=10,warmup=2"), 0.05);
  Tensor x = SampleInputs(), y = SampleTargets();
  for (int i = 0; i < 3; ++i) trainer->Update({x}, {y});

  auto reopened = RoundTrip(*trainer);
  ExpectSameValues(*trainer, *reopened);
  ASSERT_TRUE(reopened->schedule().has_value());
  EXPECT_EQ(reopened->schedule()->ToString(), trainer->schedule()->ToString());
  EXPECT_EQ(reopened->base_learning_rate(), 0.05);
  for (int i = 0; i < 4; ++i) {
    Tensor a = trainer->Update({x}, {y}), b = reopened->Update({x}, {y});
    EXPECT_TRUE(a.BitwiseEqual(b)) << "update " << i;
  }
  ExpectSameValues(*trainer, *reopened);
  EXPECT_EQ(reopened->program().params[0].fan_in, trainer->program().params[0].fan_in);
  EXPECT_EQ(reopened->program().inputs[0].TypeText(), trainer->program().inputs[0].TypeText());
}

TEST(TrainerFile, AFreshTrainerLeavesItsOptimizerStateOut) {
  auto trainer = LinearTrainer("momentum", "lr=0.05, momentum=0.9");
  trainer->InitXavierUniform(1);
  TrainerFile file = MakeTrainerFile(*trainer, {});
  for (const auto& [name, tensor] : file.values.tensors) EXPECT_NE(name.rfind("optim/", 0), 0u) << name;
  std::vector<uint8_t> bytes = file.Serialize();
  auto reopened = OpenTrainerFile(TrainerFile::Deserialize(bytes.data(), bytes.size(), "t.rxtt"), Reference());
  ExpectSameValues(*trainer, *reopened);
  Tensor x = SampleInputs(), y = SampleTargets();
  EXPECT_TRUE(trainer->Update({x}, {y}).BitwiseEqual(reopened->Update({x}, {y})));
  ExpectSameValues(*trainer, *reopened);

  // Once it has stepped, the state is saved.
  TrainerFile stepped = MakeTrainerFile(*trainer, {});
  EXPECT_NE(stepped.values.Find("optim/momentum_buffer.0"), nullptr) << "optimizer state names changed?";
}

TEST(TrainerFile, ChangingTheLearningRateKeepsTheOptimizerState) {
  auto trainer = LinearTrainer("sgd", "lr=0.05");
  trainer->SetLearningRate(0.5);
  auto reopened = RoundTrip(*trainer);
  EXPECT_DOUBLE_EQ(reopened->learning_rate(), 0.5);
}

TEST(TrainerFile, SavesAtomicallyAndLoadsFromDisk) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("rxt_trainer_file_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "t.rxtt").string();
  auto trainer = LinearTrainer();
  trainer->InitXavierUniform(2);
  SaveTrainerFile(MakeTrainerFile(*trainer, {}), path);
  auto loaded = OpenTrainerFile(LoadTrainerFile(path), Reference());
  ExpectSameValues(*trainer, *loaded);
  // Only the file itself is left (the temporary one was renamed).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  EXPECT_NE(ErrorOf([&] { LoadTrainerFile((dir / "missing.rxtt").string()); }).find("missing.rxtt"), std::string::npos);
  // A directory that does not exist: an error, and nothing written anywhere.
  EXPECT_NE(CodeOf([&] { SaveTrainerFile(MakeTrainerFile(*trainer, {}), (dir / "no" / "t.rxtt").string()); }),
            ErrorCode::kOk);
  fs::remove_all(dir);
}

TEST(TrainerFile, WithoutAKernelLibraryItNeedsABackend) {
  auto trainer = LinearTrainer();
  std::vector<uint8_t> bytes = MakeTrainerFile(*trainer, {}).Serialize();
  EXPECT_EQ(ErrorOf([&] { OpenTrainerFile(TrainerFile::Deserialize(bytes.data(), bytes.size(), "t.rxtt")); }),
            "trainer file 't.rxtt' carries no kernel library and no backend was given to compile its kernels");
}

TEST(TrainerFile, AKernelLibraryThatIsNotOneIsRefused) {
  auto trainer = LinearTrainer();
  std::vector<uint8_t> bytes = MakeTrainerFile(*trainer, {'n', 'o', 't', ' ', 'E', 'L', 'F'}).Serialize();
  TrainerFile file = TrainerFile::Deserialize(bytes.data(), bytes.size(), "t.rxtt");
  EXPECT_EQ(file.kernel_library.size(), 7u);
  std::string error = ErrorOf([&] { OpenTrainerFile(std::move(file)); });
  EXPECT_EQ(error, "trainer file 't.rxtt': kernel library: not a shared library (no ELF header)");
}

TEST(TrainerFile, MalformedFilesAreDataLossNamingTheFile) {
  auto trainer = LinearTrainer("adam", "lr=0.05");
  trainer->Update({SampleInputs()}, {SampleTargets()});
  const std::vector<uint8_t> good = MakeTrainerFile(*trainer, {}).Serialize();

  EXPECT_EQ(DeserializeError({}), "trainer file 't.rxtt': not an rxt trainer file (bad magic number)");
  std::vector<uint8_t> executable_bytes = trainer->program().executable.Serialize();
  EXPECT_EQ(DeserializeError(executable_bytes), "trainer file 't.rxtt': not an rxt trainer file (bad magic number)");
  // Every truncation is caught (by the checksum, or the header before it).
  for (size_t n = 0; n < good.size(); n += 1 + n / 8) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
    EXPECT_EQ(CodeOf([&] { TrainerFile::Deserialize(cut.data(), cut.size(), "t.rxtt"); }), ErrorCode::kDataLoss) << n;
  }
  std::vector<uint8_t> flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  EXPECT_EQ(DeserializeError(flipped), "trainer file 't.rxtt': checksum mismatch: the file is truncated or corrupt");

  std::vector<uint8_t> version = good;
  version[8] = 9;
  test::ResealFnvChecksum(version);
  EXPECT_EQ(DeserializeError(version),
            "trainer file 't.rxtt': format version 9 is not supported (this build reads version 1)");

  // The first section (the program) given an unknown tag, then the executable's tag.
  std::vector<uint8_t> unknown = good;
  unknown[16] = 7;
  test::ResealFnvChecksum(unknown);
  EXPECT_EQ(DeserializeError(unknown), "trainer file 't.rxtt': unknown section 7 (at byte 16)");
  // The second section (the executable) given the program's tag.
  uint64_t program_length;
  std::memcpy(&program_length, good.data() + 20, 8);
  const size_t second = 28 + static_cast<size_t>(program_length);
  std::vector<uint8_t> twice = good;
  twice[second] = 1;
  test::ResealFnvChecksum(twice);
  EXPECT_EQ(DeserializeError(twice), StrCat("trainer file 't.rxtt': section 1 appears twice (at byte ", second, ")"));

  // One section fewer than the count says.
  std::vector<uint8_t> count = good;
  count[12] += 1;
  test::ResealFnvChecksum(count);
  EXPECT_EQ(DeserializeError(count).rfind("trainer file 't.rxtt': truncated while reading section tag", 0), 0u);
  count[12] -= 2;
  test::ResealFnvChecksum(count);
  EXPECT_EQ(DeserializeError(count).rfind("trainer file 't.rxtt': trailing bytes after the sections", 0), 0u);
}

// Values that do not fit the program (another model's checkpoint spliced in): refused when
// opened, naming the file and the tensor.
TEST(TrainerFile, ValuesThatDoNotFitTheProgramAreRefused) {
  auto trainer = LinearTrainer();
  TrainerFile file = MakeTrainerFile(*trainer, {});
  for (auto& [name, tensor] : file.values.tensors) {
    if (name == "param/w") tensor = Tensor::Empty({2, 3}, DType::kFloat32);
  }
  std::vector<uint8_t> bytes = file.Serialize();
  EXPECT_EQ(ErrorOf([&] { OpenTrainerFile(TrainerFile::Deserialize(bytes.data(), bytes.size(), "t.rxtt"), Reference()); }),
            "checkpoint 't.rxtt': 'param/w' is float32 (2, 3), this trainer needs float32 Tensor((3, 2), float32)");
}

}  // namespace
}  // namespace rxt
