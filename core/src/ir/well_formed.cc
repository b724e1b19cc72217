// The well-formedness checker (see well_formed.h for the rules). One checker per function
// kind: RelaxChecker walks a Relax function with scopes for variables and symbolic dims,
// KernelChecker walks a kernel with scopes for buffers, loop variables and iterators.
#include "rxt/ir/well_formed.h"

#include "rxt/support/message_text.h"

#include <unordered_set>

#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"

namespace rxt {
namespace {

/// Collects diagnostics for one function, prefixing each with the function's name.
class Reporter {
 public:
  Reporter(std::string function, std::vector<Diagnostic>* out) : function_(std::move(function)), out_(out) {}

  template <typename... Args>
  void Report(const Span& span, const Args&... args) {
    out_->push_back(Diagnostic{span, StrCat("@", function_, ": ", args...), function_});
  }

 private:
  std::string function_;
  std::vector<Diagnostic>* out_;
};

/// Scalar variables that |sinfo| defines: bare variables standing as a dim or a value.
void CollectDefinableSymbols(const StructInfo& sinfo, std::vector<PrimVar>* out) {
  if (sinfo == nullptr) return;
  auto collect = [&](const std::optional<std::vector<PrimExpr>>& dims) {
    if (!dims) return;
    for (const PrimExpr& dim : *dims) {
      if (dim->kind == PrimKind::kVar) out->push_back(std::static_pointer_cast<const PrimVarNode>(dim));
    }
  };
  if (auto* tensor = sinfo->As<TensorSINode>()) collect(tensor->shape);
  if (auto* shape = sinfo->As<ShapeSINode>()) collect(shape->values);
  if (auto* prim = sinfo->As<PrimSINode>(); prim && prim->value && prim->value->kind == PrimKind::kVar) {
    out->push_back(std::static_pointer_cast<const PrimVarNode>(prim->value));
  }
  if (auto* tuple = sinfo->As<TupleSINode>()) {
    for (const StructInfo& field : tuple->fields) CollectDefinableSymbols(field, out);
  }
}

/// Arguments of calls must be leaves (the BlockBuilder's A-normal form).
bool IsLeaf(const Expr& e) {
  switch (e->kind) {
    case ExprKind::kTuple:
      for (const Expr& field : e->As<TupleNode>()->fields) {
        if (!IsLeaf(field)) return false;
      }
      return true;
    case ExprKind::kCall:
    case ExprKind::kTupleGetItem:
    case ExprKind::kIf: return false;
    default: return true;
  }
}

/// Number of output buffers a call_kernel writes: one per sinfo_arg, tuples spread out.
size_t CountKernelOutputs(const CallNode& call) {
  size_t count = 0;
  for (const StructInfo& s : call.sinfo_args) {
    auto* tuple = s ? s->As<TupleSINode>() : nullptr;
    count += tuple ? tuple->fields.size() : 1;
  }
  return count;
}

std::string VarName(const VarNode& var) { return "%" + var.name; }

class RelaxChecker : public ExprVisitor {
 public:
  RelaxChecker(const IRModule& module, const std::string& name, std::vector<Diagnostic>* out)
      : module_(module), reporter_(name, out) {}

  void Check(const FunctionNode& function) {
    where_ = function.span;
    function_is_pure_ = function.is_pure;
    // Parameters define their symbolic dims together: f(x: (n, m), y: (m * 2,)) is fine.
    std::vector<PrimVar> symbols;
    for (const Var& param : function.params) CollectDefinableSymbols(param->struct_info, &symbols);
    for (const PrimVar& s : symbols) symbols_.insert(s.get());
    for (const Var& param : function.params) {
      if (param->is_dataflow) reporter_.Report(param->span, "parameter ", VarName(*param), " is a dataflow variable");
      VisitVarDef(param);
    }
    if (function.ret_sinfo == nullptr) reporter_.Report(function.span, "the function has no return struct info");
    VisitSeqExpr(*function.body);
    where_ = function.span;
    VisitStructInfo(function.ret_sinfo);
    const StructInfo& body_sinfo = function.body->body->struct_info;
    if (function.ret_sinfo && body_sinfo && !IsBaseOf(function.ret_sinfo, body_sinfo, true)) {
      reporter_.Report(function.span, "the body returns ", ToString(body_sinfo), " but the function declares ",
                       ToString(function.ret_sinfo));
    }
  }

  void VisitSeqExpr(const SeqExprNode& seq) override {
    scopes_.emplace_back();
    for (const BindingBlock& block : seq.blocks) VisitBindingBlock(block);
    if (seq.body->struct_info == nullptr)
      reporter_.Report(seq.body->span, "the result is not normalized (no struct info)");
    VisitExpr(seq.body);
    for (const VarNode* var : scopes_.back()) visible_.erase(var);
    scopes_.pop_back();
  }

  void VisitBindingBlock(const BindingBlock& block) override {
    bool outer = in_dataflow_;
    in_dataflow_ = block.is_dataflow;
    ExprVisitor::VisitBindingBlock(block);
    in_dataflow_ = outer;
    if (!block.is_dataflow) return;
    // Dataflow variables end with their block.
    for (const Binding& binding : block.bindings) {
      if (binding.var && binding.var->is_dataflow && visible_.erase(binding.var.get())) {
        ended_dataflow_.insert(binding.var.get());
      }
    }
  }

  void VisitBinding(const Binding& binding) override {
    where_ = binding.value && binding.value->span.known() ? binding.value->span : binding.var->span;
    VisitExpr(binding.value);
    if (binding.is_match_cast()) {
      std::vector<PrimVar> defined;
      CollectDefinableSymbols(binding.match_sinfo, &defined);
      for (const PrimVar& s : defined) symbols_.insert(s.get());
      VisitStructInfo(binding.match_sinfo);
    }
    if (binding.var->is_dataflow && !in_dataflow_) {
      reporter_.Report(binding.var->span, "dataflow variable ", VarName(*binding.var),
                       " is defined outside a dataflow block");
    }
    VisitVarDef(binding.var);
    CheckBindingStructInfo(binding);
  }

  void VisitVarDef(const Var& var) override {
    if (!defined_.insert(var.get()).second) {
      reporter_.Report(var->span, "variable ", VarName(*var), " is defined twice");
    }
    visible_.insert(var.get());
    if (!scopes_.empty()) scopes_.back().push_back(var.get());
    if (var->struct_info == nullptr) {
      reporter_.Report(var->span, "variable ", VarName(*var), " has no struct info");
      return;
    }
    ExprVisitor::VisitVarDef(var);
  }

  void VisitVar(const Var& var) override {
    if (visible_.count(var.get())) return;
    if (ended_dataflow_.count(var.get())) {
      reporter_.Report(where_, "dataflow variable ", VarName(*var), " is used outside its dataflow block");
    } else if (defined_.count(var.get())) {
      reporter_.Report(where_, "variable ", VarName(*var), " is used outside the branch that defines it");
    } else {
      reporter_.Report(where_, "variable ", VarName(*var), " is used before it is defined");
    }
  }

  void VisitPrimExpr(const PrimExpr& e) override { symbol_uses_.VisitPrimExpr(e); }

  void VisitCall(const CallNode& call) override {
    bool is_call_kernel = false;
    if (const OpDef* op = AsOp(call.callee)) {
      if (!op->pure() && in_dataflow_) {
        reporter_.Report(where_, "impure call to ", op->name(), " inside a dataflow block");
      } else if (!op->pure() && function_is_pure_) {
        reporter_.Report(where_, "impure call to ", op->name(), " in a function not marked impure");
      }
      is_call_kernel = op->name() == "call_kernel";
      if (is_call_kernel) CheckCallKernel(call);
    } else if (auto* gv = call.callee->As<GlobalVarNode>()) {
      if (module_.FindKernel(gv->name)) {
        reporter_.Report(where_, "@", gv->name, " is a kernel function: call it with call_kernel");
      } else if (Function callee = module_.FindFunction(gv->name); callee && !callee->is_pure && in_dataflow_) {
        reporter_.Report(where_, "impure call to @", gv->name, " inside a dataflow block");
      } else if (callee && !callee->is_pure && function_is_pure_) {
        reporter_.Report(where_, "impure call to @", gv->name, " in a function not marked impure");
      }
    }
    for (size_t i = 0; i < call.args.size(); ++i) {
      if (!IsLeaf(call.args[i])) {
        reporter_.Report(where_, "argument ", i, " of a call is not in normal form (bind it to a variable first)");
      }
    }
    if (!is_call_kernel) return ExprVisitor::VisitCall(call);
    // The kernel named by call_kernel was checked above.
    for (size_t i = 1; i < call.args.size(); ++i) VisitExpr(call.args[i]);
    for (const StructInfo& sinfo : call.sinfo_args) VisitStructInfo(sinfo);
  }

  void VisitGlobalVar(const GlobalVarNode& node) override {
    if (!module_.Contains(node.name)) reporter_.Report(where_, "@", node.name, " does not exist in the module");
  }

 private:
  /// Reports scalar variables used where no parameter or match_cast has defined them.
  class SymbolUseChecker : public PrimExprVisitor {
   public:
    explicit SymbolUseChecker(RelaxChecker* owner) : owner_(owner) {}
    void VisitPrimVar(const PrimVar& var) override {
      if (owner_->symbols_.count(var.get()) || !owner_->reported_symbols_.insert(var.get()).second) return;
      owner_->reporter_.Report(owner_->where_, "symbolic variable ", var->name,
                               " is used before a parameter or match_cast defines it");
    }

   private:
    RelaxChecker* owner_;
  };

  void CheckCallKernel(const CallNode& call) {
    if (call.args.empty()) return;  // the op's own inference reports the arity
    auto* gv = call.args[0]->As<GlobalVarNode>();
    if (gv == nullptr) {
      reporter_.Report(where_, "call_kernel: the first argument must name a kernel (@name)");
      return;
    }
    KernelFunction kernel = module_.FindKernel(gv->name);
    if (kernel == nullptr) {
      if (module_.FindFunction(gv->name)) {
        reporter_.Report(where_, "call_kernel: @", gv->name, " is a Relax function, not a kernel");
      } else {
        reporter_.Report(where_, "call_kernel: kernel @", gv->name, " does not exist in the module");
      }
      return;
    }
    if (call.args.size() < 2) return;
    const StructInfo& args_sinfo = call.args[1]->struct_info;
    auto* inputs = args_sinfo ? args_sinfo->As<TupleSINode>() : nullptr;
    if (inputs == nullptr) return;  // not a tuple: the op's own inference reports it
    size_t num_inputs = inputs->fields.size();
    size_t num_outputs = CountKernelOutputs(call);
    if (kernel->params.size() != num_inputs + num_outputs) {
      reporter_.Report(where_, "call_kernel: @", gv->name, " takes ", kernel->params.size(),
                       " parameter(s) but is given ", num_inputs, " input(s) and ", num_outputs, " output(s)");
    }
  }

  void CheckBindingStructInfo(const Binding& binding) {
    const Var& var = binding.var;
    const StructInfo& value_sinfo = binding.value->struct_info;
    if (value_sinfo == nullptr) {
      reporter_.Report(where_, "the value of ", VarName(*var), " is not normalized (no struct info)");
      return;
    }
    if (var->struct_info == nullptr) return;
    if (binding.is_match_cast()) {
      const StructInfo& target = binding.match_sinfo;
      if (!IsBaseOf(target, value_sinfo, true) && !IsBaseOf(value_sinfo, target, true)) {
        reporter_.Report(where_, "match_cast of ", VarName(*var), ": a value of ", ToString(value_sinfo),
                         " can never match ", ToString(target));
      }
      if (!IsBaseOf(var->struct_info, target, true)) {
        reporter_.Report(where_, "struct info mismatch: ", VarName(*var), " is ", ToString(var->struct_info),
                         " but match_cast gives ", ToString(target));
      }
      return;
    }
    if (!IsBaseOf(var->struct_info, value_sinfo, true)) {
      reporter_.Report(where_, "struct info mismatch: ", VarName(*var), " is ", ToString(var->struct_info),
                       " but its value is ", ToString(value_sinfo));
    }
  }

  const IRModule& module_;
  Reporter reporter_;
  Span where_;  // the binding being checked: diagnostics about uses point there
  bool in_dataflow_ = false;
  bool function_is_pure_ = true;  // a pure function may not call impure ops or functions
  std::unordered_set<const VarNode*> defined_, visible_, ended_dataflow_;
  std::vector<std::vector<const VarNode*>> scopes_;  // variables defined per SeqExpr
  std::unordered_set<const PrimVarNode*> symbols_, reported_symbols_;
  SymbolUseChecker symbol_uses_{this};
};

class KernelChecker : public StmtVisitor {
 public:
  KernelChecker(const std::string& name, std::vector<Diagnostic>* out) : reporter_(name, out) {}

  void VisitKernel(const KernelFunctionNode& kernel) override {
    // Bare dims of parameter buffers define the kernel's symbolic sizes (like match_buffer).
    for (const KernelParam& param : kernel.params) {
      if (param.buffer) {
        for (const PrimExpr& dim : param.buffer->shape) {
          if (dim->kind == PrimKind::kVar) Define(std::static_pointer_cast<const PrimVarNode>(dim));
        }
      } else if (!param.scalar) {
        reporter_.Report({}, "a kernel parameter is neither a buffer nor a scalar");
      }
    }
    StmtVisitor::VisitKernel(kernel);
  }

  void VisitBufferDef(const Buffer& buffer) override {
    if (!buffers_.insert(buffer.get()).second) reporter_.Report({}, "buffer ", buffer->name, " is declared twice");
    live_buffers_.insert(buffer.get());
    StmtVisitor::VisitBufferDef(buffer);
  }

  void VisitBufferUse(const Buffer& buffer) override {
    if (live_buffers_.count(buffer.get()) || !reported_.insert(buffer.get()).second) return;
    reporter_.Report({}, "buffer ", buffer->name, " is used but not declared (parameter or alloc)");
  }

  void VisitPrimVarDef(const PrimVar& var) override {
    if (symbols_.count(var.get())) {
      reporter_.Report({}, "variable ", var->name, " is defined twice");
      return;
    }
    Define(var);
  }

  void VisitPrimVar(const PrimVar& var) override {
    if (live_symbols_.count(var.get())) {
      if (in_init_ && reduce_iters_.count(var.get())) {
        reporter_.Report({}, "reduce iterator ", var->name, " is used in the init step of its block");
      }
      return;
    }
    if (!reported_.insert(var.get()).second) return;
    if (symbols_.count(var.get())) {
      reporter_.Report({}, "variable ", var->name, " is used outside the loop or block that defines it");
    } else {
      reporter_.Report({}, "variable ", var->name, " is used but never defined");
    }
  }

  void VisitFor(const ForNode& node) override {
    if (!IsInt(node.extent->dtype)) reporter_.Report({}, "loop ", node.var->name, ": the extent is not an integer");
    StmtVisitor::VisitFor(node);
    live_symbols_.erase(node.var.get());
  }

  void VisitAllocate(const AllocateNode& node) override {
    StmtVisitor::VisitAllocate(node);
    live_buffers_.erase(node.buffer.get());
  }

  void VisitBlock(const BlockNode& node) override {
    bool has_reduce = false;
    for (const IterVar& iter : node.iter_vars) {
      VisitPrimExpr(iter.value);
      VisitPrimVarDef(iter.var);
      if (iter.kind == IterKind::kReduce) {
        has_reduce = true;
        reduce_iters_.insert(iter.var.get());
      }
    }
    if (node.init) {
      if (!has_reduce) reporter_.Report({}, "block ", node.name, " has an init step but no reduce iterator");
      bool outer = in_init_;
      in_init_ = true;
      VisitStmt(node.init);
      in_init_ = outer;
    }
    VisitStmt(node.body);
    for (const IterVar& iter : node.iter_vars) live_symbols_.erase(iter.var.get());
  }

  void VisitStore(const StoreNode& node) override {
    CheckIndices(node.buffer, node.indices.size(), "store to");
    if (node.value->dtype != node.buffer->dtype) {
      reporter_.Report({}, "store to ", node.buffer->name, ": the value is ", DTypeName(node.value->dtype),
                       " but the buffer holds ", DTypeName(node.buffer->dtype));
    }
    StmtVisitor::VisitStore(node);
  }

  void VisitLoad(const LoadNode& node) override {
    CheckIndices(node.buffer, node.indices.size(), "load from");
    StmtVisitor::VisitLoad(node);
  }

  void VisitIfStmt(const IfStmtNode& node) override {
    if (node.cond->dtype != DType::kBool) reporter_.Report({}, "if: the condition is not bool");
    StmtVisitor::VisitIfStmt(node);
  }

 private:
  void Define(const PrimVar& var) {
    symbols_.insert(var.get());
    live_symbols_.insert(var.get());
  }

  void CheckIndices(const Buffer& buffer, size_t count, const char* what) {
    if (count == buffer->shape.size()) return;
    reporter_.Report({}, what, " ", buffer->name, " uses ", count, " index(es) but the buffer has ",
                     buffer->shape.size(), " dim(s)");
  }

  Reporter reporter_;
  bool in_init_ = false;
  std::unordered_set<const BufferNode*> buffers_, live_buffers_;
  std::unordered_set<const PrimVarNode*> symbols_, live_symbols_, reduce_iters_;
  std::unordered_set<const void*> reported_;
};

}  // namespace

std::string Diagnostic::ToString() const { return span.known() ? span.ToString() + ": " + message : message; }

std::vector<Diagnostic> CheckWellFormed(const IRModule& module) {
  std::vector<Diagnostic> diagnostics;
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.function) RelaxChecker(module, entry.name, &diagnostics).Check(*entry.function);
    if (entry.kernel) KernelChecker(entry.name, &diagnostics).VisitKernel(*entry.kernel);
  }
  return diagnostics;
}

void VerifyWellFormed(const IRModule& module) {
  std::vector<Diagnostic> diagnostics = CheckWellFormed(module);
  if (diagnostics.empty()) return;
  std::string message = StrCat("the module is not well formed (", diagnostics.size(), " problem",
                               diagnostics.size() == 1 ? "" : "s", "): ");
  std::vector<std::string> items;
  for (const Diagnostic& d : diagnostics) items.push_back(d.ToString());
  Throw(ErrorCode::kInvalidArgument, message + JoinForMessage(items));
}

}  // namespace rxt
