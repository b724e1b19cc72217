/// The shared pieces of LegalizeLibraryCalls' matchers (legalize_library_match.h).
#include "legalize_library_match.h"

namespace rxt::legalize_library {

const TensorSINode* TensorInfo(const Expr& e) {
  return e->struct_info ? e->struct_info->As<TensorSINode>() : nullptr;
}

const CallNode* OpCall(const Expr& value, const char* op_name) {
  const CallNode* call = value->As<CallNode>();
  if (call == nullptr) return nullptr;
  const OpDef* op = AsOp(call->callee);
  return op != nullptr && op->name() == op_name ? call : nullptr;
}

bool IsStaticFloat32(const Expr& e, int ndim) {
  const TensorSINode* t = TensorInfo(e);
  return t != nullptr && t->dtype == DType::kFloat32 && t->ndim == ndim && t->shape && t->IsStatic();
}

int64_t NumElements(const TensorSINode& t) {
  int64_t n = 1;
  for (int64_t d : t.StaticShape()) n *= d;
  return n;
}

Expr Int(int64_t v) { return MakePrimValue(IntImm(v)); }

Expr CallExtern(const std::string& name, std::vector<Expr> args, std::vector<StructInfo> outs) {
  return MakeOpCall("call_extern", {MakeStringImm(name), MakeTuple(std::move(args))}, {}, std::move(outs));
}

std::string StringAttr(const CallNode& call, const char* name) {
  const AttrValue* v = call.attrs.Find(name);
  return v != nullptr && v->is<std::string>() ? v->get<std::string>() : std::string();
}

std::vector<int64_t> IntsAttr(const CallNode& call, const char* name) {
  const AttrValue* v = call.attrs.Find(name);
  return v != nullptr ? v->AsIntList().value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
}

std::vector<int64_t> PairOf(std::vector<int64_t> v) {
  if (v.size() == 1) return {v[0], v[0]};
  return v.size() == 2 ? v : std::vector<int64_t>{};
}

std::vector<int64_t> PaddingOf(std::vector<int64_t> v) {
  if (v.size() == 1) return {v[0], v[0], v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1], v[0], v[1]};
  return v.size() == 4 ? v : std::vector<int64_t>{};
}

BlockView::BlockView(const BindingBlock& block, const std::unordered_map<const ExprNode*, int>& use_counts)
    : bindings(block.bindings), is_dataflow(block.is_dataflow), uses(use_counts) {
  for (size_t i = 0; i < bindings.size(); ++i) index_of[bindings[i].var.get()] = i;
}

std::optional<size_t> BlockView::SoleUser(const Var& var, size_t after) const {
  auto it = uses.find(var.get());
  if (it == uses.end() || it->second != 1) return std::nullopt;
  for (size_t i = after + 1; i < bindings.size(); ++i) {
    UseCounter reads;
    reads.VisitExpr(bindings[i].value);
    if (reads.uses.count(var.get())) return bindings[i].is_match_cast() ? std::nullopt : std::optional<size_t>(i);
  }
  return std::nullopt;
}

std::optional<size_t> BlockView::BindingOf(const Expr& e) const {
  auto it = index_of.find(e.get());
  if (it == index_of.end()) return std::nullopt;
  return it->second;
}

Replacement Replacement::Chain(const std::vector<size_t>& chain, Expr value) {
  Replacement r;
  r.dropped.assign(chain.begin(), chain.end() - 1);
  r.values.emplace_back(chain.back(), std::move(value));
  return r;
}

Epilogue FollowEpilogue(const BlockView& view, size_t root, const std::function<bool(const Expr&)>& bias_ok) {
  Epilogue epilogue;
  size_t current = root;
  if (auto user = view.SoleUser(view.bindings[current].var, current)) {
    if (const CallNode* add = OpCall(view.bindings[*user].value, "add")) {
      const Expr& mine = view.bindings[current].var;
      Expr other = add->args[0] == mine ? add->args[1] : add->args[1] == mine ? add->args[0] : nullptr;
      const TensorSINode* out = TensorInfo(view.bindings[*user].var);
      const TensorSINode* in = TensorInfo(mine);
      bool same_shape = out && in && out->IsStatic() && in->IsStatic() && out->StaticShape() == in->StaticShape();
      if (other && other != mine && same_shape && bias_ok(other)) {
        epilogue.bias = other;
        epilogue.chain.push_back(*user);
        current = *user;
      }
    }
  }
  if (auto user = view.SoleUser(view.bindings[current].var, current)) {
    if (OpCall(view.bindings[*user].value, "nn.relu")) {
      epilogue.relu = true;
      epilogue.chain.push_back(*user);
    }
  }
  return epilogue;
}

}  // namespace rxt::legalize_library
