// The executable file format (docs/vm.md): magic, format version, sections, FNV-1a checksum.
// Reading never trusts the bytes: every length is checked against what is left, so a
// truncated or corrupt file is an error naming the file, never an out-of-bounds read.
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "rxt/runtime/executable.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/support/error.h"
#include "rxt/support/file_io.h"
#include "rxt/support/message_text.h"
#include "runtime/byte_codec.h"

namespace rxt {
namespace {

constexpr char kMagic[8] = {'R', 'X', 'T', 'E', 'X', 'E', 'C', '\x1a'};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4 + 4;  // magic, version, section count
constexpr size_t kChecksumBytes = 8;
constexpr int kMaxValueDepth = 64;

enum SectionTag : uint32_t { kMeta = 1, kFunctions = 2, kConstants = 3, kKernels = 4, kExterns = 5 };

void WriteValue(ByteWriter& w, const Value& v) {
  w.U8(static_cast<uint8_t>(v.kind()));
  switch (v.kind()) {
    case Value::Kind::kNone: return;
    case Value::Kind::kTensor: {
      const Tensor& t = v.tensor();
      w.U8(static_cast<uint8_t>(t.dtype()));
      w.U32(static_cast<uint32_t>(t.ndim()));
      for (int64_t d : t.shape()) w.I64(d);
      w.U64(t.nbytes());
      w.Raw(t.data(), t.nbytes());
      return;
    }
    case Value::Kind::kTuple:
      w.U32(static_cast<uint32_t>(v.tuple().size()));
      for (const Value& f : v.tuple()) WriteValue(w, f);
      return;
    case Value::Kind::kShape:
      w.U32(static_cast<uint32_t>(v.shape().size()));
      for (int64_t d : v.shape()) w.I64(d);
      return;
    case Value::Kind::kInt: w.I64(v.int_value()); return;
    case Value::Kind::kFloat: w.F64(v.float_value()); return;
    case Value::Kind::kString: w.Str(v.string()); return;
  }
}

void WritePattern(ByteWriter& w, const TypePattern& p) {
  w.U8(static_cast<uint8_t>(p.kind));
  w.U8(p.dtype);
  w.I32(p.ndim);
  w.U8(p.dims_known ? 1 : 0);
  w.U32(static_cast<uint32_t>(p.dims.size()));
  for (const DimPattern& d : p.dims) {
    w.U8(static_cast<uint8_t>(d.kind));
    w.I32(d.ref);
  }
  w.U32(static_cast<uint32_t>(p.fields.size()));
  for (const TypePattern& f : p.fields) WritePattern(w, f);
  w.Str(p.text);
  w.Str(p.context);
}

void WriteFunction(ByteWriter& w, const VMFunction& f) {
  w.Str(f.name);
  w.U32(static_cast<uint32_t>(f.param_names.size()));
  for (const std::string& n : f.param_names) w.Str(n);
  w.I32(f.num_registers);
  w.I32(f.num_slots);
  w.U32(static_cast<uint32_t>(f.slot_names.size()));
  for (const std::string& n : f.slot_names) w.Str(n);
  w.U32(static_cast<uint32_t>(f.shape_exprs.size()));
  for (const ShapeExprOp& e : f.shape_exprs) {
    w.U8(static_cast<uint8_t>(e.kind));
    w.I64(e.value);
    w.I32(e.a);
    w.I32(e.b);
  }
  w.U32(static_cast<uint32_t>(f.patterns.size()));
  for (const TypePattern& p : f.patterns) WritePattern(w, p);
  w.U32(static_cast<uint32_t>(f.code.size()));
  for (const Instruction& ins : f.code) {
    w.U8(static_cast<uint8_t>(ins.op));
    w.I32(ins.dst);
    w.I32(ins.arg);
    w.I32(ins.index);
    w.I32(ins.aux);
    w.U32(static_cast<uint32_t>(ins.operands.size()));
    for (int32_t o : ins.operands) w.I32(o);
  }
  // The memory plan (Validate checks it against the code).
  w.I64(f.arena_bytes);
  w.U32(static_cast<uint32_t>(f.arena_tensors.size()));
  for (const ArenaTensor& t : f.arena_tensors) {
    w.I64(t.offset);
    w.I64(t.nbytes);
  }
  w.I32(f.num_reuse_slots);
}

void WriteSection(ByteWriter& out, uint32_t tag, ByteWriter& payload) {
  out.U32(tag);
  out.U64(payload.bytes().size());
  out.Raw(payload.bytes().data(), payload.bytes().size());
}

// ---- Reading.
Value ReadValue(ByteReader& r, int depth) {
  if (depth > kMaxValueDepth) r.Fail("constant nested too deeply");
  uint8_t kind = r.U8("value kind");
  switch (static_cast<Value::Kind>(kind)) {
    case Value::Kind::kNone: return Value();
    case Value::Kind::kTensor: {
      uint8_t dtype = r.U8("tensor dtype");
      if (dtype == 0 || dtype > static_cast<uint8_t>(DType::kBool)) r.Fail("unknown tensor dtype ", int{dtype});
      size_t ndim = r.Count("tensor dims", 8);
      std::vector<int64_t> shape(ndim);
      uint64_t numel = 1;
      for (int64_t& d : shape) {
        d = r.I64("tensor dim");
        if (d < 0 || (d > 0 && numel > (uint64_t{1} << 48) / static_cast<uint64_t>(d))) r.Fail("bad tensor dim ", d);
        numel *= static_cast<uint64_t>(d);
      }
      uint64_t nbytes = r.U64("tensor size");
      if (nbytes != numel * DTypeBytes(static_cast<DType>(dtype))) r.Fail("tensor size ", nbytes, " does not match its shape");
      const uint8_t* p = r.Take(static_cast<size_t>(nbytes), "tensor data");
      return Value(Tensor::FromBytes(std::move(shape), static_cast<DType>(dtype), p, static_cast<size_t>(nbytes)));
    }
    case Value::Kind::kTuple: {
      size_t n = r.Count("tuple fields");
      std::vector<Value> fields;
      fields.reserve(n);
      for (size_t i = 0; i < n; ++i) fields.push_back(ReadValue(r, depth + 1));
      return Value::Tuple(std::move(fields));
    }
    case Value::Kind::kShape: {
      size_t n = r.Count("shape dims", 8);
      std::vector<int64_t> dims(n);
      for (int64_t& d : dims) d = r.I64("shape dim");
      return Value::Shape(std::move(dims));
    }
    case Value::Kind::kInt: return Value::Int(r.I64("int"));
    case Value::Kind::kFloat: return Value::Float(r.F64("float"));
    case Value::Kind::kString: return Value::String(r.Str("string"));
  }
  r.Fail("unknown value kind ", int{kind});
}

TypePattern ReadPattern(ByteReader& r, int depth) {
  if (depth > kMaxValueDepth) r.Fail("type pattern nested too deeply");
  TypePattern p;
  uint8_t kind = r.U8("pattern kind");
  if (kind > static_cast<uint8_t>(TypePattern::Kind::kPrim)) r.Fail("unknown pattern kind ", int{kind});
  p.kind = static_cast<TypePattern::Kind>(kind);
  p.dtype = r.U8("pattern dtype");
  p.ndim = r.I32("pattern ndim");
  p.dims_known = r.U8("pattern dims known") != 0;
  p.dims.resize(r.Count("pattern dims", 5));
  for (DimPattern& d : p.dims) {
    uint8_t dk = r.U8("dim kind");
    if (dk > static_cast<uint8_t>(DimPattern::Kind::kMatch)) r.Fail("unknown dim kind ", int{dk});
    d.kind = static_cast<DimPattern::Kind>(dk);
    d.ref = r.I32("dim ref");
  }
  size_t nfields = r.Count("pattern fields");
  for (size_t i = 0; i < nfields; ++i) p.fields.push_back(ReadPattern(r, depth + 1));
  p.text = r.Name("pattern text");
  p.context = r.Name("pattern context");
  return p;
}

VMFunction ReadFunction(ByteReader& r, uint32_t version) {
  VMFunction f;
  f.name = r.Name("function name");
  f.param_names.resize(r.Count("parameter names", 4));
  for (std::string& n : f.param_names) n = r.Name("parameter name");
  f.num_registers = r.I32("register count");
  f.num_slots = r.I32("slot count");
  f.slot_names.resize(r.Count("slot names", 4));
  for (std::string& n : f.slot_names) n = r.Name("slot name");
  f.shape_exprs.resize(r.Count("shape exprs", 17));
  for (ShapeExprOp& e : f.shape_exprs) {
    uint8_t k = r.U8("shape expr kind");
    if (k > static_cast<uint8_t>(ShapeExprOp::Kind::kMax)) r.Fail("unknown shape expr kind ", int{k});
    e.kind = static_cast<ShapeExprOp::Kind>(k);
    e.value = r.I64("shape expr value");
    e.a = r.I32("shape expr operand");
    e.b = r.I32("shape expr operand");
  }
  size_t npatterns = r.Count("patterns");
  for (size_t i = 0; i < npatterns; ++i) f.patterns.push_back(ReadPattern(r, 0));
  f.code.resize(r.Count("instructions", 21));
  for (Instruction& ins : f.code) {
    uint8_t op = r.U8("opcode");
    if (op >= kNumOpcodes) r.Fail("unknown opcode ", int{op});
    ins.op = static_cast<Opcode>(op);
    ins.dst = r.I32("instruction dst");
    ins.arg = r.I32("instruction arg");
    ins.index = r.I32("instruction index");
    ins.aux = r.I32("instruction aux");
    ins.operands.resize(r.Count("operands", 4));
    for (int32_t& o : ins.operands) o = r.I32("operand");
  }
  if (version < 2) return f;  // version 1 had no memory plan
  f.arena_bytes = r.I64("arena size");
  f.arena_tensors.resize(r.Count("arena tensors", 16));
  for (ArenaTensor& t : f.arena_tensors) {
    t.offset = r.I64("arena tensor offset");
    t.nbytes = r.I64("arena tensor size");
  }
  f.num_reuse_slots = r.I32("reuse slot count");
  return f;
}

void ReadSection(uint32_t tag, ByteReader& r, Executable& exec) {
  switch (tag) {
    case kMeta:
      exec.backend = r.Name("backend name");
      if (exec.format_version >= 2) exec.aot_library = r.Name("kernel library path");
      break;
    case kFunctions: {
      size_t n = r.Count("functions");
      for (size_t i = 0; i < n; ++i) exec.functions.push_back(ReadFunction(r, exec.format_version));
      break;
    }
    case kConstants: {
      size_t n = r.Count("constants");
      for (size_t i = 0; i < n; ++i) exec.constants.push_back(ReadValue(r, 0));
      break;
    }
    case kKernels: {
      size_t n = r.Count("kernels", 16);
      for (size_t i = 0; i < n; ++i) {
        KernelRecord k;
        k.name = r.Name("kernel name");
        k.portable = r.Bytes("kernel code");
        k.aot_symbol = r.Name("kernel symbol");
        exec.kernels.push_back(std::move(k));
      }
      break;
    }
    case kExterns: {
      size_t n = r.Count("extern names", 4);
      for (size_t i = 0; i < n; ++i) exec.externs.push_back(r.Name("extern name"));
      break;
    }
    default: return;  // an unknown section of this version: skipped
  }
  if (!r.done()) r.Fail("section ", tag, " has ", "trailing bytes");
}

// The bytes of |exec|, with |library| as the kernel library's path.
std::vector<uint8_t> SerializeExecutable(const Executable& exec, const std::string& library) {
  const std::vector<VMFunction>& functions = exec.functions;
  const std::vector<Value>& constants = exec.constants;
  const std::vector<KernelRecord>& kernels = exec.kernels;
  const std::vector<std::string>& externs = exec.externs;
  const std::string& backend = exec.backend;
  ByteWriter meta, funcs, consts, kerns, exts;
  meta.Str(backend);
  meta.Str(library);
  funcs.U32(static_cast<uint32_t>(functions.size()));
  for (const VMFunction& f : functions) WriteFunction(funcs, f);
  consts.U32(static_cast<uint32_t>(constants.size()));
  for (const Value& v : constants) WriteValue(consts, v);
  kerns.U32(static_cast<uint32_t>(kernels.size()));
  for (const KernelRecord& k : kernels) {
    kerns.Str(k.name);
    kerns.Bytes(k.portable);
    kerns.Str(k.aot_symbol);
  }
  exts.U32(static_cast<uint32_t>(externs.size()));
  for (const std::string& e : externs) exts.Str(e);

  ByteWriter out;
  out.Raw(kMagic, sizeof kMagic);
  out.U32(Executable::kFormatVersion);
  out.U32(5);
  WriteSection(out, kMeta, meta);
  WriteSection(out, kFunctions, funcs);
  WriteSection(out, kConstants, consts);
  WriteSection(out, kKernels, kerns);
  WriteSection(out, kExterns, exts);
  out.U64(Fnv1a64(out.bytes().data(), out.bytes().size()));
  return std::move(out.bytes());
}

}  // namespace

std::vector<uint8_t> Executable::Serialize() const { return SerializeExecutable(*this, aot_library); }

Executable Executable::Deserialize(const uint8_t* data, size_t size, const std::string& source) {
  auto fail = [&](const auto&... args) { Throw(ErrorCode::kDataLoss, "executable ", Quoted(source), ": ", args...); };
  if (size < sizeof kMagic || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    fail("not an rxt executable (bad magic number)");
  }
  if (size < kHeaderBytes + kChecksumBytes) fail("truncated (", size, " bytes)");
  uint32_t version;
  std::memcpy(&version, data + sizeof kMagic, 4);
  if (version < kOldestFormatVersion || version > kFormatVersion) {
    fail("format version ", version, " is not supported (this build reads versions ", kOldestFormatVersion, " to ",
         kFormatVersion, ")");
  }
  uint64_t stored;
  std::memcpy(&stored, data + size - kChecksumBytes, kChecksumBytes);
  if (stored != Fnv1a64(data, size - kChecksumBytes)) fail("checksum mismatch: the file is truncated or corrupt");

  Executable exec;
  exec.format_version = version;
  exec.source = source;
  ByteReader header(data + sizeof kMagic + 4, size - kChecksumBytes - sizeof kMagic - 4, "executable", source,
                sizeof kMagic + 4);
  uint32_t sections = header.U32("section count");
  bool seen[6] = {};
  for (uint32_t i = 0; i < sections; ++i) {
    uint32_t tag = header.U32("section tag");
    uint64_t length = header.U64("section length");
    size_t start = sizeof kMagic + 4 + header.pos();
    const uint8_t* payload = header.Take(static_cast<size_t>(std::min<uint64_t>(length, SIZE_MAX)), "section");
    if (tag < 6) {
      if (seen[tag]) header.Fail("section ", tag, " appears twice");
      seen[tag] = true;
    }
    ByteReader section(payload, static_cast<size_t>(length), "executable", source, start);
    ReadSection(tag, section, exec);
  }
  if (!header.done()) header.Fail("trailing bytes after the sections");
  for (uint32_t tag = kMeta; tag <= kExterns; ++tag) {
    if (!seen[tag]) fail("section ", tag, " is missing");
  }
  exec.Validate();  // its messages begin with exec.Label(), which names |source|
  return exec;
}

namespace {

// The kernel library as the file at |executable_path| records it: relative to the file's
// directory when the library lies in it (so that the two move together), else absolute.
std::string LibraryPathToStore(const std::string& library, const std::string& executable_path) {
  if (library.empty()) return library;
  namespace fs = std::filesystem;
  fs::path absolute = fs::absolute(library).lexically_normal();
  fs::path directory = fs::absolute(executable_path).lexically_normal().parent_path();
  fs::path relative = absolute.lexically_relative(directory);
  if (!relative.empty() && *relative.begin() != "..") return relative.string();
  return absolute.string();
}

}  // namespace

void Executable::Save(const std::string& path) const {
  std::vector<uint8_t> bytes = SerializeExecutable(*this, LibraryPathToStore(aot_library, path));
  WriteFileAtomically(path, bytes.data(), bytes.size(), "executable");
}

Executable Executable::Load(const std::string& path) {
  std::vector<uint8_t> bytes = ReadFileWithinMemoryLimit(path, "executable");
  Executable exec = Deserialize(bytes.data(), bytes.size(), path);
  if (!exec.aot_library.empty() && std::filesystem::path(exec.aot_library).is_relative()) {
    std::filesystem::path directory = std::filesystem::absolute(path).lexically_normal().parent_path();
    exec.aot_library = (directory / exec.aot_library).lexically_normal().string();
  }
  return exec;
}

}  // namespace rxt
