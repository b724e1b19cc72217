// The trainer file (train/trainer_file.h, docs/trainer_file.md). Sections: 1 the program (the
// argument layout, the optimizer state's names and initial values, the schedule), 2 the
// executable (its own format, checksum included), 3 the kernel library (optional), 4 the
// values (a safetensors checkpoint).
#include "rxt/train/trainer_file.h"

#include <cmath>

#include "runtime/byte_codec.h"
#include "rxt/runtime/aot_library.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/support/file_io.h"
#include "rxt/train/lr_schedule.h"

namespace rxt {
namespace {

constexpr char kMagic[8] = {'R', 'X', 'T', 'T', 'R', 'A', 'I', 'N'};
constexpr size_t kChecksumBytes = 8;
constexpr size_t kMaxDims = 64;
enum SectionTag : uint32_t { kProgram = 1, kExecutable = 2, kKernelLibrary = 3, kValues = 4 };
constexpr uint32_t kLastTag = kValues;

// ---- Writing.

void WriteShape(ByteWriter& w, const std::vector<int64_t>& shape) {
  w.U32(static_cast<uint32_t>(shape.size()));
  for (int64_t d : shape) w.I64(d);
}

void WriteSpec(ByteWriter& w, const TrainerTensorSpec& spec) {
  w.Str(spec.name);
  w.U8(static_cast<uint8_t>(spec.dtype));
  w.I32(spec.ndim);
  WriteShape(w, spec.shape);
  w.I64(spec.fan_in);
  w.I64(spec.fan_out);
}

void WriteSpecs(ByteWriter& w, const std::vector<TrainerTensorSpec>& specs) {
  w.U32(static_cast<uint32_t>(specs.size()));
  for (const TrainerTensorSpec& spec : specs) WriteSpec(w, spec);
}

void WriteProgram(ByteWriter& w, const TrainerFile& file) {
  const TrainerProgram& p = file.program;
  WriteSpecs(w, p.inputs);
  WriteSpecs(w, p.targets);
  WriteSpecs(w, p.params);
  WriteSpecs(w, p.states);
  w.I32(p.output_num);
  w.U32(static_cast<uint32_t>(p.optim_state_names.size()));
  for (size_t i = 0; i < p.optim_state_names.size(); ++i) {
    const InitialOptimState& initial = p.initial_optim_state[i];
    w.Str(p.optim_state_names[i]);
    w.U8(static_cast<uint8_t>(initial.dtype));
    WriteShape(w, initial.shape);
    WriteShape(w, initial.values.shape());  // () for one element repeated, else |shape|
    w.U64(initial.values.nbytes());
    w.Raw(initial.values.data(), initial.values.nbytes());
  }
  w.Str(file.schedule);
  w.F64(file.base_lr);
}

void WriteSection(ByteWriter& out, uint32_t tag, const std::vector<uint8_t>& payload) {
  out.U32(tag);
  out.U64(payload.size());
  out.Raw(payload.data(), payload.size());
}

// ---- Reading.

DType ReadDType(ByteReader& r, const char* what) {
  uint8_t code = r.U8(what);
  if (code == 0 || code > static_cast<uint8_t>(DType::kBool)) r.Fail("unknown ", what, " ", int{code});
  return static_cast<DType>(code);
}

/// Dims of a tensor of |dtype|: each >= 0 (or -1 where |allow_unknown|), the static ones no
/// larger together than the memory limit allows.
std::vector<int64_t> ReadShape(ByteReader& r, DType dtype, bool allow_unknown, const char* what) {
  size_t ndim = r.Count(what, 8);
  if (ndim > kMaxDims) r.Fail(what, " has ", ndim, " dims (at most ", kMaxDims, ")");
  std::vector<int64_t> shape(ndim);
  int64_t bytes = static_cast<int64_t>(DTypeBytes(dtype));
  for (int64_t& d : shape) {
    d = r.I64(what);
    if (d < (allow_unknown ? -1 : 0)) r.Fail("bad dim ", d, " in ", what);
    if (d > 0) {
      if (bytes > MemoryLimit() / d) r.Fail(what, " is larger than the memory limit (", ByteSizeText(MemoryLimit()), ")");
      bytes *= d;
    }
  }
  return shape;
}

TrainerTensorSpec ReadSpec(ByteReader& r) {
  TrainerTensorSpec spec;
  spec.name = r.Name("argument name");
  spec.dtype = ReadDType(r, "argument dtype");
  spec.ndim = r.I32("argument rank");
  spec.shape = ReadShape(r, spec.dtype, true, "argument shape");
  if (spec.ndim < -1 || (spec.ndim >= 0 && static_cast<size_t>(spec.ndim) != spec.shape.size()) ||
      (spec.ndim < 0 && !spec.shape.empty())) {
    r.Fail("argument ", Quoted(spec.name), " has rank ", spec.ndim, " and ", spec.shape.size(), " dims");
  }
  spec.fan_in = r.I64("fan in");
  spec.fan_out = r.I64("fan out");
  if (spec.fan_in < 0 || spec.fan_out < 0) r.Fail("argument ", Quoted(spec.name), " has a negative fan");
  return spec;
}

std::vector<TrainerTensorSpec> ReadSpecs(ByteReader& r, const char* what) {
  size_t n = r.Count(what, 4 + 1 + 4 + 4 + 16);
  std::vector<TrainerTensorSpec> specs;
  specs.reserve(n);
  for (size_t i = 0; i < n; ++i) specs.push_back(ReadSpec(r));
  return specs;
}

void ReadProgram(ByteReader& r, TrainerFile& file) {
  TrainerProgram& p = file.program;
  p.inputs = ReadSpecs(r, "inputs");
  p.targets = ReadSpecs(r, "targets");
  p.params = ReadSpecs(r, "parameters");
  p.states = ReadSpecs(r, "states");
  for (const TrainerTensorSpec& spec : p.params) {
    if (spec.ndim < 0) r.Fail("parameter ", Quoted(spec.name), " has no rank");
  }
  p.output_num = r.I32("output count");
  if (p.output_num < 0) r.Fail("negative output count ", p.output_num);
  size_t n = r.Count("optimizer states", 4 + 1 + 4 + 4 + 8);
  for (size_t i = 0; i < n; ++i) {
    p.optim_state_names.push_back(r.Name("optimizer state name"));
    InitialOptimState initial;
    initial.dtype = ReadDType(r, "optimizer state dtype");
    initial.shape = ReadShape(r, initial.dtype, false, "optimizer state shape");
    std::vector<int64_t> stored = ReadShape(r, initial.dtype, false, "optimizer state value shape");
    if (!stored.empty() && stored != initial.shape) {
      r.Fail("optimizer state ", Quoted(p.optim_state_names.back()), ": its initial value is neither one element nor its shape");
    }
    uint64_t nbytes = r.U64("optimizer state value size");
    int64_t numel = 1;
    for (int64_t d : stored) numel *= d;
    if (nbytes != static_cast<uint64_t>(numel) * DTypeBytes(initial.dtype)) {
      r.Fail("optimizer state value size ", nbytes, " does not match its shape");
    }
    const uint8_t* bytes = r.Take(static_cast<size_t>(nbytes), "optimizer state value");
    initial.values = Tensor::FromBytes(std::move(stored), initial.dtype, bytes, static_cast<size_t>(nbytes));
    p.initial_optim_state.push_back(std::move(initial));
  }
  file.schedule = r.Name("schedule");
  file.base_lr = r.F64("base learning rate");
  if (!file.schedule.empty()) {
    try {
      ParseLrSchedule(file.schedule).Validate();
    } catch (const Error& e) {
      r.Fail("schedule ", Quoted(file.schedule), ": ", e.what());
    }
    if (!std::isfinite(file.base_lr) || file.base_lr < 0) r.Fail("base learning rate ", file.base_lr, " is not >= 0");
  }
  if (!r.done()) r.Fail("trailing bytes after the program");
}

bool HasOptimizerState(const TensorFile& values) {
  for (const auto& [name, tensor] : values.tensors) {
    if (name.rfind("optim/", 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string TrainerFile::Label() const {
  return source.empty() ? std::string("the trainer file") : StrCat("trainer file ", Quoted(source));
}

std::vector<uint8_t> TrainerFile::Serialize() const {
  ByteWriter program_bytes;
  WriteProgram(program_bytes, *this);
  Executable exec = program.executable;
  exec.aot_library.clear();  // the library travels in its own section

  ByteWriter out;
  out.Raw(kMagic, sizeof kMagic);
  out.U32(kFormatVersion);
  out.U32(kernel_library.empty() ? 3 : 4);
  WriteSection(out, kProgram, program_bytes.bytes());
  WriteSection(out, kExecutable, exec.Serialize());
  if (!kernel_library.empty()) WriteSection(out, kKernelLibrary, kernel_library);
  WriteSection(out, kValues, SerializeSafetensors(values));
  out.U64(Fnv1a64(out.bytes().data(), out.bytes().size()));
  return std::move(out.bytes());
}

TrainerFile TrainerFile::Deserialize(const uint8_t* data, size_t size, const std::string& source) {
  auto fail = [&](const auto&... args) { Throw(ErrorCode::kDataLoss, "trainer file ", Quoted(source), ": ", args...); };
  if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    fail("not an rxt trainer file (bad magic number)");
  }
  if (size < sizeof kMagic + 8 + kChecksumBytes) fail("truncated (", size, " bytes)");
  uint32_t version;
  std::memcpy(&version, data + sizeof kMagic, 4);
  if (version != kFormatVersion) {
    fail("format version ", version, " is not supported (this build reads version ", kFormatVersion, ")");
  }
  uint64_t stored;
  std::memcpy(&stored, data + size - kChecksumBytes, kChecksumBytes);
  if (stored != Fnv1a64(data, size - kChecksumBytes)) fail("checksum mismatch: the file is truncated or corrupt");

  TrainerFile file;
  file.source = source;
  const size_t base = sizeof kMagic + 4;
  ByteReader header(data + base, size - kChecksumBytes - base, "trainer file", source, base);
  uint32_t sections = header.U32("section count");
  bool seen[kLastTag + 1] = {};
  for (uint32_t i = 0; i < sections; ++i) {
    size_t tag_pos = header.pos();
    uint32_t tag = header.U32("section tag");
    if (tag < kProgram || tag > kLastTag || seen[tag]) {
      ByteReader at(data + base + tag_pos, 0, "trainer file", source, base + tag_pos);
      if (tag < kProgram || tag > kLastTag) at.Fail("unknown section ", tag);
      at.Fail("section ", tag, " appears twice");
    }
    seen[tag] = true;
    uint64_t length = header.U64("section length");
    size_t start = base + header.pos();
    const uint8_t* payload = header.Take(static_cast<size_t>(std::min<uint64_t>(length, SIZE_MAX)), "section");
    ByteReader section(payload, static_cast<size_t>(length), "trainer file", source, start);
    switch (tag) {
      case kProgram: ReadProgram(section, file); break;
      case kExecutable:
        file.program.executable = Executable::Deserialize(payload, static_cast<size_t>(length), source + " (executable)");
        if (!file.program.executable.aot_library.empty()) section.Fail("the executable names a kernel library file");
        break;
      case kKernelLibrary:
        if (length == 0) section.Fail("the kernel library section is empty");
        file.kernel_library.assign(payload, payload + length);
        break;
      case kValues: file.values = ParseSafetensors(payload, static_cast<size_t>(length), source + " (values)"); break;
    }
  }
  if (!header.done()) header.Fail("trailing bytes after the sections");
  for (uint32_t tag : {kProgram, kExecutable, kValues}) {
    if (!seen[tag]) fail("section ", tag, " is missing");
  }
  return file;
}

TrainerFile MakeTrainerFile(const Trainer& trainer, std::vector<uint8_t> kernel_library) {
  TrainerFile file;
  file.program = trainer.program();
  file.program.executable.aot_library.clear();
  file.program.executable.source.clear();
  file.kernel_library = std::move(kernel_library);
  file.values = trainer.MakeCheckpoint();
  bool initial_optimizer = trainer.step() == 0;
  for (size_t i = 0; initial_optimizer && i < trainer.optimizer_state().size(); ++i) {
    initial_optimizer = trainer.program().initial_optim_state[i].Holds(trainer.optimizer_state()[i]);
  }
  if (initial_optimizer) {
    std::erase_if(file.values.tensors, [](const auto& named) { return named.first.rfind("optim/", 0) == 0; });
  }
  if (trainer.schedule()) {
    file.schedule = trainer.schedule()->ToString();
    file.base_lr = trainer.base_learning_rate();
  }
  return file;
}

void SaveTrainerFile(const TrainerFile& file, const std::string& path) {
  std::vector<uint8_t> bytes = file.Serialize();
  WriteFileAtomically(path, bytes.data(), bytes.size(), "trainer file");
}

TrainerFile LoadTrainerFile(const std::string& path) {
  std::vector<uint8_t> bytes = ReadFileWithinMemoryLimit(path, "trainer file");
  return TrainerFile::Deserialize(bytes.data(), bytes.size(), path);
}

std::unique_ptr<Trainer> OpenTrainerFile(TrainerFile file, std::shared_ptr<KernelProvider> fallback,
                                         const ExternRegistry& externs) {
  std::string label = file.Label();
  std::shared_ptr<KernelProvider> kernels;
  if (!file.kernel_library.empty()) {
    const std::string& backend = file.program.executable.backend;
    kernels = std::make_shared<AotKernelProvider>(
        AotKernelProvider::FromBytes(file.kernel_library, label + ": kernel library", backend.empty() ? "cpu" : backend));
    file.kernel_library = {};
  } else if (fallback != nullptr) {
    kernels = std::move(fallback);
  } else {
    Throw(ErrorCode::kFailedPrecondition, label, " carries no kernel library and no backend was given to compile its kernels");
  }
  // A trainer that had not stepped is saved without its optimizer state: it starts from the
  // initial value again (Materialize leaves zero buffers untouched, so they cost no memory yet).
  if (!HasOptimizerState(file.values)) {
    for (size_t i = 0; i < file.program.optim_state_names.size(); ++i) {
      file.values.tensors.emplace_back("optim/" + file.program.optim_state_names[i],
                                       file.program.initial_optim_state[i].Materialize());
    }
  }
  TensorFile values = std::move(file.values);
  std::string schedule = std::move(file.schedule);
  double base_lr = file.base_lr;
  auto trainer = std::make_unique<Trainer>(std::move(file.program), std::move(kernels), externs);
  // The schedule first: setting it writes the rate of the next step, which the saved optimizer
  // state then replaces with the rate as it was (the next Update applies the schedule again).
  if (!schedule.empty()) trainer->SetSchedule(ParseLrSchedule(schedule), base_lr);
  trainer->RestoreCheckpoint(values, file.source.empty() ? std::string("<memory>") : file.source);
  return trainer;
}

}  // namespace rxt
