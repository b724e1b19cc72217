#include "core/transform/legalize/numeric/numeric_test_util.h"

#include <dlpack/dlpack.h>

#include <cmath>
#include <random>
#include <unordered_map>

#include "core/transform/legalize/numeric/backend_conformance.h"
#include "reference_interpreter.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"
#include "rxt/runtime/tensor.h"
#include "rxt/support/half.h"
#include "rxt/transform/passes.h"

namespace rxt::numeric {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Array::numel() const { return NumElements(shape); }

namespace {
int64_t Offset(const Shape& shape, const Idx& index) {
  RXT_CHECK(index.size() == shape.size(), "index of ", index.size(), " dims for ", shape.size());
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    RXT_CHECK(index[d] >= 0 && index[d] < shape[d], "index out of range");
    offset = offset * shape[d] + index[d];
  }
  return offset;
}
}  // namespace

double Array::at(const Idx& index) const { return data[Offset(shape, index)]; }
double& Array::at(const Idx& index) { return data[Offset(shape, index)]; }

void ForEachIndex(const Shape& shape, const std::function<void(const Idx&)>& fn) {
  if (NumElements(shape) == 0) return;
  Idx index(shape.size(), 0);
  while (true) {
    fn(index);
    size_t d = shape.size();
    while (d > 0 && ++index[d - 1] == shape[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

double RoundTo(DType dtype, double v) {
  switch (dtype) {
    case DType::kFloat32: return static_cast<float>(v);
    case DType::kFloat16: return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case DType::kBFloat16: return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(v)));
    case DType::kFloat64: return v;
    case DType::kBool: return v != 0 ? 1 : 0;
    default: return std::trunc(v);
  }
}

Array Map(const Shape& shape, DType dtype, const std::function<double(const Idx&)>& fn) {
  Array a{dtype, shape, {}};
  ForEachIndex(shape, [&](const Idx& i) { a.data.push_back(RoundTo(dtype, fn(i))); });
  return a;
}

Array Random(const Shape& shape, DType dtype, uint32_t seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(std::floor(hi)));
  return Map(shape, dtype, [&](const Idx&) -> double {
    if (dtype == DType::kBool) return gen() % 2;
    if (IsFloat(dtype)) return real(gen);
    return static_cast<double>(integer(gen));
  });
}

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

double BroadcastAt(const Array& a, const Idx& out_index) {
  size_t offset = out_index.size() - a.shape.size();
  Idx index;
  for (size_t k = 0; k < a.shape.size(); ++k) index.push_back(a.shape[k] == 1 ? 0 : out_index[offset + k]);
  return a.at(index);
}

::testing::AssertionResult Near(const Array& actual, const Array& expected, double rtol, double atol) {
  if (actual.dtype != expected.dtype) {
    return ::testing::AssertionFailure() << "dtype " << DTypeName(actual.dtype) << ", expected "
                                         << DTypeName(expected.dtype);
  }
  if (actual.shape != expected.shape) {
    auto str = [](const Shape& s) {
      std::string t = "(";
      for (int64_t d : s) t += std::to_string(d) + ",";
      return t + ")";
    };
    return ::testing::AssertionFailure() << "shape " << str(actual.shape) << ", expected " << str(expected.shape);
  }
  int bad = 0;
  auto failure = ::testing::AssertionFailure();
  for (size_t i = 0; i < actual.data.size(); ++i) {
    double a = actual.data[i], e = expected.data[i];
    bool ok = (std::isnan(a) && std::isnan(e)) || a == e || std::fabs(a - e) <= atol + rtol * std::fabs(e);
    if (!ok && bad++ < 8) failure << "\n  element " << i << ": " << a << ", expected " << e;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return failure << "\n  (" << bad << " of " << actual.data.size() << " elements differ)";
}

// ---- Running a legalized function.
namespace {

namespace ref = ::rxt::backend_reference;

/// A Relax value while the function runs.
struct Value {
  enum class Kind { kTensor, kTuple, kScalar } kind = Kind::kTensor;
  Tensor tensor;
  std::vector<Value> fields;
  double scalar = 0;
  DType scalar_dtype = DType::kInt64;
};

DLDataType ToDLDataType(DType t) {
  switch (t) {
    case DType::kFloat16: return {kDLFloat, 16, 1};
    case DType::kBFloat16: return {kDLBfloat, 16, 1};
    case DType::kFloat32: return {kDLFloat, 32, 1};
    case DType::kFloat64: return {kDLFloat, 64, 1};
    case DType::kInt8: return {kDLInt, 8, 1};
    case DType::kInt16: return {kDLInt, 16, 1};
    case DType::kInt32: return {kDLInt, 32, 1};
    case DType::kInt64: return {kDLInt, 64, 1};
    case DType::kUInt8:
    case DType::kBool: return {kDLUInt, 8, 1};  // bool as DLPack 0.6 producers send it
    case DType::kUnknown: break;
  }
  Throw(ErrorCode::kInternal, "no DLPack dtype for ", DTypeName(t));
}

Tensor ToTensor(const Array& a) {
  Tensor t = Tensor::Empty(a.shape, a.dtype);
  for (int64_t i = 0; i < a.numel(); ++i) t.SetFromDouble(i, a.data[i]);
  return t;
}

Array ToArray(const Tensor& t) {
  Array a{t.dtype(), t.shape(), {}};
  for (int64_t i = 0; i < t.numel(); ++i) a.data.push_back(t.GetAsDouble(i));
  return a;
}

class Evaluator {
 public:
  explicit Evaluator(const IRModule& module) : module_(module) {}

  void BindParams(const Function& f, const std::vector<Array>& inputs) {
    RXT_CHECK(f->params.size() == inputs.size(), "the function takes ", f->params.size(), " inputs, given ",
              inputs.size());
    for (size_t p = 0; p < inputs.size(); ++p) {
      if (const auto* prim = f->params[p]->struct_info->As<PrimSINode>()) {  // a scalar from a 0-d array
        Value v;
        v.kind = Value::Kind::kScalar;
        v.scalar = inputs[p].data.at(0);
        v.scalar_dtype = prim->dtype;
        env_[f->params[p].get()] = v;
        continue;
      }
      const auto* t = f->params[p]->struct_info->As<TensorSINode>();
      RXT_CHECK(t && t->shape && t->ndim == static_cast<int>(inputs[p].shape.size()), "input ", p, " shape");
      for (size_t d = 0; d < inputs[p].shape.size(); ++d) {
        if (const auto* var = (*t->shape)[d]->As<PrimVarNode>()) {
          auto [it, fresh] = symbols_.emplace(var, inputs[p].shape[d]);
          RXT_CHECK(fresh || it->second == inputs[p].shape[d], "inputs disagree on ", var->name);
        }
      }
      Value v;
      v.tensor = ToTensor(inputs[p]);
      env_[f->params[p].get()] = v;
    }
    for (size_t p = 0; p < inputs.size(); ++p) {  // derived dims (n * 2) must agree too
      const auto* t = f->params[p]->struct_info->As<TensorSINode>();
      if (t == nullptr) continue;
      for (size_t d = 0; d < inputs[p].shape.size(); ++d) {
        RXT_CHECK(EvalInt((*t->shape)[d]) == inputs[p].shape[d], "input ", p, " dim ", d, " does not match");
      }
    }
  }

  Value EvalSeq(const SeqExpr& seq) {
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block.bindings) {
        RXT_CHECK(!b.is_match_cast(), "match_cast is not supported here");
        env_[b.var.get()] = Eval(b.value);
      }
    }
    return Eval(seq->body);
  }

 private:
  int64_t EvalInt(const PrimExpr& e) {
    if (const auto* imm = e->As<IntImmNode>()) return imm->value;
    if (const auto* var = e->As<PrimVarNode>()) {
      auto it = symbols_.find(var);
      RXT_CHECK(it != symbols_.end(), "unbound symbolic dim ", var->name);
      return it->second;
    }
    if (const auto* b = e->As<BinaryNode>()) {
      int64_t x = EvalInt(b->a), y = EvalInt(b->b);
      auto floordiv = [](int64_t p, int64_t q) { return p / q - ((p % q != 0) && ((p < 0) != (q < 0))); };
      switch (b->op) {
        case BinaryOp::kAdd: return x + y;
        case BinaryOp::kSub: return x - y;
        case BinaryOp::kMul: return x * y;
        case BinaryOp::kDiv: return x / y;
        case BinaryOp::kFloorDiv: return floordiv(x, y);
        case BinaryOp::kFloorMod: return x - floordiv(x, y) * y;
        case BinaryOp::kMin: return std::min(x, y);
        case BinaryOp::kMax: return std::max(x, y);
        default: break;
      }
    }
    Throw(ErrorCode::kInternal, "cannot evaluate a dim");
  }

  Value Eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar: return env_.at(static_cast<const VarNode*>(e.get()));
      case ExprKind::kConstant: {
        Value v;
        v.tensor = e->As<ConstantNode>()->data;
        return v;
      }
      case ExprKind::kTuple: {
        Value v;
        v.kind = Value::Kind::kTuple;
        for (const Expr& f : e->As<TupleNode>()->fields) v.fields.push_back(Eval(f));
        return v;
      }
      case ExprKind::kTupleGetItem: {
        const auto* item = e->As<TupleGetItemNode>();
        return Eval(item->tuple).fields.at(item->index);
      }
      case ExprKind::kPrimValue: {
        const PrimExpr& p = e->As<PrimValueNode>()->value;
        Value v;
        v.kind = Value::Kind::kScalar;
        v.scalar_dtype = p->dtype;
        if (const auto* f = p->As<FloatImmNode>()) {
          v.scalar = f->value;
        } else {
          v.scalar = static_cast<double>(EvalInt(p));
        }
        return v;
      }
      case ExprKind::kCall: return EvalCall(*e->As<CallNode>());
      default: break;
    }
    Throw(ErrorCode::kInternal, "cannot evaluate this expression: ", PrintExpr(e));
  }

  Value EvalCall(const CallNode& call) {
    const OpDef* op = AsOp(call.callee);
    if (op != nullptr && op->name() == "view") {  // reshape and its kin: the same elements, new dims
      Value v = Eval(call.args[0]);
      Shape shape;
      for (const PrimExpr& d : *call.sinfo_args[0]->As<TensorSINode>()->shape) shape.push_back(EvalInt(d));
      v.tensor = v.tensor.Reshaped(shape);
      return v;
    }
    if (op == nullptr || op->name() != "call_kernel") {
      Throw(ErrorCode::kInternal, "a call other than call_kernel or view is left after LegalizeOps: ",
            op ? op->name() : std::string("?"));
    }
    const std::string& name = call.args[0]->As<GlobalVarNode>()->name;
    Value args = Eval(call.args[1]);
    std::vector<Value> outputs;
    for (const StructInfo& sinfo : call.sinfo_args) {
      const auto* t = sinfo->As<TensorSINode>();
      Shape shape;
      for (const PrimExpr& d : *t->shape) shape.push_back(EvalInt(d));
      Value out;
      out.tensor = Tensor::Empty(shape, t->dtype);
      // Garbage in every element: an element the kernel forgets to write shows.
      for (int64_t i = 0; i < out.tensor.numel(); ++i) out.tensor.SetFromDouble(i, IsFloat(t->dtype) ? NAN : 77);
      outputs.push_back(out);
    }
    RunKernel(name, args.fields, outputs);
    if (outputs.size() == 1) return outputs[0];
    Value tuple;
    tuple.kind = Value::Kind::kTuple;
    tuple.fields = outputs;
    return tuple;
  }

  void RunKernel(const std::string& name, const std::vector<Value>& inputs, std::vector<Value>& outputs) {
    std::vector<uint8_t> bytes = EncodeKernel(module_.GetKernel(name), name);
    ref::ReferenceInterpreter kernel = ref::ReferenceInterpreter::FromBytes(bytes.data(), bytes.size());
    size_t count = inputs.size() + outputs.size();
    std::vector<Shape> shapes;
    std::vector<DLTensor> tensors;
    std::vector<DLTensor> all;  // every argument, scalars as 0-d tensors (for the other backends)
    std::vector<int64_t> int_scalars(count);
    std::vector<double> float_scalars(count);
    shapes.reserve(count);
    tensors.reserve(count);
    std::vector<ref::KernelArg> args;
    auto add = [&](const Value& v) {
      if (v.kind == Value::Kind::kScalar) {
        bool is_float = IsFloat(v.scalar_dtype);
        args.push_back(is_float ? ref::KernelArg::Float(v.scalar) : ref::KernelArg::Int(static_cast<int64_t>(v.scalar)));
        DLTensor t{};
        t.device = {kDLCPU, 0};
        t.ndim = 0;
        if (is_float) {
          float_scalars[all.size()] = v.scalar;
          t.data = &float_scalars[all.size()];
          t.dtype = ToDLDataType(DType::kFloat64);
        } else {
          int_scalars[all.size()] = static_cast<int64_t>(v.scalar);
          t.data = &int_scalars[all.size()];
          t.dtype = ToDLDataType(DType::kInt64);
        }
        all.push_back(t);
        return;
      }
      RXT_CHECK(v.kind == Value::Kind::kTensor, "a tuple argument of a kernel");
      shapes.push_back(v.tensor.shape());
      DLTensor t{};
      t.data = const_cast<void*>(v.tensor.data());
      t.device = {kDLCPU, 0};
      t.ndim = v.tensor.ndim();
      t.dtype = ToDLDataType(v.tensor.dtype());
      t.shape = shapes.back().data();
      tensors.push_back(t);
      all.push_back(t);
      args.push_back(ref::KernelArg::Tensor(&tensors.back()));
    };
    for (const Value& v : inputs) add(v);
    for (const Value& v : outputs) add(v);
    kernel.Run(args);
    CheckKernelOnEveryBackend(name, bytes, all, outputs.size());
  }

  const IRModule& module_;
  std::unordered_map<const VarNode*, Value> env_;
  std::unordered_map<const PrimVarNode*, int64_t> symbols_;
};

void Flatten(const Value& v, std::vector<Array>& out) {
  if (v.kind == Value::Kind::kTuple) {
    for (const Value& f : v.fields) Flatten(f, out);
  } else {
    RXT_CHECK(v.kind == Value::Kind::kTensor, "a scalar result");
    out.push_back(ToArray(v.tensor));
  }
}

}  // namespace

std::vector<Array> RunOp(const std::string& params, const std::string& call, const std::vector<Array>& inputs) {
  return RunFunction(params, "%r = " + call, inputs);
}

std::vector<Array> RunFunction(const std::string& params, const std::string& bindings, const std::vector<Array>& inputs) {
  std::string text = "def @main(" + params + ") -> Object {\n  " + bindings + "\n  return %r\n}\n";
  IRModule module = ParseModule(text, "numeric.rxt");
  PassContext context;
  context.verify_well_formed_after_each = true;
  IRModule legal = RunPasses(module, {"LegalizeOps"}, context);
  IRModule reparsed = ParseModule(PrintModule(legal), "printed.rxt");
  EXPECT_TRUE(StructuralEqual(legal, reparsed)) << "the legalized module does not round-trip:\n" << PrintModule(legal);

  Evaluator evaluator(legal);
  Function main = legal.GetFunction("main");
  evaluator.BindParams(main, inputs);
  std::vector<Array> out;
  Flatten(evaluator.EvalSeq(main->body), out);
  return out;
}

}  // namespace rxt::numeric
