/// Normalize: rebuilds every Relax function through the BlockBuilder, so that every value
/// has its struct info, call arguments are leaves (nested calls get bound to fresh variables
/// first), adjacent non-dataflow blocks are merged and empty blocks are dropped. Functions
/// built by hand, or by a pass that skipped the builder, come out as the parser would
/// build them. A function without a return struct info gets its body's.
#include "rxt/ir/mutator.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

class Normalizer : public ExprMutator {
 public:
  Function VisitFunction(const Function& function) override {
    Function out = ExprMutator::VisitFunction(function);
    if (out->ret_sinfo != nullptr) return out;
    return MakeFunction(out->params, out->body, GetStructInfo(out->body->body), out->attrs, out->is_pure, out->span);
  }

  SeqExpr VisitSeqExpr(const SeqExpr& seq) override {
    SeqExpr out = ExprMutator::VisitSeqExpr(seq);
    if (!HasAdjacentBindingBlocks(*out)) return out;
    std::vector<BindingBlock> merged;
    for (const BindingBlock& block : out->blocks) {
      if (!block.is_dataflow && !merged.empty() && !merged.back().is_dataflow) {
        auto& bindings = merged.back().bindings;
        bindings.insert(bindings.end(), block.bindings.begin(), block.bindings.end());
      } else {
        merged.push_back(block);
      }
    }
    return MakeSeqFromBlocks(std::move(merged), out->body);
  }

 private:
  static bool HasAdjacentBindingBlocks(const SeqExprNode& seq) {
    for (size_t i = 1; i < seq.blocks.size(); ++i) {
      if (!seq.blocks[i].is_dataflow && !seq.blocks[i - 1].is_dataflow) return true;
    }
    return false;
  }
};

}  // namespace

Pass Normalize() {
  return CreateModulePass([](IRModule module) { return Normalizer().MutateModule(std::move(module)); }, "Normalize");
}

}  // namespace rxt
