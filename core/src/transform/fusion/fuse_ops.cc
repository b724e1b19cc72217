/// FuseOps: groups kernel calls that can become one kernel (TVM's FuseOps, on legalized IR).
/// Inside each dataflow block, walking from the last binding back, a call_kernel starts a
/// group and takes in the producers of its arguments whose result nothing else uses:
///  - an elementwise, broadcast or injective group takes injective producers whose last
///    stage is spatial (it will be inlined; earlier stages into local buffers run first);
///  - it also takes one out_ewise_fusable producer (matmul, convolution) as its anchor when
///    the path from it to the group's result is elementwise work on its output (the GEMM
///    epilogue: bias, activation);
///  - a comm_reduce group takes injective producers (inlined into the reduction's loads);
///  - out_ewise_fusable and opaque kernels take nothing.
/// Then a group without an anchor whose root is elementwise, broadcast or injective takes
/// inlinable producers whose result is used more than once (multi-output fusion, e.g. the
/// Adam update: m' and v' feed the new parameter and are returned as the new state):
///  - it must have the root's shape and dtype, and members read it only at the element they
///    write (so it shares the root's loop nest);
///  - when every use is in the group, the producer is inlined at each load (the same
///    expression at the same element: the backend computes it once);
///  - when the other uses all come after the root, the producer also becomes an output of
///    the group (the merged kernel stores it, then loads it back in the same iteration);
///  - a producer used by a binding between it and the root outside the group, or fed by a
///    GEMM or convolution (that anchor's epilogue), stays out.
/// Such a group must pass a dry run of MergeKernels, else it is grown as before.
/// A group's merged expressions hold at most kMaxInlinedKernels kernel instances (a producer
/// inlined at two loads counts twice): a producer that would pass that stays out. Without the
/// bound a chain of values each used twice (%a2 = add(%a1, %a1)...) would double the merged
/// expression per member; with it, grouping and merging are linear in the block.
/// Each group of two or more calls moves into a new function of the module, marked
/// `primitive = true` and named after its kernels (fused_matmul_add_relu), which the group's
/// last binding now calls; structurally equal groups share one function. A function with
/// several outputs returns a Tuple of them (extra outputs in binding order, then the root);
/// the call binds it and the outputs' variables are bound to its items. FuseKernels then
/// merges each such function into one kernel. Kernels' kinds come from their op_pattern
/// attribute (transform/analysis/op_pattern.h); calls outside dataflow blocks are left alone.
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "fusion_rules.h"
#include "kernel_merge.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/ir/op.h"
#include "rxt/transform/analysis/op_pattern.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

/// The largest merged kernel a group may make, in kernel instances (see the file comment).
constexpr int64_t kMaxInlinedKernels = 128;

class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  std::unordered_map<const VarNode*, int> uses;
};

/// The symbolic variables of struct info, in order of first appearance.
class SymbolCollector : public ExprVisitor {
 public:
  void VisitPrimExpr(const PrimExpr& e) override { prim_.VisitPrimExpr(e); }
  std::vector<PrimVar> symbols;

 private:
  struct PrimVarCollector : PrimExprVisitor {
    explicit PrimVarCollector(std::vector<PrimVar>* out) : out(out) {}
    void VisitPrimVar(const PrimVar& var) override {
      if (std::find(out->begin(), out->end(), var) == out->end()) out->push_back(var);
    }
    std::vector<PrimVar>* out;
  };
  PrimVarCollector prim_{&symbols};
};

bool IsKnownTensor(const StructInfo& sinfo) {
  const auto* t = sinfo ? sinfo->As<TensorSINode>() : nullptr;
  return t != nullptr && t->shape.has_value() && t->dtype != DType::kUnknown;
}

/// A call_kernel binding of a dataflow block, as the grouping sees it.
struct KernelCall {
  size_t binding = 0;
  std::string kernel_name;
  KernelFunction kernel;
  OpPatternKind pattern = OpPatternKind::kOpaque;
  std::vector<Expr> args;
  StructInfo out_sinfo;
};

/// The call_kernel of |binding| if a group may contain it: one tensor output, arguments that
/// are variables or constants of known tensor struct info, a kernel of buffers only.
std::optional<KernelCall> ReadKernelCall(const Binding& binding, size_t index, const IRModule& module) {
  if (binding.is_match_cast()) return std::nullopt;
  const auto* call = binding.value->As<CallNode>();
  const OpDef* op = call ? AsOp(call->callee) : nullptr;
  if (op == nullptr || op->name() != "call_kernel" || call->args.size() != 2 || call->sinfo_args.size() != 1) {
    return std::nullopt;
  }
  const auto* gv = call->args[0]->As<GlobalVarNode>();
  const auto* tuple = call->args[1]->As<TupleNode>();
  KernelFunction kernel = gv ? module.FindKernel(gv->name) : nullptr;
  if (kernel == nullptr || tuple == nullptr || !IsKnownTensor(call->sinfo_args[0])) return std::nullopt;
  if (!HasFusibleStructure(*kernel) || kernel->params.size() != tuple->fields.size() + 1) return std::nullopt;
  for (const Expr& arg : tuple->fields) {
    bool leaf = arg->kind == ExprKind::kVar || arg->kind == ExprKind::kConstant;
    if (!leaf || !IsKnownTensor(arg->struct_info)) return std::nullopt;
  }
  return KernelCall{index, gv->name, kernel, GetOpPattern(*kernel), tuple->fields, call->sinfo_args[0]};
}

bool SameTensorType(const StructInfo& a, const StructInfo& b) {
  const auto* x = a->As<TensorSINode>();
  const auto* y = b->As<TensorSINode>();
  if (x->dtype != y->dtype || x->shape->size() != y->shape->size()) return false;
  for (size_t k = 0; k < x->shape->size(); ++k) {
    if (!ProvablyEqual((*x->shape)[k], (*y->shape)[k])) return false;
  }
  return true;
}

/// One group: the root (the last binding), its members and, for each member but the root,
/// the member that consumes its result and at which argument.
struct Group {
  std::vector<size_t> members;  // indices into the block's calls
  std::unordered_map<size_t, std::pair<size_t, size_t>> consumer;
  int anchor = -1;
  /// Members whose result is also used outside the group (besides the root): extra outputs.
  std::unordered_set<size_t> extra_outputs;
  /// Whether a member's result is used more than once (an extra output, or several loads).
  bool multi_use = false;
};

class BlockFuser {
 public:
  BlockFuser(IRModule& module, const std::unordered_map<const VarNode*, int>& uses,
             std::unordered_map<size_t, std::vector<std::string>>& functions_by_hash)
      : module_(module), uses_(uses), functions_by_hash_(functions_by_hash) {}

  BindingBlock Fuse(const BindingBlock& block) {
    std::vector<std::optional<KernelCall>> calls;
    std::unordered_map<const VarNode*, size_t> producer;
    use_sites_.clear();
    binding_var_.clear();
    for (size_t i = 0; i < block.bindings.size(); ++i) {
      binding_var_[i] = block.bindings[i].var.get();
      calls.push_back(ReadKernelCall(block.bindings[i], i, module_));
      if (calls.back()) producer[block.bindings[i].var.get()] = i;
      UseCounter counter;
      counter.VisitExpr(block.bindings[i].value);
      for (const auto& [var, count] : counter.uses) use_sites_[var].push_back({i, count});
    }
    std::vector<int> group_of(block.bindings.size(), -1);
    std::vector<Group> groups;
    for (size_t i = block.bindings.size(); i-- > 0;) {
      if (!calls[i] || group_of[i] >= 0) continue;
      Group group = Grow(i, calls, producer, group_of, true);
      // A group with extra outputs must merge into one kernel; else it is grown as before.
      if (group.multi_use && !CanMerge(group, calls)) group = Grow(i, calls, producer, group_of, false);
      if (group.members.size() < 2) continue;
      for (size_t m : group.members) group_of[m] = static_cast<int>(groups.size());
      groups.push_back(std::move(group));
    }
    if (groups.empty()) return block;

    // Functions are made in binding order (groups were found from the end).
    std::vector<std::vector<Binding>> replacement(groups.size());
    for (size_t g = groups.size(); g-- > 0;) {
      replacement[g] = CallGroup(groups[g], calls, block);
      if (replacement[g].empty()) {
        for (size_t m : groups[g].members) group_of[m] = -1;  // keeps its bindings
      }
    }
    BindingBlock out;
    out.is_dataflow = true;
    for (size_t i = 0; i < block.bindings.size(); ++i) {
      if (group_of[i] < 0) {
        out.bindings.push_back(block.bindings[i]);
      } else if (groups[group_of[i]].members.front() == i) {  // the root: the group's results
        for (const Binding& b : replacement[group_of[i]]) out.bindings.push_back(b);
      }
    }
    return out;
  }

 private:
  using Calls = std::vector<std::optional<KernelCall>>;
  using Producers = std::unordered_map<const VarNode*, size_t>;

  /// The group rooted at call |root|: producers join while the rules allow (file comment);
  /// with |multi_output|, then also producers whose result is used again (see TakeShared).
  Group Grow(size_t root, const Calls& calls, const Producers& producer, const std::vector<int>& group_of,
             bool multi_output) {
    Group group;
    group.members.push_back(root);
    OpPatternKind kind = calls[root]->pattern;
    if (kind != OpPatternKind::kCommReduce && kind > OpPatternKind::kInjective) return group;
    TakeSingleUse(group, {root}, calls, producer, group_of, root, true);
    if (multi_output && kind <= OpPatternKind::kInjective && group.anchor < 0) {
      while (TakeShared(group, calls, producer, group_of, root)) {
      }
    }
    return group;
  }

  /// Takes in the producers (from |work| back) whose result only one member uses.
  void TakeSingleUse(Group& group, std::vector<size_t> work, const Calls& calls, const Producers& producer,
                     const std::vector<int>& group_of, size_t root, bool allow_anchor) {
    OpPatternKind kind = calls[root]->pattern;
    while (!work.empty()) {
      size_t m = work.back();
      work.pop_back();
      for (size_t a = 0; a < calls[m]->args.size(); ++a) {
        const auto* var = calls[m]->args[a]->As<VarNode>();
        auto it = var ? producer.find(var) : producer.end();
        if (it == producer.end() || it->second >= m || group_of[it->second] >= 0) continue;
        auto uses = uses_.find(var);
        if (uses == uses_.end() || uses->second != 1) continue;
        size_t p = it->second;
        if (IsMember(group, p)) continue;
        const KernelCall& call = *calls[p];
        if (call.pattern <= OpPatternKind::kInjective && IsInlinableProducer(*call.kernel)) {
          if (!FitsBound(group, p, false, calls, producer)) continue;
          group.members.push_back(p);
          group.consumer[p] = {m, a};
          work.push_back(p);
        } else if (allow_anchor && call.pattern == OpPatternKind::kOutEWiseFusable &&
                   kind <= OpPatternKind::kInjective && group.anchor < 0 && IsEpilogueAnchor(*call.kernel) &&
                   IsEpiloguePath(group, calls, m, a, call, root)) {
          group.members.push_back(p);
          group.consumer[p] = {m, a};
          group.anchor = static_cast<int>(p);
        }
      }
    }
  }

  /// Takes in one producer of a member whose result is used more than once, of the root's
  /// shape and read by members only at the element they write: either every use is in the
  /// group (it is inlined at each), or the uses outside all come after the root (then it is
  /// also an output of the group). A producer fed by a GEMM or convolution is left to be
  /// that anchor's epilogue. True if one joined.
  bool TakeShared(Group& group, const Calls& calls, const Producers& producer, const std::vector<int>& group_of,
                  size_t root) {
    for (size_t index = 0; index < group.members.size(); ++index) {
      size_t m = group.members[index];
      for (const Expr& arg : calls[m]->args) {
        const auto* var = arg->As<VarNode>();
        auto it = var ? producer.find(var) : producer.end();
        if (it == producer.end() || it->second >= m || group_of[it->second] >= 0) continue;
        size_t p = it->second;
        if (IsMember(group, p)) continue;
        const KernelCall& call = *calls[p];
        if (call.pattern > OpPatternKind::kInjective || !IsInlinableProducer(*call.kernel)) continue;
        if (FeedsFromAnchor(call, calls, producer)) continue;
        int in_block = 0;
        bool used_after_root = false, used_between = false;
        for (const auto& [site, count] : use_sites_[var]) {
          in_block += count;
          if (site > root) {
            used_after_root = true;
          } else if (!IsMember(group, site)) {
            used_between = true;
          }
        }
        auto total = uses_.find(var);
        bool escapes = used_after_root || (total != uses_.end() && total->second > in_block);
        if (used_between) continue;
        if (!SharesRootLoopNest(group, calls, var, call)) continue;
        if (!FitsBound(group, p, escapes, calls, producer)) continue;
        group.members.push_back(p);
        group.multi_use = true;
        if (escapes) group.extra_outputs.insert(p);
        TakeSingleUse(group, {p}, calls, producer, group_of, root, false);
        return true;
      }
    }
    return false;
  }

  /// Whether a shared result fits the root's loop nest: the root's shape and dtype, read by
  /// members only at the element they write (an extra output is stored, then loaded back;
  /// a result inlined at several loads is the same expression at the same element, which
  /// the backend computes once).
  bool SharesRootLoopNest(const Group& group, const Calls& calls, const VarNode* var, const KernelCall& call) {
    if (!SameTensorType(call.out_sinfo, calls[group.members.front()]->out_sinfo)) return false;
    for (size_t m : group.members) {
      for (size_t a = 0; a < calls[m]->args.size(); ++a) {
        if (calls[m]->args[a].get() == var && !ReadsParamElementwise(*calls[m]->kernel, a)) return false;
      }
    }
    return true;
  }

  /// Whether an argument of |call| is the result of a GEMM or convolution of the block.
  static bool FeedsFromAnchor(const KernelCall& call, const Calls& calls, const Producers& producer) {
    for (const Expr& arg : call.args) {
      const auto* var = arg->As<VarNode>();
      auto it = var ? producer.find(var) : producer.end();
      if (it != producer.end() && calls[it->second]->pattern == OpPatternKind::kOutEWiseFusable) return true;
    }
    return false;
  }

  /// Whether |group| with |candidate| (an extra output if |extra_output|) merges into at most
  /// kMaxInlinedKernels kernel instances: each member counts once, plus at each load of an
  /// inlined member's result that member's own count (an anchor or extra output is loaded,
  /// not inlined). Groups are bounded, so this costs a bounded time per candidate.
  bool FitsBound(const Group& group, size_t candidate, bool extra_output, const Calls& calls,
                 const Producers& producer) const {
    std::vector<size_t> members = group.members;
    members.push_back(candidate);
    std::sort(members.begin(), members.end());  // producers before their consumers
    std::unordered_map<size_t, int64_t> size;
    int64_t total = 0;
    for (size_t m : members) {
      int64_t own = 1;
      for (const Expr& arg : calls[m]->args) {
        const auto* var = arg->As<VarNode>();
        auto it = var ? producer.find(var) : producer.end();
        if (it == producer.end()) continue;
        auto inlined = size.find(it->second);
        if (inlined != size.end()) own = std::min(own + inlined->second, kMaxInlinedKernels + 1);
      }
      bool loaded = m == members.back() || static_cast<int>(m) == group.anchor || group.extra_outputs.count(m) ||
                    (m == candidate && extra_output);
      if (loaded) {
        total += own;
        if (total > kMaxInlinedKernels) return false;
      } else {
        size[m] = own;
      }
    }
    return true;
  }

  static bool IsMember(const Group& group, size_t call) {
    return std::find(group.members.begin(), group.members.end(), call) != group.members.end();
  }

  /// Whether the work from |anchor|'s result (argument |arg| of member |m|) to the root is
  /// elementwise on it: each step is elementwise or broadcast, reads the chain at the element
  /// it writes, and keeps the anchor's shape and dtype.
  bool IsEpiloguePath(const Group& group, const Calls& calls, size_t m, size_t arg, const KernelCall& anchor,
                      size_t root) {
    for (size_t step = m;;) {
      const KernelCall& call = *calls[step];
      if (call.pattern > OpPatternKind::kBroadcast || !ReadsParamElementwise(*call.kernel, arg)) return false;
      if (!SameTensorType(call.out_sinfo, anchor.out_sinfo)) return false;
      if (step == root) return true;
      auto [next, next_arg] = group.consumer.at(step);
      step = next;
      arg = next_arg;
    }
  }

  /// The group's members in binding order, its inputs (arguments from outside) and its
  /// outputs (the extra ones, then the root), as positions among the members.
  struct GroupLayout {
    std::vector<size_t> members;
    std::vector<Expr> inputs;
    std::vector<size_t> outputs;
  };

  GroupLayout Layout(const Group& group, const Calls& calls) {
    GroupLayout layout;
    layout.members = group.members;
    std::sort(layout.members.begin(), layout.members.end());
    std::unordered_set<const ExprNode*> results;
    for (size_t m : layout.members) results.insert(binding_var_.at(m));
    for (size_t m : layout.members) {
      for (const Expr& arg : calls[m]->args) {
        bool seen = std::find(layout.inputs.begin(), layout.inputs.end(), arg) != layout.inputs.end();
        if (!results.count(arg.get()) && !seen) layout.inputs.push_back(arg);
      }
    }
    for (size_t k = 0; k < layout.members.size(); ++k) {
      if (group.extra_outputs.count(layout.members[k]) || k + 1 == layout.members.size()) layout.outputs.push_back(k);
    }
    return layout;
  }

  /// Whether MergeKernels accepts the group (a dry run, for groups with shared results).
  bool CanMerge(const Group& group, const Calls& calls) {
    GroupLayout layout = Layout(group, calls);
    std::unordered_map<const ExprNode*, int> source;
    for (size_t i = 0; i < layout.inputs.size(); ++i) source[layout.inputs[i].get()] = static_cast<int>(i);
    std::vector<MergeMember> members;
    for (size_t k = 0; k < layout.members.size(); ++k) {
      const KernelCall& call = *calls[layout.members[k]];
      MergeMember member{call.kernel, {}, {}};
      for (const Expr& arg : call.args) {
        member.inputs.push_back(source.at(arg.get()));
        member.param_sinfo.push_back(arg->struct_info);
      }
      member.param_sinfo.push_back(call.out_sinfo);
      source[binding_var_.at(layout.members[k])] = -static_cast<int>(k) - 1;
      members.push_back(std::move(member));
    }
    std::vector<StructInfo> input_sinfo;
    std::vector<std::string> names;
    for (const Expr& input : layout.inputs) {
      input_sinfo.push_back(input->struct_info);
      names.push_back("in" + std::to_string(names.size()));
    }
    try {
      MergeKernels(members, input_sinfo, names, layout.outputs);
      return true;
    } catch (const Error& error) {
      if (error.code() != ErrorCode::kUnimplemented) throw;
      return false;
    }
  }

  /// The bindings that replace |group| (at its root): a call of the group's function, and
  /// with several outputs, the tuple's items bound to the variables they replace. Empty when
  /// the group cannot become a function.
  std::vector<Binding> CallGroup(const Group& group, const Calls& calls, const BindingBlock& block) {
    GroupLayout layout = Layout(group, calls);
    std::optional<std::string> name = AddGroupFunction(layout, calls, block);
    if (!name) return {};
    Expr call = MakeCall(MakeGlobalVar(*name), layout.inputs);
    InferStructInfo(call, &module_);
    if (layout.outputs.size() == 1) return {Binding{block.bindings[layout.members.back()].var, call, nullptr}};
    Var tuple = MakeDataflowVar("lv", call->struct_info);
    std::vector<Binding> bindings = {Binding{tuple, call, nullptr}};
    for (size_t k = 0; k < layout.outputs.size(); ++k) {
      Expr item = MakeTupleGetItem(tuple, static_cast<int>(k));
      InferStructInfo(item, &module_);
      bindings.push_back(Binding{block.bindings[layout.members[layout.outputs[k]]].var, item, nullptr});
    }
    return bindings;
  }

  /// Adds the function holding the group's calls (or finds an equal one); its name, or
  /// nullopt when a symbolic dim of the group is not bound by its inputs' shapes. With
  /// several outputs it returns them as a Tuple.
  std::optional<std::string> AddGroupFunction(const GroupLayout& layout, const Calls& calls,
                                              const BindingBlock& block) {
    const std::vector<size_t>& members = layout.members;
    const std::vector<Expr>& inputs = layout.inputs;
    // The function gets symbolic variables of its own, of the same names.
    SymbolCollector symbols;
    for (const Expr& input : inputs) symbols.VisitStructInfo(input->struct_info);
    std::unordered_set<const PrimVarNode*> bound;
    for (const Expr& input : inputs) {
      for (const PrimExpr& d : *input->struct_info->As<TensorSINode>()->shape) {
        if (d->kind == PrimKind::kVar) bound.insert(static_cast<const PrimVarNode*>(d.get()));
      }
    }
    for (size_t m : members) symbols.VisitStructInfo(calls[m]->out_sinfo);
    PrimVarMap own;
    for (const PrimVar& s : symbols.symbols) {
      if (!bound.count(s.get())) return std::nullopt;
      own[s.get()] = MakePrimVar(s->name, s->dtype);
    }

    std::vector<Var> params;
    std::unordered_map<const ExprNode*, Expr> renamed;
    for (const Expr& input : inputs) {
      const auto* var = input->As<VarNode>();
      params.push_back(MakeVar(var ? var->name : "c", Substitute(input->struct_info, own)));
      renamed[input.get()] = params.back();
    }
    BlockBuilder builder(&module_);
    builder.BeginDataflowBlock();
    std::string name = "fused";
    std::vector<Expr> results;
    for (size_t k = 0; k < members.size(); ++k) {
      const KernelCall& call = *calls[members[k]];
      std::vector<Expr> args;
      for (const Expr& arg : call.args) args.push_back(renamed.at(arg.get()));
      Expr value = MakeOpCall("call_kernel", {MakeGlobalVar(call.kernel_name), MakeTuple(std::move(args))}, {},
                              {Substitute(call.out_sinfo, own)});
      const std::string& hint = block.bindings[members[k]].var->name;
      bool is_output = std::find(layout.outputs.begin(), layout.outputs.end(), k) != layout.outputs.end();
      Var var = is_output ? builder.EmitOutput(value, hint) : builder.Emit(value, hint);
      if (is_output) results.push_back(var);
      renamed[block.bindings[members[k]].var.get()] = var;
      name += "_" + BaseKernelName(call.kernel_name);
    }
    BindingBlock body = builder.EndBlock();
    Expr result = results.size() == 1 ? results[0] : MakeTuple(results);
    InferStructInfo(result, &module_);
    Attrs attrs;
    attrs.Set(kPrimitiveAttr, true);
    Function function = MakeFunction(std::move(params), MakeSeqFromBlocks({std::move(body)}, result),
                                     result->struct_info, std::move(attrs));

    size_t hash = StructuralHash(function);
    for (const std::string& existing : functions_by_hash_[hash]) {
      if (StructuralEqual(module_.FindFunction(existing), function)) return existing;
    }
    std::string unique = module_.UniqueName(name);
    module_.Add(unique, std::move(function));
    functions_by_hash_[hash].push_back(unique);
    return unique;
  }

  IRModule& module_;
  const std::unordered_map<const VarNode*, int>& uses_;
  std::unordered_map<size_t, std::vector<std::string>>& functions_by_hash_;
  /// Per variable, the bindings of the block that use it and how many times.
  std::unordered_map<const VarNode*, std::vector<std::pair<size_t, int>>> use_sites_;
  /// Per binding of the block (by index), its variable.
  std::unordered_map<size_t, const ExprNode*> binding_var_;
};

/// Fuses the dataflow blocks of a sequence, and of the branches of its Ifs.
class FunctionFuser {
 public:
  FunctionFuser(IRModule& module, std::unordered_map<size_t, std::vector<std::string>>& functions_by_hash)
      : module_(module), functions_by_hash_(functions_by_hash) {}

  Function Run(const Function& function) {
    UseCounter counter;
    counter.VisitFunction(*function);
    uses_ = std::move(counter.uses);
    SeqExpr body = FuseSeq(function->body);
    if (body == function->body) return function;
    return MakeFunction(function->params, body, function->ret_sinfo, function->attrs, function->is_pure, function->span);
  }

 private:
  SeqExpr FuseSeq(const SeqExpr& seq) {
    bool changed = false;
    std::vector<BindingBlock> blocks;
    for (const BindingBlock& block : seq->blocks) {
      BindingBlock rewritten;
      rewritten.is_dataflow = block.is_dataflow;
      for (const Binding& binding : block.bindings) rewritten.bindings.push_back(FuseBranches(binding, changed));
      if (block.is_dataflow) {
        size_t before = rewritten.bindings.size();
        rewritten = BlockFuser(module_, uses_, functions_by_hash_).Fuse(rewritten);
        changed |= rewritten.bindings.size() != before;
      }
      blocks.push_back(std::move(rewritten));
    }
    return changed ? MakeSeqExpr(std::move(blocks), seq->body) : seq;
  }

  Binding FuseBranches(const Binding& binding, bool& changed) {
    const auto* branch = binding.value->As<IfNode>();
    if (branch == nullptr) return binding;
    SeqExpr then_branch = FuseSeq(branch->then_branch), else_branch = FuseSeq(branch->else_branch);
    if (then_branch == branch->then_branch && else_branch == branch->else_branch) return binding;
    changed = true;
    Expr value = MakeIf(branch->cond, then_branch, else_branch, binding.value->span);
    value->struct_info = binding.value->struct_info;
    return Binding{binding.var, value, binding.match_sinfo};
  }

  IRModule& module_;
  std::unordered_map<size_t, std::vector<std::string>>& functions_by_hash_;
  std::unordered_map<const VarNode*, int> uses_;
};

bool IsPrimitive(const FunctionNode& function) {
  const AttrValue* value = function.attrs.Find(kPrimitiveAttr);
  return value != nullptr && value->is<bool>() && value->get<bool>();
}

IRModule FuseModule(IRModule module) {
  std::unordered_map<size_t, std::vector<std::string>> functions_by_hash;
  for (const IRModule::Entry& entry : module.entries()) {
    if (entry.function && IsPrimitive(*entry.function)) {
      functions_by_hash[StructuralHash(entry.function)].push_back(entry.name);
    }
  }
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function || IsPrimitive(*entry.function)) continue;
    Function fused = FunctionFuser(module, functions_by_hash).Run(entry.function);
    if (fused != entry.function) module.Add(entry.name, fused);
  }
  return module;
}

}  // namespace

Pass FuseOps() { return CreateModulePass(FuseModule, "FuseOps", 1, {}); }

}  // namespace rxt
