/// LegalizeLibraryCalls: replaces op calls that a kernel library does faster than generated
/// kernels (GEMM, convolution) by call_extern of the library's functions, folding a bias add
/// and a ReLU that follow into the same call (the library applies them as an epilogue). What
/// it does not match stays for LegalizeOps. The functions and their argument conventions are
/// in docs/libraries.md; a plugin provides them when the executable runs (rxt_lib_dnnl).
///
/// Option LegalizeLibraryCalls.libraries: comma-separated library names ("dnnl"); empty or
/// absent: the pass changes nothing.
#include <optional>
#include <sstream>
#include <unordered_map>

#include "rxt/ir/builder.h"
#include "rxt/ir/visitor.h"
#include "rxt/op/registry.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

const std::vector<std::string>& KnownLibraries() {
  static const std::vector<std::string> known = {"dnnl"};
  return known;
}

std::vector<std::string> ParseLibraries(const std::string& text) {
  std::vector<std::string> libraries;
  std::stringstream stream(text);
  std::string name;
  while (std::getline(stream, name, ',')) {
    if (name.empty()) continue;
    bool known = false;
    for (const std::string& k : KnownLibraries()) known = known || k == name;
    if (!known) {
      std::string list;
      for (const std::string& k : KnownLibraries()) list += (list.empty() ? "" : ", ") + k;
      Throw(ErrorCode::kInvalidArgument, "LegalizeLibraryCalls: unknown library '", name, "' (known: ", list, ")");
    }
    libraries.push_back(name);
  }
  return libraries;
}

/// How often each variable is read anywhere in a function.
class UseCounter : public ExprVisitor {
 public:
  void VisitVar(const Var& var) override { ++uses[var.get()]; }
  std::unordered_map<const ExprNode*, int> uses;
};

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

/// call_extern("name", (args...), out_sinfo=out)
Expr CallExtern(const std::string& name, std::vector<Expr> args, const StructInfo& out) {
  return MakeOpCall("call_extern", {MakeStringImm(name), MakeTuple(std::move(args))}, {}, {out});
}

/// One block's bindings, with where each variable is bound and how often it is read.
struct BlockView {
  const std::vector<Binding>& bindings;
  std::unordered_map<const ExprNode*, size_t> index_of;
  const std::unordered_map<const ExprNode*, int>& uses;

  /// The binding that reads |var| if that is its only use in the function and it is in this
  /// block (so folding it into a library call hides nothing).
  std::optional<size_t> SoleUser(const Var& var, size_t after) const {
    auto it = uses.find(var.get());
    if (it == uses.end() || it->second != 1) return std::nullopt;
    for (size_t i = after + 1; i < bindings.size(); ++i) {
      UseCounter reads;
      reads.VisitExpr(bindings[i].value);
      if (reads.uses.count(var.get())) return bindings[i].is_match_cast() ? std::nullopt : std::optional<size_t>(i);
    }
    return std::nullopt;
  }
};

/// A library call that replaces bindings [first .. last] of a chain: the value bound to the
/// last binding's variable; the others are dropped.
struct Replacement {
  std::vector<size_t> dropped;
  size_t last = 0;
  Expr value;
};

/// Follows root -> add(bias) -> relu through sole users. |bias_ok| says whether an add's other
/// operand is a bias the library can apply.
struct Epilogue {
  Expr bias;
  bool relu = false;
  std::vector<size_t> chain;  // binding indices after the root, in order
};

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

/// dnnl.matmul(a, b, flags) / dnnl.matmul_bias(a, b, bias, flags): float32, a (..., M, K)
/// static, b (K, N); bias N elements. flags: bit 2 = ReLU (bits 0-1, transposes, unused here).
std::optional<Replacement> MatchDnnlMatmul(const BlockView& view, size_t root) {
  const CallNode* call = OpCall(view.bindings[root].value, "matmul");
  if (call == nullptr) return std::nullopt;
  const Expr& a = call->args[0];
  const Expr& b = call->args[1];
  const TensorSINode* ta = TensorInfo(a);
  if (ta == nullptr || ta->ndim < 2 || !IsStaticFloat32(a, ta->ndim) || !IsStaticFloat32(b, 2)) return std::nullopt;
  const TensorSINode* out = TensorInfo(view.bindings[root].var);
  if (out == nullptr || out->dtype != DType::kFloat32) return std::nullopt;
  int64_t n = TensorInfo(b)->StaticShape()[1];
  auto bias_ok = [n](const Expr& bias) {
    const TensorSINode* t = TensorInfo(bias);
    if (t == nullptr || t->dtype != DType::kFloat32 || !t->shape || !t->IsStatic() || NumElements(*t) != n) return false;
    std::vector<int64_t> shape = t->StaticShape();
    return !shape.empty() && shape.back() == n;  // (N,), (1, N), ...: one value per column
  };
  Epilogue epilogue = FollowEpilogue(view, root, bias_ok);
  int64_t flags = epilogue.relu ? 4 : 0;
  Replacement r;
  r.dropped.push_back(root);
  r.dropped.insert(r.dropped.end(), epilogue.chain.begin(), epilogue.chain.end());
  r.last = r.dropped.back();
  r.dropped.pop_back();
  StructInfo out_sinfo = view.bindings[r.last].var->struct_info;
  r.value = epilogue.bias ? CallExtern("dnnl.matmul_bias", {a, b, epilogue.bias, Int(flags)}, out_sinfo)
                          : CallExtern("dnnl.matmul", {a, b, Int(flags)}, out_sinfo);
  return r;
}

/// dnnl.conv2d(data, weight, sh, sw, pt, pl, pb, pr, dh, dw, groups, relu) and dnnl.conv2d_bias
/// (bias after weight): NCHW data, OIHW weight, float32, static shapes; bias one value per
/// output channel ((C,), (1, C, 1, 1) or (C, 1, 1)).
std::optional<Replacement> MatchDnnlConv2d(const BlockView& view, size_t root) {
  const CallNode* call = OpCall(view.bindings[root].value, "nn.conv2d");
  if (call == nullptr) return std::nullopt;
  auto str = [&](const char* name) {
    const AttrValue* v = call->attrs.Find(name);
    return v != nullptr && v->is<std::string>() ? v->get<std::string>() : std::string();
  };
  auto ints = [&](const char* name) {
    const AttrValue* v = call->attrs.Find(name);
    return v != nullptr ? v->AsIntList().value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
  };
  if (str("data_layout") != "NCHW" || str("kernel_layout") != "OIHW") return std::nullopt;
  const Expr& data = call->args[0];
  const Expr& weight = call->args[1];
  const TensorSINode* out = TensorInfo(view.bindings[root].var);
  if (!IsStaticFloat32(data, 4) || !IsStaticFloat32(weight, 4) || out == nullptr || out->dtype != DType::kFloat32) {
    return std::nullopt;
  }
  std::vector<int64_t> strides = ints("strides"), dilation = ints("dilation"), padding = ints("padding");
  if (strides.size() == 1) strides = {strides[0], strides[0]};
  if (dilation.size() == 1) dilation = {dilation[0], dilation[0]};
  if (padding.size() == 1) padding = {padding[0], padding[0], padding[0], padding[0]};
  if (padding.size() == 2) padding = {padding[0], padding[1], padding[0], padding[1]};
  const AttrValue* groups_attr = call->attrs.Find("groups");
  if (strides.size() != 2 || dilation.size() != 2 || padding.size() != 4 || groups_attr == nullptr ||
      !groups_attr->is<int64_t>()) {
    return std::nullopt;
  }
  int64_t channels = TensorInfo(weight)->StaticShape()[0];
  auto bias_ok = [channels](const Expr& bias) {
    const TensorSINode* t = TensorInfo(bias);
    if (t == nullptr || t->dtype != DType::kFloat32 || !t->shape || !t->IsStatic() || NumElements(*t) != channels) {
      return false;
    }
    std::vector<int64_t> shape = t->StaticShape();
    // Broadcast against (N, C, H, W): C must sit at axis 1 counted from the right end of 4.
    size_t c_axis = shape.size() >= 3 ? shape.size() - 3 : shape.size() == 1 ? 0 : SIZE_MAX;
    return c_axis != SIZE_MAX && shape[c_axis] == channels;
  };
  Epilogue epilogue = FollowEpilogue(view, root, bias_ok);
  std::vector<Expr> args = {data, weight};
  if (epilogue.bias) args.push_back(epilogue.bias);
  for (int64_t v : {strides[0], strides[1], padding[0], padding[1], padding[2], padding[3], dilation[0], dilation[1],
                    groups_attr->get<int64_t>(), int64_t{epilogue.relu ? 1 : 0}}) {
    args.push_back(Int(v));
  }
  Replacement r;
  r.dropped.push_back(root);
  r.dropped.insert(r.dropped.end(), epilogue.chain.begin(), epilogue.chain.end());
  r.last = r.dropped.back();
  r.dropped.pop_back();
  StructInfo out_sinfo = view.bindings[r.last].var->struct_info;
  r.value = CallExtern(epilogue.bias ? "dnnl.conv2d_bias" : "dnnl.conv2d", std::move(args), out_sinfo);
  return r;
}

using Matcher = std::optional<Replacement> (*)(const BlockView&, size_t);

struct LibraryRule {
  const char* library;
  Matcher match;
};

const std::vector<LibraryRule>& Rules() {
  static const std::vector<LibraryRule> rules = {{"dnnl", MatchDnnlMatmul}, {"dnnl", MatchDnnlConv2d}};
  return rules;
}

/// The block with library calls in place of what they replace; nullopt if nothing matched.
std::optional<BindingBlock> RewriteBlock(const BindingBlock& block, const std::unordered_map<const ExprNode*, int>& uses,
                          const std::vector<Matcher>& matchers, BlockBuilder& builder) {
  BlockView view{block.bindings, {}, uses};
  std::vector<bool> dropped(block.bindings.size(), false);
  std::unordered_map<size_t, Expr> replaced;  // binding index -> new value
  for (size_t i = 0; i < block.bindings.size(); ++i) {
    if (dropped[i] || replaced.count(i) || block.bindings[i].is_match_cast()) continue;
    for (Matcher match : matchers) {
      std::optional<Replacement> r = match(view, i);
      if (!r) continue;
      for (size_t d : r->dropped) dropped[d] = true;
      replaced[r->last] = builder.Normalize(r->value);
      break;
    }
  }
  if (replaced.empty()) return std::nullopt;
  BindingBlock out;
  out.is_dataflow = block.is_dataflow;
  for (size_t i = 0; i < block.bindings.size(); ++i) {
    if (dropped[i]) continue;
    Binding binding = block.bindings[i];
    auto it = replaced.find(i);
    if (it != replaced.end()) binding.value = it->second;
    out.bindings.push_back(std::move(binding));
  }
  return out;
}

IRModule RewriteModule(IRModule module, const PassContext& context) {
  std::vector<std::string> libraries = ParseLibraries(context.GetOption<std::string>("LegalizeLibraryCalls.libraries", ""));
  std::vector<Matcher> matchers;
  for (const LibraryRule& rule : Rules()) {
    for (const std::string& library : libraries) {
      if (library == rule.library) matchers.push_back(rule.match);
    }
  }
  if (matchers.empty()) return module;
  const IRModule input = module;
  BlockBuilder builder(&input);
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    UseCounter counter;
    counter.VisitFunction(*entry.function);
    std::vector<BindingBlock> blocks;
    bool changed = false;
    for (const BindingBlock& block : entry.function->body->blocks) {
      std::optional<BindingBlock> rewritten = RewriteBlock(block, counter.uses, matchers, builder);
      changed = changed || rewritten.has_value();
      blocks.push_back(rewritten ? std::move(*rewritten) : block);
    }
    if (!changed) continue;
    const FunctionNode& f = *entry.function;
    module.Add(entry.name, MakeFunction(f.params, MakeSeqExpr(std::move(blocks), f.body->body), f.ret_sinfo, f.attrs,
                                        f.is_pure, f.span));
  }
  return module;
}

}  // namespace

Pass LegalizeLibraryCalls() { return CreateModulePass(RewriteModule, "LegalizeLibraryCalls"); }

}  // namespace rxt
