/// LowerGradientOf: replaces each `%g = gradient_of(%y, (%x1, ..., %xn))` of a function by the
/// backward pass of the bindings that compute %y from the %x (ONNX's Gradient op):
///
///   1. the slice: walking back from %y, every earlier top-level binding %y depends on, stopping
///      at the %x (each taken as an independent input, as ONNX's xs are);
///   2. a function @<f>_gradient_of(%x1..%xn, free...) made of the slice, returning sum(%y)
///      (ONNX seeds the gradient with ones), where free are the other values the slice reads;
///   3. the Gradient pass differentiates it for its first n parameters;
///   4. the adjoint's body is inlined in place of the call, its copy of the forward bindings
///      replaced by the function's own values where they are the same calls, and %g becomes the
///      tuple of its gradients; both helper functions leave the module.
///
/// Inlined, the gradient's work joins the function's own blocks, where fusion and memory
/// planning see it. Errors name the function and the binding; a slice with an op that has no
/// gradient rule fails as the Gradient pass does (kUnimplemented, listing the ops).
#include <unordered_map>
#include <unordered_set>

#include "gradient/analysis.h"
#include "gradient/fresh_copy.h"
#include "rxt/ir/builder.h"
#include "rxt/ir/op.h"
#include "rxt/ir/visitor.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/passes.h"
#include "rxt/transform/training/gradient.h"
#include "transform/rewrite/function_inliner.h"

namespace rxt {
namespace {

constexpr const char* kOpName = "gradient_of";

bool IsGradientOf(const Expr& value) {
  const auto* call = value->As<CallNode>();
  const OpDef* op = call != nullptr ? AsOp(call->callee) : nullptr;
  return op != nullptr && op->name() == kOpName;
}

/// Whether |f| calls gradient_of anywhere (If branches included).
class GradientOfFinder : public ExprVisitor {
 public:
  void VisitCall(const CallNode& node) override {
    if (const OpDef* op = AsOp(node.callee); op != nullptr && op->name() == kOpName) found = true;
    ExprVisitor::VisitCall(node);
  }
  bool found = false;
};

bool CallsGradientOf(const FunctionNode& f) {
  GradientOfFinder finder;
  finder.VisitFunction(f);
  return finder.found;
}

/// Drops the bindings of dataflow blocks that |roots| do not need (the adjoint's copy of the
/// forward result, the original value the Gradient pass returns beside the gradients).
void KeepOnlyNeeded(std::vector<BindingBlock>& blocks, const std::vector<Expr>& roots) {
  std::unordered_set<const VarNode*> needed;
  for (const Expr& root : roots) {
    for (const Var& v : gradient::FreeVars(root)) needed.insert(v.get());
  }
  for (auto block = blocks.rbegin(); block != blocks.rend(); ++block) {
    std::vector<Binding> kept;
    for (auto b = block->bindings.rbegin(); b != block->bindings.rend(); ++b) {
      if (block->is_dataflow && !needed.count(b->var.get())) continue;
      for (const Var& v : gradient::FreeVars(b->value)) needed.insert(v.get());
      kept.push_back(*b);
    }
    block->bindings.assign(kept.rbegin(), kept.rend());
  }
}

/// Two op calls that compute the same value: the same op, attributes and output struct info
/// declared, and the very same arguments (variables by identity, constants by node).
bool SameCall(const CallNode& a, const CallNode& b) {
  if (AsOp(a.callee) == nullptr || AsOp(a.callee) != AsOp(b.callee) || !AsOp(a.callee)->pure()) return false;
  if (a.args.size() != b.args.size() || !a.sinfo_args.empty() || !b.sinfo_args.empty() || !(a.attrs == b.attrs)) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (a.args[i].get() != b.args[i].get()) return false;
  }
  return true;
}

/// Rewrites the inlined adjoint so that its copy of the forward bindings uses the function's
/// own values: a binding whose call the function already computed (same op, attributes and
/// arguments, before the gradient_of) is dropped and its variable replaced by the function's.
/// Applied in order, a whole chain of recomputed bindings goes (their arguments become the
/// function's variables one after another).
class ForwardSharer : public ExprMutator {
 public:
  ForwardSharer(const IRModule* module, const std::vector<const Binding*>& earlier) : ExprMutator(module) {
    for (const Binding* b : earlier) {
      if (b->is_match_cast()) continue;
      if (const auto* call = b->value->As<CallNode>(); call != nullptr && AsOp(call->callee) != nullptr) {
        by_call_.emplace(Key(*call), b);
      }
    }
  }

  void VisitBinding(const Binding& binding) override {
    Expr value = VisitExpr(binding.value);
    if (const auto* call = value->As<CallNode>(); call != nullptr && !binding.is_match_cast()) {
      auto [begin, end] = by_call_.equal_range(Key(*call));
      for (auto it = begin; it != end; ++it) {
        if (SameCall(*call, *it->second->value->As<CallNode>())) {
          var_remap_[binding.var.get()] = it->second->var;
          return;
        }
      }
    }
    if (binding.is_match_cast()) {
      ExprMutator::VisitBinding(binding);
      return;
    }
    ReEmitBinding(binding, value);
  }

 private:
  /// The op and the argument nodes, hashed: a function's thousands of `add` calls are not
  /// compared one by one.
  static size_t Key(const CallNode& call) {
    size_t h = std::hash<const void*>()(AsOp(call.callee));
    for (const Expr& arg : call.args) h = h * 1000003u ^ std::hash<const void*>()(arg.get());
    return h;
  }

  std::unordered_multimap<size_t, const Binding*> by_call_;
};

class FunctionLowering {
 public:
  FunctionLowering(IRModule& module, std::string name, Function f, const TrainingProvider* rules)
      : module_(module), name_(std::move(name)), f_(std::move(f)), rules_(rules) {
    for (const BindingBlock& block : f_->body->blocks) {
      for (const Binding& b : block.bindings) bound_[b.var.get()] = &b;
    }
  }

  Function Run() {
    std::vector<BindingBlock> blocks;
    for (const BindingBlock& block : f_->body->blocks) {
      BindingBlock current{{}, block.is_dataflow};
      for (const Binding& b : block.bindings) {
        if (!IsGradientOf(b.value)) {
          current.bindings.push_back(b);
          continue;
        }
        training::AppendBlocks(blocks, {current});
        current.bindings.clear();
        Expr gradients = Lower(b, blocks);
        current.bindings.push_back(Binding{b.var, gradients, nullptr});
      }
      training::AppendBlocks(blocks, {current});
    }
    Function lowered =
        training::MakeInlinedFunction(f_->params, std::move(blocks), f_->body->body, f_->is_pure, &module_);
    if (CallsGradientOf(*lowered)) {
      Throw(ErrorCode::kUnimplemented, "LowerGradientOf: @", name_,
            " calls gradient_of inside an if branch; only calls at the top level of a function are lowered");
    }
    return MakeFunction(lowered->params, lowered->body, lowered->ret_sinfo, f_->attrs, lowered->is_pure, f_->span);
  }

 private:
  /// The top-level bindings of the function before |b|.
  std::vector<const Binding*> Earlier(const Binding& b) const {
    std::vector<const Binding*> out;
    for (const BindingBlock& block : f_->body->blocks) {
      for (const Binding& binding : block.bindings) {
        if (&binding == &b) return out;
        out.push_back(&binding);
      }
    }
    return out;
  }

  [[noreturn]] void Fail(const Binding& b, const std::string& what) const {
    Throw(ErrorCode::kInvalidArgument, "LowerGradientOf: gradient_of at %", b.var->name, " in @", name_, ": ", what);
  }

  /// The fields of the wrt argument: a tuple literal, or a variable bound to one.
  std::vector<Expr> WrtFields(const Binding& b) const {
    Expr wrt = b.value->As<CallNode>()->args[1];
    if (const auto* var = wrt->As<VarNode>()) {
      auto it = bound_.find(var);
      if (it != bound_.end() && !it->second->is_match_cast()) wrt = it->second->value;
    }
    const auto* tuple = wrt->As<TupleNode>();
    if (tuple == nullptr) Fail(b, "wrt must be a tuple of variables written in place");
    return tuple->fields;
  }

  /// Replaces |b| (a gradient_of) by its backward pass appended to |blocks|; returns the tuple
  /// of gradients its variable takes.
  Expr Lower(const Binding& b, std::vector<BindingBlock>& blocks) {
    const Expr& y = b.value->As<CallNode>()->args[0];
    // The distinct variables differentiated; position[i] is field i's among them.
    std::vector<Var> xs;
    std::vector<size_t> position;
    std::unordered_set<const VarNode*> is_x;
    const std::vector<Expr> fields = WrtFields(b);
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto* var = fields[i]->As<VarNode>();
      if (var == nullptr) Fail(b, StrCat("field ", i, " of wrt must be a variable, got ", ToString(GetStructInfo(fields[i]))));
      size_t k = 0;
      while (k < xs.size() && xs[k].get() != var) ++k;
      if (k == xs.size()) xs.push_back(std::static_pointer_cast<const VarNode>(fields[i]));
      is_x.insert(var);
      position.push_back(k);
    }

    // 1. The slice, in the function's order (bindings after b cannot be reached from y).
    std::unordered_set<const VarNode*> needed;
    for (const Var& v : gradient::FreeVars(y)) needed.insert(v.get());
    std::unordered_set<const Binding*> in_slice;
    for (auto block = f_->body->blocks.rbegin(); block != f_->body->blocks.rend(); ++block) {
      for (auto it = block->bindings.rbegin(); it != block->bindings.rend(); ++it) {
        if (!needed.count(it->var.get()) || is_x.count(it->var.get())) continue;
        in_slice.insert(&*it);
        for (const Var& v : gradient::FreeVars(it->value)) needed.insert(v.get());
      }
    }
    std::vector<BindingBlock> slice;
    std::unordered_set<const VarNode*> defined;
    std::vector<Var> free;
    std::unordered_set<const VarNode*> seen_free;
    auto note_uses = [&](const Expr& e) {
      for (const Var& v : gradient::FreeVars(e)) {
        if (defined.count(v.get()) || is_x.count(v.get()) || !seen_free.insert(v.get()).second) continue;
        free.push_back(v);
      }
    };
    for (const BindingBlock& block : f_->body->blocks) {
      BindingBlock part{{}, block.is_dataflow};
      for (const Binding& binding : block.bindings) {
        if (!in_slice.count(&binding)) continue;
        note_uses(binding.value);
        defined.insert(binding.var.get());
        part.bindings.push_back(binding);
      }
      training::AppendBlocks(slice, {part});
    }
    note_uses(y);

    // 2. The function to differentiate: (xs..., free...) -> sum(y).
    Expr target = y;
    const auto* y_sinfo = GetStructInfo(y)->As<TensorSINode>();
    if (y_sinfo == nullptr || y_sinfo->ndim != 0) {
      target = MakeOpCall("sum", {y});
      InferStructInfo(target, &module_);
    }
    target = training::BindResult(slice, target, "target");
    std::vector<Var> params = xs;
    params.insert(params.end(), free.begin(), free.end());
    std::vector<Expr> args(params.begin(), params.end());
    Function forward = gradient::CopyWithFreshVars(
        MakeFunction(params, MakeSeqExpr(std::move(slice), target), GetStructInfo(target), {}, f_->is_pure), &module_,
        /*keep_dataflow_vars=*/false);

    // 3. Its adjoint, by the Gradient pass.
    const std::string forward_name = module_.UniqueName(name_ + "_gradient_of");
    std::vector<int> require_grads;
    for (size_t i = 0; i < xs.size(); ++i) require_grads.push_back(static_cast<int>(i));
    IRModule with_forward = module_;
    with_forward.Add(forward_name, forward);
    Function adjoint;
    try {
      adjoint = Gradient(with_forward, forward_name, require_grads, 0, rules_).GetFunction(forward_name + "_adjoint");
    } catch (const Error& error) {
      Throw(error.code(), "LowerGradientOf: gradient_of at %", b.var->name, " in @", name_, ": ", error.what());
    }

    // 4. Inlined here: the adjoint's symbols take the values of the arguments' dims.
    PrimVarMap symbols;
    for (size_t i = 0; i < args.size(); ++i) {
      training::MatchSymbols(adjoint->params[i]->struct_info, GetStructInfo(args[i]), symbols);
    }
    training::InlinedBody body = training::InlineBody(adjoint, args, &module_, symbols);
    SeqExpr shared = ForwardSharer(&module_, Earlier(b)).VisitSeqExpr(MakeSeqExpr(body.blocks, body.result));
    std::vector<BindingBlock> inlined = shared->blocks;
    Expr gradient_tuple = training::TupleField(inlined, shared->body, 1, b.var->name + "_gradients");
    std::vector<Expr> gradients = training::Fields(inlined, gradient_tuple, b.var->name + "_gradient");
    KeepOnlyNeeded(inlined, gradients);
    training::AppendBlocks(blocks, inlined);
    std::vector<Expr> result;
    for (size_t k : position) result.push_back(gradients.at(k));
    return training::MakeTupleOf(std::move(result));
  }

  IRModule& module_;
  const std::string name_;
  const Function f_;
  const TrainingProvider* rules_;
  std::unordered_map<const VarNode*, const Binding*> bound_;
};

IRModule LowerModule(IRModule module, const TrainingProvider* rules) {
  std::vector<std::string> names;
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.function && CallsGradientOf(*entry.function)) names.push_back(entry.name);
  }
  for (const std::string& name : names) {
    // Every variable ordinary: the backward pass inlined in the middle of a block may split it.
    Function f = gradient::CopyWithFreshVars(module.GetFunction(name), &module, /*keep_dataflow_vars=*/false);
    module.Add(name, FunctionLowering(module, name, f, rules).Run());
  }
  return module;
}

}  // namespace

Pass LowerGradientOf(const TrainingProvider* rules) {
  return CreateModulePass([rules](IRModule module) { return LowerModule(std::move(module), rules); }, "LowerGradientOf");
}

}  // namespace rxt
