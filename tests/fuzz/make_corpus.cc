// Writes the seed corpus of every fuzz target: valid inputs from the repository's own examples
// and from rxt's own writers, so that fuzzing starts deep inside each format. Run it to
// regenerate the seeds (docs/fuzzing.md); the corpus in tests/fuzz/corpus/ is checked in.
//
//   build/dev/tests/fuzz/rxt_fuzz_make_corpus tests/fuzz/corpus
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "idx.h"
#include "npy.h"
#include "rxt/exec/build.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/safetensors.h"
#include "rxt/support/error.h"
#include "rxt/train/trainer_file.h"
#include "train_checkpoints.h"

namespace {

namespace fs = std::filesystem;
using rxt::DType;
using rxt::Tensor;

fs::path g_out;
constexpr size_t kMaxSeedBytes = 32 << 10;  // small files: the ctest replay stays fast

void Write(const std::string& target, const std::string& name, const void* data, size_t size) {
  if (size > kMaxSeedBytes) return;
  fs::create_directories(g_out / target);
  std::ofstream(g_out / target / name, std::ios::binary).write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}
void Write(const std::string& target, const std::string& name, const std::vector<uint8_t>& bytes) {
  Write(target, name, bytes.data(), bytes.size());
}
void Write(const std::string& target, const std::string& name, const std::string& text) {
  Write(target, name, text.data(), text.size());
}

std::string ReadText(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// A tensor of |dtype| and |shape| whose bytes count up.
Tensor Counting(std::vector<int64_t> shape, DType dtype) {
  Tensor t = Tensor::Empty(std::move(shape), dtype);
  auto* bytes = static_cast<uint8_t*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) bytes[i] = dtype == DType::kBool ? i % 2 : static_cast<uint8_t>(i * 7);
  return t;
}

void IrTextAndBuilds(const fs::path& source) {
  std::vector<fs::path> files;
  for (const char* dir : {"examples", "tests/data/roundtrip"}) {
    for (const auto& entry : fs::directory_iterator(source / dir)) {
      if (entry.path().extension() == ".rxt") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  int kernels = 0;
  for (const fs::path& file : files) {
    std::string text = ReadText(file);
    std::string stem = file.stem().string();
    Write("ir_text", stem + ".rxt", text);
    for (int opt_level : {0, 2}) {
      try {
        rxt::IRModule lowered = rxt::LowerForBuild(rxt::ParseModule(text), {.opt_level = opt_level});
        rxt::Executable exec = rxt::Build(rxt::ParseModule(text), {.opt_level = opt_level});
        Write("executable", stem + "_O" + std::to_string(opt_level) + ".rxtx", exec.Serialize());
        for (const auto& entry : lowered.entries()) {
          if (entry.kernel == nullptr || kernels >= 40) continue;
          Write("kernel_format", stem + "_O" + std::to_string(opt_level) + "_" + entry.name + ".rxtk",
                rxt::EncodeKernel(entry.kernel, entry.name));
          ++kernels;
        }
      } catch (const rxt::Error&) {
        // Not every example builds on its own (extern functions, training modules): no seed.
      }
    }
  }
}

void Npy() {
  const std::pair<std::vector<int64_t>, DType> cases[] = {
      {{2, 3}, DType::kFloat32}, {{}, DType::kFloat64}, {{4}, DType::kInt32}, {{2, 2, 2}, DType::kInt64},
      {{0}, DType::kUInt8},      {{3}, DType::kBool},   {{1, 20}, DType::kFloat32}};
  int i = 0;
  for (const auto& [shape, dtype] : cases) {
    std::string bytes = rxt::cli::SerializeNpy(Counting(shape, dtype));
    Write("npy", "v1_" + std::to_string(i++) + ".npy", bytes);
  }
  // Version 2.0 and 3.0 headers: a 4-byte header length.
  std::string v1 = rxt::cli::SerializeNpy(Counting({2, 2}, DType::kFloat32));
  for (char major : {'\x02', '\x03'}) {
    std::string v = v1.substr(0, 6) + major + '\0' + v1.substr(8, 2) + std::string(2, '\0') + v1.substr(10);
    Write("npy", std::string("v") + char('0' + major) + ".npy", v);
  }
}

std::vector<uint8_t> Idx(const std::vector<uint32_t>& dims) {
  std::vector<uint8_t> bytes = {0, 0, 8, static_cast<uint8_t>(dims.size())};
  size_t count = 1;
  for (uint32_t d : dims) {
    for (int s = 24; s >= 0; s -= 8) bytes.push_back(static_cast<uint8_t>(d >> s));
    count *= d;
  }
  for (size_t i = 0; i < count; ++i) bytes.push_back(static_cast<uint8_t>(i * 3));
  return bytes;
}

std::vector<uint8_t> Gzip(const std::vector<uint8_t>& bytes) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&stream, bytes.size()) + 32);
  stream.next_in = const_cast<uint8_t*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

void IdxFiles() {
  const std::vector<uint32_t> shapes[] = {{10}, {3, 4}, {2, 5, 5}, {2, 2, 3, 3}, {0, 28, 28}};
  int i = 0;
  for (const auto& dims : shapes) {
    std::vector<uint8_t> plain = Idx(dims);
    Write("idx", "plain_" + std::to_string(i) + ".idx", plain);
    Write("idx", "gzip_" + std::to_string(i++) + ".idx.gz", Gzip(plain));
  }
  // Two gzip members, as `cat a.gz b.gz` makes.
  std::vector<uint8_t> whole = Idx({4, 4}), first(whole.begin(), whole.begin() + 8), second(whole.begin() + 8, whole.end());
  std::vector<uint8_t> members = Gzip(first), tail = Gzip(second);
  members.insert(members.end(), tail.begin(), tail.end());
  Write("idx", "two_members.idx.gz", members);
}

void Safetensors() {
  rxt::TensorFile all_dtypes;
  int i = 0;
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}) {
    all_dtypes.tensors.emplace_back(std::string("t") + std::to_string(i++), Counting({2, 1 + i % 3}, t));
  }
  Write("safetensors", "all_dtypes.safetensors", rxt::SerializeSafetensors(all_dtypes));
  Write("safetensors", "empty.safetensors", rxt::SerializeSafetensors({}));
  rxt::TensorFile with_metadata{{{"w", Counting({3}, DType::kFloat32)}, {"scalar", Counting({}, DType::kInt64)},
                                 {"none", Counting({0, 4}, DType::kFloat32)}},
                                {{"format", "pt"}, {"note", "caf\xc3\xa9 \x01"}}};
  Write("safetensors", "metadata.safetensors", rxt::SerializeSafetensors(with_metadata));
}

// The layout of the checkpoint target's trainer (tests/fuzz/checkpoint.cc, SmallTrainer).
rxt::TensorFile TrainerCheckpoint(int64_t step, bool train_metadata) {
  rxt::TensorFile file;
  file.tensors = {{"param/w", Counting({3, 2}, DType::kFloat32)},       {"param/b", Counting({2}, DType::kFloat32)},
                  {"state/running_mean", Counting({5, 2}, DType::kFloat32)}, {"optim/lr", Counting({}, DType::kFloat32)},
                  {"optim/step", Counting({}, DType::kInt64)},          {"optim/velocity.0", Counting({3, 2}, DType::kFloat32)},
                  {"optim/velocity.1", Counting({2}, DType::kFloat32)}};
  file.metadata = {{"rxt.format", "trainer-checkpoint/1"}, {"rxt.step", std::to_string(step)}};
  if (train_metadata) {
    rxt::cli::TrainingHistory history;
    history.epochs = {{1, 0.61, 0.8123, 2.5, 374.8}, {2, 0.42, 0.8577, 2.25, 416.4}};
    history.curve = {{0.5, 0.9}, {1.0, 0.55}, {1.5, 0.45}, {2.0, 0.40}};
    for (const auto& [key, value] : rxt::cli::CheckpointMetadata(2, {{"--batch-size", "64"}, {"--lr", "0.1"}}, history)) {
      file.metadata[key] = value;
    }
  }
  return file;
}

void Checkpoints() {
  auto with_mode = [](uint8_t mode, const std::vector<uint8_t>& bytes) {
    std::vector<uint8_t> out = {mode};
    out.insert(out.end(), bytes.begin(), bytes.end());
    return out;
  };
  Write("checkpoint", "rxt_train_epoch2.bin", with_mode(0, rxt::SerializeSafetensors(TrainerCheckpoint(1874, true))));
  Write("checkpoint", "trainer_only.bin", with_mode(0, rxt::SerializeSafetensors(TrainerCheckpoint(0, false))));
  rxt::TensorFile other = TrainerCheckpoint(3, true);
  other.tensors.pop_back();  // another optimizer
  Write("checkpoint", "other_optimizer.bin", with_mode(0, rxt::SerializeSafetensors(other)));
  std::string history = TrainerCheckpoint(0, true).metadata.at("history");
  Write("checkpoint", "history.bin", with_mode(1, std::vector<uint8_t>(history.begin(), history.end())));
  Write("checkpoint", "empty_history.bin", with_mode(1, std::vector<uint8_t>({'{', '"', 'e', 'p', 'o', 'c', 'h', 's', '"', ':', '[',
                                                                             ']', ',', '"', 'c', 'u', 'r', 'v', 'e', '"', ':',
                                                                             '[', ']', '}'})));
}

// Targets whose input is a description drawn byte by byte (FuzzInput): deterministic
// pseudo-random bytes of a few sizes, from which fuzzing finds its way. |keep| picks which of
// the first ten to write (ir_structured keeps those that build in well under a second).
// Trainer files: a small program (a linear layer's layout, an optimizer state stored as one
// element and one stored whole, a schedule) over a tiny executable, with and without the
// optimizer's values and a kernel-library section.
void TrainerFiles() {
  rxt::TrainerFile file;
  file.program.executable = rxt::Build(rxt::ParseModule(
      "def @main(%x: Tensor((2, 3), float32), %w: Tensor((3, 2), float32)) -> Tensor((2, 2), float32) {\n"
      "  %y = matmul(%x, %w)\n  return %y\n}\n"));
  using rxt::DType;
  file.program.inputs = {{.name = "x", .dtype = DType::kFloat32, .shape = {-1, 3}, .ndim = 2}};
  file.program.targets = {{.name = "y", .dtype = DType::kInt64, .shape = {-1}, .ndim = 1}};
  file.program.params = {{.name = "w", .dtype = DType::kFloat32, .shape = {3, 2}, .ndim = 2, .fan_in = 3, .fan_out = 2}};
  file.program.states = {{.name = "mean", .dtype = DType::kFloat32, .shape = {2}, .ndim = 1}};
  file.program.optim_state_names = {"lr", "momentum_buffer.0"};
  file.program.initial_optim_state = {rxt::InitialOptimState::Of(Counting({}, DType::kFloat32)),
                                      rxt::InitialOptimState::Of(Counting({3, 2}, DType::kFloat32))};
  file.values.metadata = {{"rxt.format", "trainer-checkpoint/1"}, {"rxt.step", "0"}};
  file.values.tensors = {{"param/w", Counting({3, 2}, DType::kFloat32)}, {"state/mean", Counting({2}, DType::kFloat32)}};
  file.schedule = "cosine:total_steps=100,warmup=10";
  file.base_lr = 0.1;
  Write("trainer_file", "fresh.rxtt", file.Serialize());
  file.values.metadata["rxt.step"] = "7";
  file.values.tensors.push_back({"optim/lr", Counting({}, DType::kFloat32)});
  file.values.tensors.push_back({"optim/momentum_buffer.0", Counting({3, 2}, DType::kFloat32)});
  file.schedule.clear();
  file.kernel_library = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  Write("trainer_file", "stepped_with_library.rxtt", file.Serialize());
}

void RandomSeeds(const std::string& target, const std::vector<int>& keep) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 10; ++i) {
    std::vector<uint8_t> bytes(16u << (i % 5));
    for (uint8_t& b : bytes) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      b = static_cast<uint8_t>(state >> 56);
    }
    if (std::find(keep.begin(), keep.end(), i) != keep.end()) Write(target, "random_" + std::to_string(i), bytes);
  }
}

// ir_structured inputs spelled out (ir_module_generator.cc draws, in order: columns, function
// count, each signature's rows, inputs and result kind, then per function its step count and
// steps): one function over 3 columns, then its steps.
void StructuredSeeds() {
  auto one_function = [](std::vector<uint8_t> steps, uint8_t count) {
    std::vector<uint8_t> bytes = {2, 0, 0, /*rows n*/ 0, /*1 input*/ 0, /*tensor result*/ 1, count};
    bytes.insert(bytes.end(), steps.begin(), steps.end());
    return bytes;
  };
  Write("ir_structured", "shared_chain_10", one_function({/*shared chain*/ 1, /*length 10*/ 9}, 1));
  // Tuples nested 200 deep, then indexed down to the tensor.
  Write("ir_structured", "deep_tuples", one_function({6, 199, 1, 7, 0, 6, 99, 1, 7, 0}, 4));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR (e.g. tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  g_out = argv[1];
  try {
    IrTextAndBuilds(RXT_SOURCE_DIR);
    Npy();
    IdxFiles();
    Safetensors();
    Checkpoints();
    TrainerFiles();
    RandomSeeds("plugin_descriptor", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    RandomSeeds("extern_plugins", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    RandomSeeds("ir_structured", {1, 2, 6, 7});
    StructuredSeeds();
  } catch (const rxt::Error& e) {
    std::fprintf(stderr, "rxt_fuzz_make_corpus: %s\n", e.what());
    return 1;
  }
  return 0;
}
