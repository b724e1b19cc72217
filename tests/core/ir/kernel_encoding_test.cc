// The portable kernel format: the encoder (core/src/ir/kernel_encoding.cc) and the header-only
// decoder every backend uses (abi/include/rxt/plugin_support/kernel_codec.h).
//   - every kernel of the project's .rxt files survives Encode -> Decode -> IR structurally;
//   - the decoder rejects malformed bytes (truncated, flipped, wrong magic or version, bad
//     indices, broken invariants) with a message, and never reads out of bounds.
#include "rxt/ir/kernel_encoding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/plugin_support/kernel_codec.h"
#include "test_util/test_files.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;
namespace kf = plugin_support::kernel_format;

using test::ReadFile;

std::vector<fs::path> ModuleFiles() {
  std::vector<fs::path> files = test::FilesWithExtension(fs::path(RXT_SOURCE_DIR) / "examples", ".rxt");
  for (const fs::path& f : test::FilesWithExtension(fs::path(RXT_TEST_DATA_DIR) / "roundtrip", ".rxt")) {
    files.push_back(f);
  }
  return files;
}

KernelFunction ParseKernel(const std::string& text, const std::string& name) {
  return ParseModule(text).GetKernel(name);
}

std::vector<uint8_t> EncodeText(const std::string& text, const std::string& name) {
  return EncodeKernel(ParseKernel(text, name), name);
}

std::string DecodeError(const std::vector<uint8_t>& bytes) {
  return kf::DecodeKernel(bytes.data(), bytes.size()).error;
}

std::string MyModule() { return ReadFile(fs::path(RXT_SOURCE_DIR) / "examples" / "my_module.rxt"); }

// ---- Round trips.

TEST(KernelEncoding, EveryKernelOfTheProjectRoundTrips) {
  int kernels = 0;
  for (const fs::path& path : ModuleFiles()) {
    IRModule module = ParseModule(ReadFile(path), path.filename().string());
    for (const IRModule::Entry& entry : module.entries()) {
      if (!entry.kernel) continue;
      SCOPED_TRACE(path.filename().string() + " @" + entry.name);
      ++kernels;
      std::vector<uint8_t> bytes = EncodeKernel(entry.kernel, entry.name);
      ASSERT_EQ(DecodeError(bytes), "");
      std::string name;
      KernelFunction decoded = DecodeKernelToIR(bytes, &name);
      EXPECT_EQ(name, entry.name);
      EXPECT_TRUE(StructuralEqual(entry.kernel, decoded))
          << PrintKernel(entry.kernel, entry.name) << "\n-- decoded --\n"
          << PrintKernel(decoded, entry.name);
      EXPECT_EQ(PrintKernel(decoded, entry.name), PrintKernel(entry.kernel, entry.name));
      EXPECT_EQ(EncodeKernel(decoded, name), bytes) << "encoding the decoded kernel gives other bytes";
    }
  }
  EXPECT_GE(kernels, 6);
}

TEST(KernelEncoding, TablesMirrorTheKernel) {
  kf::Kernel k = ToPortableKernel(ParseKernel(MyModule(), "linear0"), "linear0");
  EXPECT_EQ(k.name, "linear0");
  ASSERT_EQ(k.params.size(), 4u);
  std::vector<std::string> names;
  for (const kf::Param& p : k.params) {
    ASSERT_EQ(p.kind, kf::ParamKind::kBuffer);
    names.push_back(k.buffers[p.index].name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"X", "W", "B", "Z"}));
  // Parameters come first: m and n are variables 0 and 1, the first dims met.
  ASSERT_GE(k.vars.size(), 2u);
  EXPECT_EQ(k.vars[0].name, "m");
  EXPECT_EQ(k.vars[1].name, "n");
  EXPECT_EQ(k.stmts.back().kind, kf::StmtKind::kAllocate);  // the body: alloc Y { ... }
  // The symbolic dim n of W and of B is one expression node.
  const kf::Buffer& w = k.buffers[k.params[1].index];
  const kf::Buffer& b = k.buffers[k.params[2].index];
  EXPECT_EQ(w.shape[0], b.shape[0]);
  EXPECT_EQ(k.exprs[w.shape[0]].kind, kf::ExprKind::kVar);
  // One block has an init (the reduction), the other not.
  int inits = 0;
  for (const kf::Stmt& s : k.stmts) inits += s.kind == kf::StmtKind::kBlock && s.init != kf::kNone;
  EXPECT_EQ(inits, 1);
}

TEST(KernelEncoding, AttributesOfEveryKindRoundTrip) {
  Attrs attrs;
  attrs.Set("none", AttrValue());
  attrs.Set("flag", AttrValue(true));
  attrs.Set("count", AttrValue(int64_t{-42}));
  attrs.Set("scale", AttrValue(0.125));
  attrs.Set("label", AttrValue("hello \"kernel\""));
  attrs.Set("dtype", AttrValue(DType::kBFloat16));
  attrs.Set("any", AttrValue(DType::kUnknown));
  attrs.Set("table", AttrValue(Tensor::FromVector<int32_t>({2, 2}, DType::kInt32, {1, -2, 3, -4})));
  attrs.Set("nested", AttrValue(AttrArray{AttrValue(int64_t{1}), AttrValue(AttrArray{AttrValue("x"), AttrValue()})}));
  Buffer out = MakeBuffer("Out", DType::kFloat32, {IntImm(2)});
  PrimVar i = MakePrimVar("i");
  KernelFunction kernel =
      MakeKernelFunction({{out, nullptr}}, MakeFor(i, IntImm(2), MakeStore(out, {i}, FloatImm(1.0))), attrs);
  KernelFunction decoded = DecodeKernelToIR(EncodeKernel(kernel, "attrs"));
  EXPECT_TRUE(StructuralEqual(kernel, decoded));
  EXPECT_EQ(decoded->attrs, attrs);
}

TEST(KernelEncoding, SharedExpressionsKeepOneIndex) {
  Buffer a = MakeBuffer("A", DType::kFloat32, {IntImm(4)});
  PrimVar i = MakePrimVar("i");
  PrimExpr x = MakeLoad(a, {i});
  PrimExpr twice = MakeBinary(BinaryOp::kMul, x, x);  // the same node on both sides
  KernelFunction kernel = MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), MakeStore(a, {i}, twice)));
  kf::Kernel k = ToPortableKernel(kernel, "square");
  const kf::Expr& mul = k.exprs[k.stmts[0].value];
  ASSERT_EQ(mul.kind, kf::ExprKind::kBinary);
  EXPECT_EQ(mul.operands[0], mul.operands[1]);
  KernelFunction decoded = FromPortableKernel(k);
  const auto* store = decoded->body->As<ForNode>()->body->As<StoreNode>();
  const auto* decoded_mul = store->value->As<BinaryNode>();
  EXPECT_EQ(decoded_mul->a, decoded_mul->b);
}

TEST(KernelEncoding, DTypesMapBothWays) {
  for (int i = 0; i <= static_cast<int>(DType::kBool); ++i) {
    DType t = static_cast<DType>(i);
    EXPECT_EQ(FromPortableDType(ToPortableDType(t)), t);
    EXPECT_STREQ(kf::DTypeName(ToPortableDType(t)), DTypeName(t));
    if (t != DType::kUnknown) {
      EXPECT_EQ(kf::DTypeBits(ToPortableDType(t)), DTypeBits(t) < 8 ? 8 : DTypeBits(t));
    }
  }
}

// ---- What the encoder refuses, with the kernel's name in the message.

void ExpectEncodeError(const KernelFunction& kernel, const std::string& fragment) {
  try {
    EncodeKernel(kernel, "bad");
    FAIL() << "expected an error containing: " << fragment;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("kernel 'bad'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// Found by fuzzing (kernel_format): a buffer named "inf_" printed as it is, and the parser read
// the name as a special float ("unknown special float").
TEST(KernelEncoding, NamesThatReadAsSpecialFloatsAreRenamedInText) {
  kf::Kernel k = ToPortableKernel(ParseKernel(MyModule(), "relu0"), "relu0");
  k.buffers[0].name = "inf_";
  k.buffers[1].name = "nan_x";
  KernelFunction ir = FromPortableKernel(k);
  std::string text = PrintKernel(ir, "k");
  EXPECT_NE(text.find("max(vinf_[vi, vj]"), std::string::npos) << text;
  EXPECT_TRUE(StructuralEqual(ir, ParseModule(text).GetKernel("k"))) << text;
}

// Found by fuzzing (kernel_format): variables named "inf" hung the printer, which tried
// "inf_1", "inf_2"... for ever (each reads as a special float, so none is free).
TEST(KernelEncoding, VariablesNamedLikeSpecialFloatsPrintAndParseBack) {
  kf::Kernel k = ToPortableKernel(ParseKernel(MyModule(), "relu0"), "relu0");
  ASSERT_GE(k.vars.size(), 2u);
  for (size_t i = 0; i < k.vars.size(); ++i) k.vars[i].name = i % 2 ? "nan" : "inf";
  k.buffers[0].name = "inf";
  KernelFunction ir = FromPortableKernel(k);
  std::string text = PrintKernel(ir, "k");
  EXPECT_NE(text.find("vinf"), std::string::npos) << text;
  EXPECT_NE(text.find("vnan"), std::string::npos) << text;
  EXPECT_TRUE(StructuralEqual(ir, ParseModule(text).GetKernel("k"))) << text;
}

// Found by fuzzing (kernel_format): a decoded `v3 * 1` stayed a multiplication in the IR, printed
// as such, and parsed back (through the IR's builders) as `v3`: another kernel.
TEST(KernelEncoding, DecodedArithmeticIsBuiltAsTheIRBuildsIt) {
  kf::Kernel k = ToPortableKernel(ParseKernel(R"(
kernel @every_other(A: Buffer((4, 8), float32), B: Buffer((4, 4), float32)) {
  for i in range(4) {
    for j in range(4) {
      B[i, j] = A[i, j * 2]
    }
  }
})", "every_other"), "every_other");
  bool changed = false;
  for (kf::Expr& e : k.exprs) {
    if (e.kind == kf::ExprKind::kBinary && e.binary_op == kf::BinaryOp::kMul) {
      k.exprs[e.operands[1]].int_value = 1;  // j * 2 becomes j * 1, as the fuzzer changed it
      changed = true;
    }
  }
  ASSERT_TRUE(changed);
  ASSERT_EQ(kf::ValidateKernel(k), "");
  KernelFunction ir = FromPortableKernel(k);
  std::string text = PrintKernel(ir, "k");
  EXPECT_NE(text.find("B[i, j] = A[i, j]"), std::string::npos) << text;
  EXPECT_TRUE(StructuralEqual(ir, ParseModule(text).GetKernel("k"))) << text;
}

TEST(KernelEncoding, RefusesKernelsTheFormatCannotHold) {
  Buffer a = MakeBuffer("A", DType::kFloat32, {IntImm(4)});
  PrimVar i = MakePrimVar("i");
  PrimVar stray = MakePrimVar("stray");
  // A variable used but never defined.
  ExpectEncodeError(MakeKernelFunction({{a, nullptr}}, MakeStore(a, {stray}, FloatImm(0.0))),
                    "reads variable 0 'stray' where it is not defined");
  // An intrinsic nobody knows (built around the checking constructor).
  PrimExpr bogus = std::make_shared<IntrinsicNode>(DType::kFloat32, "bogus", std::vector<PrimExpr>{FloatImm(1.0)});
  ExpectEncodeError(MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), MakeStore(a, {i}, bogus))),
                    "unknown intrinsic 'bogus'");
  // A buffer that is neither a parameter nor allocated.
  Buffer ghost = MakeBuffer("Ghost", DType::kFloat32, {IntImm(4)});
  ExpectEncodeError(MakeKernelFunction({{a, nullptr}}, MakeFor(i, IntImm(4), MakeStore(a, {i}, MakeLoad(ghost, {i})))),
                    "reads buffer 1 'Ghost' where it is not defined");
  // No body.
  ExpectEncodeError(MakeKernelFunction({{a, nullptr}}, nullptr), "no body");
  // The same loop variable bound twice.
  ExpectEncodeError(MakeKernelFunction({{a, nullptr}},
                                       MakeFor(i, IntImm(4), MakeFor(i, IntImm(4), MakeStore(a, {i}, FloatImm(0.0))))),
                    "defines variable 0 'i' a second time");
}

// ---- Malformed bytes.

TEST(KernelFormatDecoding, TruncationAtEveryByteIsAnError) {
  std::vector<uint8_t> bytes = EncodeText(MyModule(), "linear0");
  ASSERT_EQ(DecodeError(bytes), "");
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + size);  // a copy of its own: ASan sees overreads
    std::string error = DecodeError(cut);
    EXPECT_NE(error, "") << "truncated to " << size << " bytes";
    EXPECT_EQ(error.rfind("malformed kernel: ", 0), 0u) << error;
  }
  EXPECT_NE(kf::DecodeKernel(nullptr, 0).error, "");
}

TEST(KernelFormatDecoding, BitFlipsNeverCrashAndAnythingAcceptedIsValid) {
  for (const char* name : {"linear0", "relu0"}) {
    std::vector<uint8_t> bytes = EncodeText(MyModule(), name);
    int rejected = 0, accepted = 0;
    for (size_t byte = 0; byte < bytes.size(); ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        std::vector<uint8_t> flipped = bytes;
        flipped[byte] ^= static_cast<uint8_t>(1u << bit);
        kf::DecodeResult r = kf::DecodeKernel(flipped.data(), flipped.size());
        if (!r.ok()) {
          ++rejected;
          EXPECT_TRUE(r.kernel.stmts.empty());
          continue;
        }
        ++accepted;  // e.g. a flipped name or loop kind: still a valid kernel
        EXPECT_EQ(kf::ValidateKernel(r.kernel), "");
        EXPECT_NO_THROW(FromPortableKernel(r.kernel));
      }
    }
    EXPECT_GT(rejected, accepted) << name;
  }
}

TEST(KernelFormatDecoding, WrongMagicVersionAndTrailingBytes) {
  std::vector<uint8_t> bytes = EncodeText(MyModule(), "relu0");
  ASSERT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "RXTK");
  std::vector<uint8_t> magic = bytes;
  magic[0] = 'X';
  EXPECT_NE(DecodeError(magic).find("magic"), std::string::npos) << DecodeError(magic);
  std::vector<uint8_t> version = bytes;
  version[4] = 2;
  EXPECT_NE(DecodeError(version).find("unsupported kernel format version 2"), std::string::npos)
      << DecodeError(version);
  std::vector<uint8_t> trailing = bytes;
  trailing.push_back(0);
  EXPECT_NE(DecodeError(trailing).find("1 unexpected bytes after the kernel"), std::string::npos);
  EXPECT_THROW(DecodeKernelToIR(trailing), Error);
  try {
    DecodeKernelToIR(magic);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss);
  }
}

TEST(KernelFormatDecoding, HugeCountsAreRejectedWithoutAllocating) {
  // Magic, version 1, empty name, then "2^62 variables" in a 17-byte input.
  std::vector<uint8_t> bytes = {'R',  'X',  'T',  'K',  1,    0,    0,    0,    0,
                                0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40};
  EXPECT_NE(DecodeError(bytes).find("exceeds the data"), std::string::npos) << DecodeError(bytes);
  // A varint longer than 64 bits.
  std::vector<uint8_t> overlong = {'R', 'X', 'T', 'K', 1, 0, 0, 0};
  for (int i = 0; i < 10; ++i) overlong.push_back(0xff);
  overlong.push_back(0x01);
  EXPECT_NE(DecodeError(overlong).find("overflows 64 bits"), std::string::npos) << DecodeError(overlong);
}

// Each mutation of a valid kernel breaks one invariant; the serialized bytes must be rejected
// with a message that says which.
struct Mutation {
  const char* name;
  std::function<void(kf::Kernel&)> apply;
  const char* expected;
};

class KernelFormatInvariants : public testing::TestWithParam<Mutation> {};

int32_t FirstStmt(const kf::Kernel& k, kf::StmtKind kind) {
  for (size_t i = 0; i < k.stmts.size(); ++i) {
    if (k.stmts[i].kind == kind) return static_cast<int32_t>(i);
  }
  return -1;
}

int32_t FirstExpr(const kf::Kernel& k, kf::ExprKind kind) {
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    if (k.exprs[i].kind == kind) return static_cast<int32_t>(i);
  }
  return -1;
}

TEST_P(KernelFormatInvariants, BrokenKernelIsRejected) {
  kf::Kernel k = ToPortableKernel(ParseKernel(MyModule(), "linear0"), "linear0");
  ASSERT_EQ(kf::ValidateKernel(k), "");
  GetParam().apply(k);
  std::string error = DecodeError(kf::SerializeKernel(k));
  EXPECT_NE(error.find(GetParam().expected), std::string::npos) << error;
}

const Mutation kMutations[] = {
    {"VarOutOfRange", [](kf::Kernel& k) { k.exprs[FirstExpr(k, kf::ExprKind::kVar)].var = 999; },
     "variable 999 does not exist"},
    {"BufferOutOfRange", [](kf::Kernel& k) { k.exprs[FirstExpr(k, kf::ExprKind::kLoad)].buffer = 77; },
     "buffer 77 does not exist"},
    {"ParamOutOfRange", [](kf::Kernel& k) { k.params[0].index = 50; }, "parameter 0: buffer 50 does not exist"},
    {"NegativeIndex", [](kf::Kernel& k) { k.stmts[FirstStmt(k, kf::StmtKind::kFor)].extent = -1; },
     "index 4294967295 is out of range"},
    {"OperandAfterUser",
     [](kf::Kernel& k) {
       int32_t b = FirstExpr(k, kf::ExprKind::kBinary);
       k.exprs[b].operands[0] = b;
     },
     "does not precede it"},
    {"ChildAfterParent",
     [](kf::Kernel& k) { k.stmts[FirstStmt(k, kf::StmtKind::kFor)].body = static_cast<int32_t>(k.stmts.size() - 1); },
     "does not precede it"},
    {"StatementUsedTwice",
     [](kf::Kernel& k) {
       kf::Stmt seq;
       seq.kind = kf::StmtKind::kSeq;
       seq.stmts = {k.body(), k.body()};
       k.stmts.push_back(seq);
     },
     "is used twice"},
    {"OrphanStatement",
     [](kf::Kernel& k) {
       kf::Stmt empty;
       empty.kind = kf::StmtKind::kSeq;
       k.stmts.insert(k.stmts.end() - 1, empty);  // before the body, which no longer reaches it
     },
     "is not part of the body"},
    {"NoStatements", [](kf::Kernel& k) { k.stmts.clear(); }, "no body"},
    {"StoreTypeMismatch",
     [](kf::Kernel& k) { k.stmts[FirstStmt(k, kf::StmtKind::kStore)].value = FirstExpr(k, kf::ExprKind::kVar); },
     "the value is int64 but 'Y' holds float32"},
    {"LoadIndexCount", [](kf::Kernel& k) { k.exprs[FirstExpr(k, kf::ExprKind::kLoad)].operands.pop_back(); },
     "has 1 operands, expected 2"},
    {"BinaryTypeMismatch",
     [](kf::Kernel& k) {
       int32_t b = FirstExpr(k, kf::ExprKind::kBinary);
       k.exprs[b].dtype = kf::DType::kFloat64;
     },
     "expected float32 but found float64"},
    {"BoolImmediateOutOfRange",
     [](kf::Kernel& k) {
       kf::Expr e;
       e.kind = kf::ExprKind::kIntImm;
       e.dtype = kf::DType::kBool;
       e.int_value = 2;
       k.exprs.push_back(e);
     },
     "a bool immediate must be 0 or 1"},
    {"LoopVariableDefinedTwice",
     [](kf::Kernel& k) {
       int32_t first = FirstStmt(k, kf::StmtKind::kFor);
       for (size_t s = first + 1; s < k.stmts.size(); ++s) {
         if (k.stmts[s].kind == kf::StmtKind::kFor) {
           k.stmts[s].var = k.stmts[first].var;
           break;
         }
       }
     },
     "a second time"},
    {"DimBoundAndLooped",
     [](kf::Kernel& k) {
       // The loop `for i in range(1)` now binds m, a dim of X.
       int32_t loop = FirstStmt(k, kf::StmtKind::kFor);
       k.stmts[loop].var = 0;
     },
     "defines variable 0 'm' a second time"},
    {"VariableOutOfScope",
     [](kf::Kernel& k) {
       // The extent of the first loop reads its own variable.
       int32_t loop = FirstStmt(k, kf::StmtKind::kFor);
       kf::Expr var;
       var.kind = kf::ExprKind::kVar;
       var.dtype = kf::DType::kInt64;
       var.var = k.stmts[loop].var;
       k.exprs.push_back(var);
       k.stmts[loop].extent = static_cast<int32_t>(k.exprs.size() - 1);
     },
     "reads variable"},
    {"ReduceIteratorInInit",
     [](kf::Kernel& k) {
       for (kf::Stmt& s : k.stmts) {
         if (s.kind != kf::StmtKind::kBlock || s.init == kf::kNone) continue;
         kf::Expr var;
         var.kind = kf::ExprKind::kVar;
         var.dtype = kf::DType::kInt64;
         var.var = s.iter_vars.back().var;  // vk, the reduce iterator
         k.exprs.push_back(var);
         k.stmts[s.init].indices[1] = static_cast<int32_t>(k.exprs.size() - 1);  // Y[vi, vk] = 0
       }
     },
     "reads variable"},
    {"AllocatedBufferOutsideItsScope",
     [](kf::Kernel& k) {
       // Move the body out of the allocation: Y is then used where it does not exist.
       int32_t alloc = k.body();
       kf::Stmt seq;
       seq.kind = kf::StmtKind::kSeq;
       seq.stmts = {k.stmts[alloc].body};
       k.stmts[alloc] = seq;
     },
     "where it is not defined"},
    {"LoadInShape",
     [](kf::Kernel& k) {
       int32_t load = FirstExpr(k, kf::ExprKind::kLoad);
       kf::Expr cast;
       cast.kind = kf::ExprKind::kCast;
       cast.dtype = kf::DType::kInt64;
       cast.operands = {load};
       k.exprs.push_back(cast);
       k.buffers[0].shape[0] = static_cast<int32_t>(k.exprs.size() - 1);
     },
     "reads a buffer"},
    {"InitWithoutReduce",
     [](kf::Kernel& k) {
       for (kf::Stmt& s : k.stmts) {
         for (kf::IterVar& iv : s.iter_vars) iv.kind = kf::IterKind::kSpatial;
       }
     },
     "has an init but no reduce iterator"},
    {"ParameterTwice", [](kf::Kernel& k) { k.params.push_back(k.params[0]); }, "is a parameter twice"},
    {"SelectConditionNotBool",
     [](kf::Kernel& k) {
       int32_t load = FirstExpr(k, kf::ExprKind::kLoad);
       kf::Expr select;
       select.kind = kf::ExprKind::kSelect;
       select.dtype = kf::DType::kFloat32;
       select.operands = {load, load, load};
       k.exprs.push_back(select);
     },
     "(select condition): expected bool but found float32"},
    {"IntrinsicOnIntegers",
     [](kf::Kernel& k) {
       int32_t var = FirstExpr(k, kf::ExprKind::kVar);
       kf::Expr exp;
       exp.kind = kf::ExprKind::kIntrinsic;
       exp.intrinsic = kf::Intrinsic::kExp;
       exp.dtype = kf::DType::kInt64;
       exp.operands = {var};
       k.exprs.push_back(exp);
     },
     "(exp): expected float arguments but found int64"},
    // Found by fuzzing (kernel_format): the IR folds such a cast away, so the kernel converted to
    // IR printed and parsed back to another kernel.
    {"CastToItsOwnDType",
     [](kf::Kernel& k) {
       int32_t var = FirstExpr(k, kf::ExprKind::kVar);
       kf::Expr cast;
       cast.kind = kf::ExprKind::kCast;
       cast.dtype = k.exprs[var].dtype;
       cast.operands = {var};
       k.exprs.push_back(cast);
     },
     "(cast) result: expected another dtype than its operand's but found"},
    // Found by fuzzing (kernel_format): the kernel's text form could not write the immediate.
    {"Float32ImmediateOutOfRange",
     [](kf::Kernel& k) {
       kf::Expr imm;
       imm.kind = kf::ExprKind::kFloatImm;
       imm.dtype = kf::DType::kFloat32;
       imm.float_value = 2e80;
       k.exprs.push_back(imm);
     },
     "is out of range for float32"},
    // Found by fuzzing (kernel_format): a uint8 immediate -2 printed as `-2u8`, which the text
    // refuses ("-2 is out of range for uint8").
    {"UInt8ImmediateOutOfRange",
     [](kf::Kernel& k) {
       kf::Expr imm;
       imm.kind = kf::ExprKind::kIntImm;
       imm.dtype = kf::DType::kUInt8;
       imm.int_value = -2;
       k.exprs.push_back(imm);
     },
     "-2 is out of range for uint8"},
    {"Int32ImmediateOutOfRange",
     [](kf::Kernel& k) {
       kf::Expr imm;
       imm.kind = kf::ExprKind::kIntImm;
       imm.dtype = kf::DType::kInt32;
       imm.int_value = int64_t{1} << 31;
       k.exprs.push_back(imm);
     },
     "2147483648 is out of range for int32"},
    // Found by fuzzing (kernel_format): the text writes NaN as nan_f32 or -nan_f32, without payload.
    {"NaNWithAPayload",
     [](kf::Kernel& k) {
       kf::Expr imm;
       imm.kind = kf::ExprKind::kFloatImm;
       imm.dtype = kf::DType::kFloat32;
       uint64_t bits = 0xfff6000000000000ull;  // a signalling NaN, negative
       std::memcpy(&imm.float_value, &bits, sizeof bits);
       k.exprs.push_back(imm);
     },
     "is out of range for float32"},
};

INSTANTIATE_TEST_SUITE_P(Mutations, KernelFormatInvariants, testing::ValuesIn(kMutations),
                         [](const testing::TestParamInfo<Mutation>& info) { return std::string(info.param.name); });

TEST(KernelFormatDecoding, NestingDeeperThanTheLimitIsRejected) {
  // Expressions: a chain of negations, one level too deep.
  kf::Kernel k = ToPortableKernel(ParseKernel(MyModule(), "relu0"), "relu0");
  int32_t prev = static_cast<int32_t>(k.exprs.size());
  kf::Expr flag;
  flag.kind = kf::ExprKind::kIntImm;
  flag.dtype = kf::DType::kBool;
  flag.int_value = 1;
  k.exprs.push_back(flag);
  for (int depth = 1; depth < kf::kMaxDepth; ++depth) {
    kf::Expr negation;
    negation.kind = kf::ExprKind::kNot;
    negation.dtype = kf::DType::kBool;
    negation.operands = {prev++};
    k.exprs.push_back(negation);
  }
  EXPECT_EQ(DecodeError(kf::SerializeKernel(k)), "") << "exactly kMaxDepth levels are fine";
  kf::Expr one_more;
  one_more.kind = kf::ExprKind::kNot;
  one_more.dtype = kf::DType::kBool;
  one_more.operands = {prev};
  k.exprs.push_back(one_more);
  EXPECT_NE(DecodeError(kf::SerializeKernel(k)).find("nests more than 1024 levels deep"), std::string::npos);

  // Statements: sequences nested in sequences.
  kf::Kernel s = ToPortableKernel(ParseKernel(MyModule(), "relu0"), "relu0");
  for (int depth = 0; depth < kf::kMaxDepth; ++depth) {
    kf::Stmt seq;
    seq.kind = kf::StmtKind::kSeq;
    seq.stmts = {s.body()};
    s.stmts.push_back(seq);
  }
  EXPECT_NE(DecodeError(kf::SerializeKernel(s)).find("statements nest more than"), std::string::npos);
}

TEST(KernelFormatValidation, StructsBuiltInMemoryAreCheckedLikeDecodedOnes) {
  // Values the byte reader cannot produce (it rejects them earlier) but a program can.
  const kf::Kernel valid = ToPortableKernel(ParseKernel(MyModule(), "linear0"), "linear0");
  auto error_after = [&](const std::function<void(kf::Kernel&)>& change) {
    kf::Kernel k = valid;
    change(k);
    return kf::ValidateKernel(k);
  };
  EXPECT_NE(error_after([](kf::Kernel& k) { k.stmts[0].kind = static_cast<kf::StmtKind>(42); }).find("invalid kind"),
            std::string::npos);
  EXPECT_NE(error_after([](kf::Kernel& k) {
              k.stmts[FirstStmt(k, kf::StmtKind::kFor)].loop_kind = static_cast<kf::LoopKind>(9);
            }).find("invalid loop kind"),
            std::string::npos);
  EXPECT_NE(error_after([](kf::Kernel& k) {
              k.exprs[FirstExpr(k, kf::ExprKind::kBinary)].binary_op = static_cast<kf::BinaryOp>(77);
            }).find("invalid binary operator"),
            std::string::npos);
  EXPECT_NE(error_after([](kf::Kernel& k) { k.vars[0].dtype = kf::DType::kUnknown; }).find("invalid dtype"),
            std::string::npos);
  EXPECT_NE(error_after([](kf::Kernel& k) {
              kf::AttrValue tensor;
              tensor.kind = kf::AttrKind::kTensor;
              tensor.tensor_value.dtype = kf::DType::kFloat32;
              tensor.tensor_value.shape = {int64_t{1} << 62, 4};
              tensor.tensor_value.bytes = {1, 2, 3, 4};
              k.attrs.push_back({"table", tensor});
            }).find("the tensor's bytes do not match its shape"),
            std::string::npos);
  EXPECT_NE(error_after([](kf::Kernel& k) {
              kf::AttrValue nested;
              for (int depth = 0; depth <= kf::kMaxAttrDepth + 1; ++depth) {
                kf::AttrValue outer;
                outer.kind = kf::AttrKind::kArray;
                outer.array_value = {nested};
                nested = outer;
              }
              k.attrs.push_back({"deep", nested});
            }).find("nest too deeply"),
            std::string::npos);
  EXPECT_EQ(kf::ValidateKernel(valid), "");
}

TEST(KernelFormatDecoding, ErrorsNameTheKernelAndThePlace) {
  kf::Kernel k = ToPortableKernel(ParseKernel(MyModule(), "relu0"), "relu0");
  k.exprs[FirstExpr(k, kf::ExprKind::kLoad)].buffer = 9;
  std::string error = DecodeError(kf::SerializeKernel(k));
  EXPECT_EQ(error.rfind("invalid kernel 'relu0': expression ", 0), 0u) << error;
}

}  // namespace
}  // namespace rxt
