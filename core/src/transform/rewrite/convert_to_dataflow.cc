/// ConvertToDataflow: outside dataflow blocks, every maximal run of at least min_size
/// (option ConvertToDataflow.min_size, default 2) consecutive pure bindings (see purity.h;
/// an If never joins a run) becomes a dataflow block. A variable of the run that is used
/// after it (in a later binding, the result, another branch) stays an ordinary variable: an
/// output of the new block; the others become dataflow variables. Existing dataflow blocks
/// and the bindings between runs are left as they are.
#include <algorithm>
#include <unordered_map>

#include "transform/analysis/purity.h"
#include "rxt/ir/mutator.h"
#include "rxt/ir/visitor.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  std::unordered_map<const VarNode*, int> uses;
};

struct Segment {
  size_t begin, end;  // bindings [begin, end) of one block
  bool to_dataflow;
};

bool SameBindings(const BindingBlock& a, const std::vector<Binding>& b) {
  if (a.bindings.size() != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    if (a.bindings[i].var != b[i].var || a.bindings[i].value != b[i].value) return false;
  }
  return true;
}

class DataflowConverter : public ExprMutator {
 public:
  DataflowConverter(const IRModule& module, const FunctionNode& function, size_t min_size)
      : ExprMutator(&module), module_(module), min_size_(min_size) {
    function_uses_.VisitFunction(function);
  }

  SeqExpr VisitSeqExpr(const SeqExpr& seq) override {
    std::vector<BindingBlock> blocks;
    bool changed = false;
    for (const BindingBlock& block : seq->blocks) {
      if (block.is_dataflow) {
        blocks.push_back(VisitBindingBlock(block));
        changed |= !SameBindings(blocks.back(), block.bindings);
        continue;
      }
      std::vector<Segment> segments = Split(block);
      for (const Segment& segment : segments) {
        std::vector<Binding> original(block.bindings.begin() + segment.begin, block.bindings.begin() + segment.end);
        if (segment.to_dataflow) {
          ConvertLocalVars(original);
          builder_.BeginDataflowBlock();
        } else {
          builder_.BeginBindingBlock();
        }
        for (const Binding& binding : original) VisitBinding(binding);
        blocks.push_back(builder_.EndBlock());
        changed |= segment.to_dataflow || !SameBindings(blocks.back(), original);
      }
    }
    builder_.BeginBindingBlock();
    Expr body = VisitExpr(seq->body);
    BindingBlock prologue = builder_.EndBlock();
    if (!prologue.bindings.empty()) {
      blocks.push_back(std::move(prologue));
      changed = true;
    }
    if (!changed && body == seq->body) return seq;
    return MakeSeqFromBlocks(std::move(blocks), std::move(body));
  }

  Var VisitVarDef(const Var& var) override {
    auto it = converted_.find(var.get());
    return it == converted_.end() ? ExprMutator::VisitVarDef(var) : it->second;
  }

 private:
  bool Convertible(const Binding& binding) const {
    return !binding.var->is_dataflow && binding.value->kind != ExprKind::kIf && IsPure(binding.value, module_);
  }

  /// Maximal runs of convertible bindings long enough to convert; the rest in between.
  std::vector<Segment> Split(const BindingBlock& block) const {
    std::vector<Segment> segments;
    auto add_plain = [&](size_t begin, size_t end) {
      if (begin == end) return;
      if (!segments.empty() && !segments.back().to_dataflow) {
        segments.back().end = end;
      } else {
        segments.push_back(Segment{begin, end, false});
      }
    };
    size_t i = 0;
    while (i < block.bindings.size()) {
      size_t j = i;
      while (j < block.bindings.size() && Convertible(block.bindings[j])) ++j;
      if (j - i >= min_size_) {
        segments.push_back(Segment{i, j, true});
        i = j;
      } else {
        size_t end = std::max(j, i + 1);
        add_plain(i, end);
        i = end;
      }
    }
    return segments;
  }

  /// Decides which variables of a run become dataflow variables: those used only inside it.
  void ConvertLocalVars(const std::vector<Binding>& run) {
    UseCounter inside;
    for (const Binding& binding : run) inside.VisitExpr(binding.value);
    for (const Binding& binding : run) {
      const VarNode* var = binding.var.get();
      if (function_uses_.uses[var] > inside.uses[var]) continue;  // used after the run: an output
      Var local = MakeDataflowVar(var->name, var->struct_info, var->span);
      converted_[var] = local;
      var_remap_[var] = local;
    }
  }

  const IRModule& module_;
  size_t min_size_;
  UseCounter function_uses_;
  std::unordered_map<const VarNode*, Var> converted_;
};

IRModule ConvertModuleToDataflow(IRModule module, const PassContext& context) {
  int64_t min_size = context.GetOption<int64_t>("ConvertToDataflow.min_size", 2);
  const IRModule input = module;
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    DataflowConverter converter(module, *entry.function, static_cast<size_t>(std::max<int64_t>(min_size, 1)));
    Function rewritten = converter.VisitFunction(entry.function);
    if (rewritten != entry.function) module.Add(entry.name, rewritten);
  }
  return module;
}

}  // namespace

Pass ConvertToDataflow() { return CreateModulePass(ConvertModuleToDataflow, "ConvertToDataflow", 1); }

}  // namespace rxt
