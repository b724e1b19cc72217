// Compiles legalized Relax functions to register bytecode (docs/vm.md). One FunctionCompiler
// per function: registers are handed out as bindings are met, symbolic dims get slots where
// they are first seen (parameters first, then match_cast), and every dim the code needs is an
// integer program over those slots.
#include "rxt/exec/vm_compiler.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "memory_plan.h"
#include "rxt/transform/analysis/in_place.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/ir/op.h"

namespace rxt {
namespace {

/// What all functions of a module share while compiling: the executable being filled.
class ModuleCompiler {
 public:
  ModuleCompiler(const IRModule& module, Executable& exec) : module_(module), exec_(exec) {
    for (const IRModule::Entry& e : module.entries()) {
      if (e.function != nullptr) function_index_[e.name] = static_cast<int32_t>(function_index_.size());
    }
  }

  const IRModule& module() const { return module_; }

  int32_t FunctionIndex(const std::string& name) const {
    auto it = function_index_.find(name);
    return it == function_index_.end() ? -1 : it->second;
  }

  int32_t KernelIndex(const std::string& name) {
    auto it = kernel_index_.find(name);
    if (it != kernel_index_.end()) return it->second;
    KernelFunction kernel = module_.FindKernel(name);
    if (kernel == nullptr) return -1;
    exec_.kernels.push_back(KernelRecord{name, {}, ""});  // encoded by EncodeKernels
    kernels_.push_back(kernel);
    in_place_pairs_.push_back(InPlacePairs(*kernel));
    int32_t index = static_cast<int32_t>(exec_.kernels.size() - 1);
    kernel_index_[name] = index;
    return index;
  }

  /// Kernel |index|'s (input, output) parameter pairs whose output may be written over the
  /// input, flat (CanWriteInPlace).
  const std::vector<int64_t>& InPlacePairsOf(int32_t index) const { return in_place_pairs_[index]; }

  /// Encodes every kernel into the executable once the functions are compiled and planned. A
  /// kernel that some call gives a donated input (docs/vm.md, "Donated inputs") carries the
  /// (input, output) pairs so donated in attribute "in_place", flat, so that backends compile
  /// it for that aliasing; the others are encoded as they are.
  void EncodeKernels() {
    std::vector<std::vector<int64_t>> donated(kernels_.size());
    for (const VMFunction& f : exec_.functions) {
      for (size_t pc = 0; pc < f.code.size(); ++pc) {
        const Instruction& alloc = f.code[pc];
        if (alloc.op != Opcode::kAllocTensor || alloc.arg < 0) continue;
        for (size_t call = pc + 1; call < f.code.size(); ++call) {
          const Instruction& c = f.code[call];
          auto at = [&c](int32_t r) { return std::find(c.operands.begin(), c.operands.end(), r) - c.operands.begin(); };
          if (c.op != Opcode::kCallKernel || at(alloc.dst) == static_cast<long>(c.operands.size())) continue;
          std::vector<int64_t>& pairs = donated[c.index];
          int64_t in = at(alloc.arg), out = at(alloc.dst);
          bool known = false;
          for (size_t k = 0; k + 1 < pairs.size(); k += 2) known = known || (pairs[k] == in && pairs[k + 1] == out);
          if (!known) pairs.insert(pairs.end(), {in, out});
          break;
        }
      }
    }
    for (size_t i = 0; i < kernels_.size(); ++i) {
      KernelFunction kernel = kernels_[i];
      if (!donated[i].empty()) {
        Attrs attrs = kernel->attrs;
        attrs.Set("in_place", AttrValue::IntList(donated[i]));
        kernel = MakeKernelFunction(kernel->params, kernel->body, std::move(attrs));
      }
      exec_.kernels[i].portable = EncodeKernel(kernel, exec_.kernels[i].name);
    }
  }

  int32_t ExternIndex(const std::string& name) {
    auto it = extern_index_.find(name);
    if (it != extern_index_.end()) return it->second;
    exec_.externs.push_back(name);
    int32_t index = static_cast<int32_t>(exec_.externs.size() - 1);
    extern_index_[name] = index;
    return index;
  }

  int32_t AddConstant(Value v) {
    exec_.constants.push_back(std::move(v));
    return static_cast<int32_t>(exec_.constants.size() - 1);
  }

 private:
  const IRModule& module_;
  Executable& exec_;
  std::map<std::string, int32_t> function_index_, kernel_index_, extern_index_;
  std::vector<KernelFunction> kernels_;               // by kernel index
  std::vector<std::vector<int64_t>> in_place_pairs_;  // by kernel index
};

class FunctionCompiler {
 public:
  FunctionCompiler(ModuleCompiler& module, const std::string& name, const FunctionNode& fn)
      : module_(module), fn_(fn) {
    f_.name = name;
  }

  VMFunction Compile() {
    // Parameters are registers 0..n-1; their patterns bind the symbolic dims.
    std::vector<TypePattern> patterns;
    for (size_t i = 0; i < fn_.params.size(); ++i) {
      const Var& p = fn_.params[i];
      f_.param_names.push_back(p->name);
      registers_[p.get()] = NewRegister();
      patterns.push_back(MakePattern(p->struct_info, StrCat("argument ", i, " (%", p->name, ")")));
    }
    ResolveDeferredDims();
    for (int phase = 0; phase < 2; ++phase) {
      for (size_t i = 0; i < patterns.size(); ++i) {
        if (NeedsPhase(patterns[i], phase)) Emit({Opcode::kMatch, -1, static_cast<int32_t>(i), PatternIndex(i), phase, {}});
      }
    }
    for (TypePattern& p : patterns) f_.patterns.push_back(std::move(p));
    int32_t result = CompileSeq(*fn_.body);
    Emit({Opcode::kReturn, -1, result, -1, 0, {}});
    f_.num_registers = next_register_;
    f_.num_slots = static_cast<int32_t>(f_.slot_names.size());
    return std::move(f_);
  }

 private:
  template <typename... Args>
  [[noreturn]] void Fail(const Span& span, const Args&... args) const {
    std::string where = span.known() ? span.ToString() + ": " : "";
    Throw(ErrorCode::kInvalidArgument, where, f_.name, ": ", args...);
  }

  int32_t NewRegister() { return next_register_++; }
  int32_t PatternIndex(size_t i) const { return static_cast<int32_t>(f_.patterns.size() + i); }
  void Emit(Instruction ins) { f_.code.push_back(std::move(ins)); }

  // ---- Symbolic dims.
  int32_t AddShapeExpr(ShapeExprOp op) {
    f_.shape_exprs.push_back(op);
    return static_cast<int32_t>(f_.shape_exprs.size() - 1);
  }

  /// The shape expr computing |e| from bound slots; fails if |e| uses an unbound variable.
  int32_t CompileDim(const PrimExpr& e, const Span& span, const std::string& what) {
    auto cached = dim_exprs_.find(e.get());
    if (cached != dim_exprs_.end()) return cached->second;
    int32_t index = -1;
    int64_t value = 0;
    if (GetConstInt(e, &value)) {
      index = AddShapeExpr({ShapeExprOp::Kind::kConst, value, -1, -1});
    } else if (const auto* var = e->As<PrimVarNode>()) {
      auto slot = slots_.find(var);
      if (slot == slots_.end()) {
        Fail(span, what, " uses the symbolic dim '", var->name, "', which the arguments do not determine");
      }
      index = AddShapeExpr({ShapeExprOp::Kind::kSlot, slot->second, -1, -1});
    } else if (const auto* bin = e->As<BinaryNode>()) {
      ShapeExprOp::Kind kind;
      switch (bin->op) {
        case BinaryOp::kAdd: kind = ShapeExprOp::Kind::kAdd; break;
        case BinaryOp::kSub: kind = ShapeExprOp::Kind::kSub; break;
        case BinaryOp::kMul: kind = ShapeExprOp::Kind::kMul; break;
        case BinaryOp::kDiv:
        case BinaryOp::kFloorDiv: kind = ShapeExprOp::Kind::kFloorDiv; break;
        case BinaryOp::kFloorMod: kind = ShapeExprOp::Kind::kFloorMod; break;
        case BinaryOp::kMin: kind = ShapeExprOp::Kind::kMin; break;
        case BinaryOp::kMax: kind = ShapeExprOp::Kind::kMax; break;
        default: Fail(span, what, ": the VM cannot compute the dim expression with '", BinaryOpName(bin->op), "'");
      }
      int32_t a = CompileDim(bin->a, span, what), b = CompileDim(bin->b, span, what);
      index = AddShapeExpr({kind, 0, a, b});
    } else if (const auto* cast = e->As<CastNode>(); cast != nullptr && IsInt(cast->dtype)) {
      index = CompileDim(cast->value, span, what);
    } else {
      Fail(span, what, ": the VM cannot compute this dim expression");
    }
    dim_exprs_[e.get()] = index;
    return index;
  }

  /// The checkable part of |sinfo|. A variable dim met for the first time binds a new slot;
  /// other non-constant dims are compiled later (ResolveDeferredDims), once every pattern of
  /// the group has had the chance to bind their variables.
  TypePattern MakePattern(const StructInfo& sinfo, std::string context) {
    TypePattern p;
    p.context = std::move(context);
    FillPattern(sinfo, p);
    return p;
  }

  void FillPattern(const StructInfo& sinfo, TypePattern& p) {
    p.text = sinfo == nullptr ? "Object" : ToString(sinfo);
    if (sinfo == nullptr) return;
    if (const auto* t = sinfo->As<TensorSINode>()) {
      p.kind = TypePattern::Kind::kTensor;
      p.dtype = static_cast<uint8_t>(t->dtype);
      p.ndim = t->ndim;
      FillDims(t->shape, p);
    } else if (const auto* s = sinfo->As<ShapeSINode>()) {
      p.kind = TypePattern::Kind::kShape;
      p.ndim = s->ndim;
      FillDims(s->values, p);
    } else if (const auto* tuple = sinfo->As<TupleSINode>()) {
      p.kind = TypePattern::Kind::kTuple;
      p.fields.resize(tuple->fields.size());  // sized first: deferred dims point into them
      for (size_t i = 0; i < tuple->fields.size(); ++i) FillPattern(tuple->fields[i], p.fields[i]);
    } else if (sinfo->As<PrimSINode>() != nullptr) {
      p.kind = TypePattern::Kind::kPrim;
    }
  }

  void FillDims(const std::optional<std::vector<PrimExpr>>& dims, TypePattern& p) {
    if (!dims.has_value()) return;
    p.dims_known = true;
    p.ndim = static_cast<int32_t>(dims->size());
    p.dims.resize(dims->size());  // never resized again: deferred_ points at its elements
    for (size_t i = 0; i < dims->size(); ++i) {
      const PrimExpr& d = (*dims)[i];
      DimPattern& dim = p.dims[i];
      const auto* var = d->As<PrimVarNode>();
      if (var != nullptr && slots_.count(var) == 0) {
        dim.kind = DimPattern::Kind::kBind;
        dim.ref = static_cast<int32_t>(f_.slot_names.size());
        slots_[var] = dim.ref;
        f_.slot_names.push_back(var->name);
      } else {
        dim.kind = DimPattern::Kind::kMatch;
        deferred_.push_back({&dim, d, p.text});
      }
    }
  }

  /// Compiles the dims that must match an expression, once every pattern of the group (all
  /// parameters, or one match_cast) has bound its variables. The DimPatterns live in vectors
  /// that are moved, never resized, so the pointers stay valid.
  void ResolveDeferredDims() {
    for (Deferred& d : deferred_) d.dim->ref = CompileDim(d.expr, fn_.span, d.what);
    deferred_.clear();
  }

  static bool NeedsPhase(const TypePattern& p, int phase) {
    if (p.kind == TypePattern::Kind::kAny) return false;
    if (phase == 0) return true;
    for (const DimPattern& d : p.dims) {
      if (d.kind == DimPattern::Kind::kMatch) return true;
    }
    for (const TypePattern& f : p.fields) {
      if (NeedsPhase(f, 1)) return true;
    }
    return false;
  }

  // ---- Expressions.
  int32_t CompileSeq(const SeqExprNode& seq) {
    for (const BindingBlock& block : seq.blocks) {
      for (const Binding& b : block.bindings) CompileBinding(b);
    }
    return CompileExpr(seq.body);
  }

  void CompileBinding(const Binding& b) {
    int32_t value = CompileExpr(b.value);
    if (b.is_match_cast()) {
      std::vector<TypePattern> one;
      one.push_back(MakePattern(b.match_sinfo, StrCat("match_cast of %", b.var->name)));
      ResolveDeferredDims();
      int32_t index = static_cast<int32_t>(f_.patterns.size());
      f_.patterns.push_back(std::move(one[0]));
      Emit({Opcode::kMatch, -1, value, index, 0, {}});
      if (NeedsPhase(f_.patterns[index], 1)) Emit({Opcode::kMatch, -1, value, index, 1, {}});
    }
    registers_[b.var.get()] = value;
  }

  int32_t CompileExpr(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar: {
        auto it = registers_.find(e.get());
        if (it == registers_.end()) Fail(e->span, "%", e->As<VarNode>()->name, " is used before it is defined");
        return it->second;
      }
      case ExprKind::kConstant: return LoadConstant(Value(e->As<ConstantNode>()->data));
      case ExprKind::kStringImm: return LoadConstant(Value::String(e->As<StringImmNode>()->value));
      case ExprKind::kTuple: {
        std::vector<int32_t> fields;
        for (const Expr& field : e->As<TupleNode>()->fields) fields.push_back(CompileExpr(field));
        int32_t dst = NewRegister();
        Emit({Opcode::kMakeTuple, dst, -1, -1, 0, std::move(fields)});
        return dst;
      }
      case ExprKind::kTupleGetItem: {
        const auto* get = e->As<TupleGetItemNode>();
        int32_t tuple = CompileExpr(get->tuple);
        int32_t dst = NewRegister();
        Emit({Opcode::kGetItem, dst, tuple, get->index, 0, {}});
        return dst;
      }
      case ExprKind::kShapeExpr: {
        std::vector<int32_t> dims;
        for (const PrimExpr& d : e->As<ShapeExprNode>()->values) dims.push_back(CompileDim(d, e->span, "shape"));
        int32_t dst = NewRegister();
        Emit({Opcode::kMakeShape, dst, -1, -1, 0, std::move(dims)});
        return dst;
      }
      case ExprKind::kPrimValue: {
        const PrimExpr& v = e->As<PrimValueNode>()->value;
        if (const auto* fimm = v->As<FloatImmNode>()) return LoadConstant(Value::Float(fimm->value));
        if (IsFloat(v->dtype)) Fail(e->span, "the VM cannot compute a symbolic float value");
        int32_t dst = NewRegister();
        Emit({Opcode::kMakeInt, dst, -1, CompileDim(v, e->span, "prim value"), 0, {}});
        return dst;
      }
      case ExprKind::kIf: return CompileIf(*e->As<IfNode>());
      case ExprKind::kCall: return CompileCall(*e->As<CallNode>());
      case ExprKind::kOp:
      case ExprKind::kGlobalVar:
      case ExprKind::kExternFunc: Fail(e->span, "a function used as a value is not supported by the VM");
    }
    Fail(e->span, "unknown expression");
  }

  int32_t LoadConstant(Value v) {
    int32_t dst = NewRegister();
    Emit({Opcode::kLoadConst, dst, -1, module_.AddConstant(std::move(v)), 0, {}});
    return dst;
  }

  int32_t CompileIf(const IfNode& node) {
    int32_t cond = CompileExpr(node.cond);
    int32_t dst = NewRegister();
    size_t branch = f_.code.size();
    Emit({Opcode::kJumpIfFalse, -1, cond, -1, 0, {}});
    Emit({Opcode::kMove, dst, CompileSeq(*node.then_branch), -1, 0, {}});
    size_t jump = f_.code.size();
    Emit({Opcode::kJump, -1, -1, -1, 0, {}});
    f_.code[branch].index = static_cast<int32_t>(f_.code.size());
    Emit({Opcode::kMove, dst, CompileSeq(*node.else_branch), -1, 0, {}});
    f_.code[jump].index = static_cast<int32_t>(f_.code.size());
    return dst;
  }

  int32_t CompileCall(const CallNode& call) {
    if (const auto* op = call.callee->As<OpNode>()) {
      const std::string& name = op->name();
      if (name == "call_kernel" || name == "call_extern") return CompileDestinationPassingCall(call, name);
      if (name == "view") return CompileView(call);
      Fail(call.span, "op '", name, "' was not legalized; run LegalizeOps before building an executable");
    }
    if (const auto* gv = call.callee->As<GlobalVarNode>()) {
      int32_t index = module_.FunctionIndex(gv->name);
      if (index < 0) {
        if (module_.module().FindKernel(gv->name) != nullptr) {
          Fail(call.span, "@", gv->name, " is a kernel function: call it with call_kernel");
        }
        Fail(call.span, "calls @", gv->name, ", which is not a function of the module");
      }
      std::vector<int32_t> args;
      for (const Expr& a : call.args) args.push_back(CompileExpr(a));
      int32_t dst = NewRegister();
      Emit({Opcode::kCallFunc, dst, -1, index, 0, std::move(args)});
      return dst;
    }
    Fail(call.span, "calling an external function directly is not supported; use call_extern");
  }

  int32_t CompileDestinationPassingCall(const CallNode& call, const std::string& op) {
    bool is_kernel = op == "call_kernel";
    if (call.args.size() != 2) Fail(call.span, op, " takes 2 arguments, got ", call.args.size());
    int32_t target = -1;
    std::string what;
    if (is_kernel) {
      const auto* gv = call.args[0]->As<GlobalVarNode>();
      if (gv == nullptr) Fail(call.span, "call_kernel needs a kernel function (@name) as its first argument");
      target = module_.KernelIndex(gv->name);
      if (target < 0) Fail(call.span, "call_kernel calls @", gv->name, ", which is not a kernel function of the module");
      what = StrCat("the output of call_kernel(@", gv->name, ")");
    } else {
      const auto* name = call.args[0]->As<StringImmNode>();
      if (name == nullptr) Fail(call.span, "call_extern needs the function's name as a string");
      target = module_.ExternIndex(name->value);
      what = StrCat("the output of call_extern(\"", name->value, "\")");
    }
    const auto* inputs = call.args[1]->As<TupleNode>();
    if (inputs == nullptr) Fail(call.span, op, ": the arguments must be a tuple written in place");
    std::vector<int32_t> operands;
    for (const Expr& a : inputs->fields) operands.push_back(CompileExpr(a));
    std::vector<int32_t> outputs;
    std::vector<int32_t> donors = is_kernel ? Donors(module_.InPlacePairsOf(target), operands, call.sinfo_args.size())
                                            : std::vector<int32_t>(call.sinfo_args.size(), -1);
    for (const StructInfo& out : call.sinfo_args) {
      const auto* t = out == nullptr ? nullptr : out->As<TensorSINode>();
      if (t == nullptr || !t->shape.has_value() || t->dtype == DType::kUnknown) {
        Fail(call.span, what, " must be a tensor of known dtype and shape, got ", out == nullptr ? "nothing" : ToString(out));
      }
      std::vector<int32_t> dims;
      for (const PrimExpr& d : *t->shape) dims.push_back(CompileDim(d, call.span, what));
      int32_t dst = NewRegister();
      Emit({Opcode::kAllocTensor, dst, donors[outputs.size()], static_cast<int32_t>(t->dtype), 0, std::move(dims)});
      outputs.push_back(dst);
      operands.push_back(dst);
    }
    Emit({is_kernel ? Opcode::kCallKernel : Opcode::kCallExtern, -1, -1, target, 0, std::move(operands)});
    if (outputs.size() == 1) return outputs[0];
    int32_t dst = NewRegister();
    Emit({Opcode::kMakeTuple, dst, -1, -1, 0, std::move(outputs)});
    return dst;
  }

  /// Per output of a kernel call, the argument register whose storage it may take (docs/vm.md,
  /// "Donated inputs"), or -1: a parameter of the function, passed once, that the kernel can
  /// overwrite with that output (one of its in-place pairs). PlanMemory keeps a donor only
  /// where the output escapes and nothing reads the parameter after the call.
  std::vector<int32_t> Donors(const std::vector<int64_t>& pairs, const std::vector<int32_t>& inputs, size_t num_outputs) {
    std::vector<int32_t> donors(num_outputs, -1);
    std::vector<bool> taken(inputs.size(), false);
    for (size_t k = 0; k + 1 < pairs.size(); k += 2) {
      int64_t i = pairs[k], j = pairs[k + 1] - static_cast<int64_t>(inputs.size());
      if (i < 0 || i >= static_cast<int64_t>(inputs.size()) || j < 0 || j >= static_cast<int64_t>(num_outputs)) continue;
      int32_t r = inputs[i];
      if (taken[i] || donors[j] >= 0 || r < 0 || r >= static_cast<int32_t>(fn_.params.size())) continue;
      if (std::count(inputs.begin(), inputs.end(), r) != 1) continue;
      taken[i] = true;
      donors[j] = r;
    }
    return donors;
  }

  /// view(x, out_sinfo=T): x's storage with T's dims (kView; no copy).
  int32_t CompileView(const CallNode& call) {
    const auto* t = call.sinfo_args.size() == 1 && call.sinfo_args[0] != nullptr ? call.sinfo_args[0]->As<TensorSINode>()
                                                                                 : nullptr;
    if (call.args.size() != 1 || t == nullptr || !t->shape.has_value() || t->dtype == DType::kUnknown) {
      Fail(call.span, "view takes one tensor and the struct info of its output (a tensor of known dtype and shape)");
    }
    int32_t source = CompileExpr(call.args[0]);
    std::vector<int32_t> dims;
    for (const PrimExpr& d : *t->shape) dims.push_back(CompileDim(d, call.span, "the output of view"));
    int32_t dst = NewRegister();
    Emit({Opcode::kView, dst, source, static_cast<int32_t>(t->dtype), 0, std::move(dims)});
    return dst;
  }

  struct Deferred {
    DimPattern* dim;
    PrimExpr expr;
    std::string what;
  };

  ModuleCompiler& module_;
  const FunctionNode& fn_;
  VMFunction f_;
  int32_t next_register_ = 0;
  std::unordered_map<const ExprNode*, int32_t> registers_;
  std::unordered_map<const PrimVarNode*, int32_t> slots_;
  std::unordered_map<const PrimExprNode*, int32_t> dim_exprs_;
  std::vector<Deferred> deferred_;
};

}  // namespace

Executable CompileToExecutable(const IRModule& module, const VMCompileOptions& options) {
  Executable exec;
  exec.backend = options.backend;
  ModuleCompiler compiler(module, exec);
  for (const IRModule::Entry& e : module.entries()) {
    if (e.function == nullptr) continue;
    VMFunction f = FunctionCompiler(compiler, e.name, *e.function).Compile();
    if (options.plan_memory) {
      PlanMemory(f);
    } else {
      ClearDonors(f);  // donated storage is the memory plan's to confirm
    }
    exec.functions.push_back(std::move(f));
  }
  compiler.EncodeKernels();
  exec.Validate();
  return exec;
}

}  // namespace rxt
