/// LegalizeLibraryCalls: replaces op calls that a kernel library does faster than generated
/// kernels (GEMM, convolution and its gradients, the gradient of a tiling max pooling) by call_extern of the library's functions,
/// folding what follows into the same call when the library can (a bias add, a ReLU, a max
/// pooling). What it does not match stays for LegalizeOps. The functions and their argument
/// conventions are in docs/libraries.md; a plugin provides them when the executable runs
/// (rxt_lib_dnnl). The matchers are in legalize_library_*.cc.
///
/// Option LegalizeLibraryCalls.libraries: comma-separated library names ("dnnl"); empty or
/// absent: the pass changes nothing.
#include <algorithm>
#include <sstream>

#include "legalize_library_match.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

using namespace legalize_library;

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

struct LibraryRule {
  const char* library;
  const char* op;  // the op of the binding the matcher starts from
  Matcher match;
};

/// In order of preference.
const std::vector<LibraryRule>& Rules() {
  static const std::vector<LibraryRule> rules = {{"dnnl", "matmul", MatchDnnlMatmul},
                                                 {"dnnl", "nn.conv2d", MatchDnnlConv2d},
                                                 {"dnnl", "nn.conv2d_backward_data", MatchDnnlConv2dBackwardData},
                                                 {"dnnl", "nn.conv2d_transpose", MatchDnnlConv2dBackwardData},
                                                 {"dnnl", "nn.conv2d_backward_weight", MatchDnnlConv2dBackwardWeights},
                                                 {"dnnl", "nn.max_pool2d_backward", MatchDnnlMaxPool2dBackward},
                                                 {"dnnl", "nn.max_pool2d", MatchDnnlMaxPool2d}};
  return rules;
}

/// The block with library calls in place of what they replace; nullopt if nothing matched.
std::optional<BindingBlock> RewriteBlock(const BindingBlock& block, const std::unordered_map<const ExprNode*, int>& uses,
                                         const std::vector<Matcher>& matchers, BlockBuilder& builder) {
  BlockView view(block, uses);
  size_t n = block.bindings.size();
  std::vector<bool> touched(n, false), dropped(n, false);
  std::unordered_map<size_t, Expr> values;      // binding index -> new value
  std::unordered_map<size_t, Binding> inserted;  // binding index -> a new binding just before it
  for (size_t i = 0; i < n; ++i) {
    if (touched[i] || block.bindings[i].is_match_cast()) continue;
    for (const Matcher& match : matchers) {
      std::optional<Replacement> r = match(view, i, builder);
      if (!r) continue;
      // A binding belongs to at most one replacement.
      bool clash = r->inserted && inserted.count(r->inserted->first);
      for (size_t d : r->dropped) clash = clash || touched[d];
      for (const auto& v : r->values) clash = clash || touched[v.first];
      if (clash) continue;
      for (size_t d : r->dropped) touched[d] = dropped[d] = true;
      for (auto& [index, value] : r->values) {
        touched[index] = true;
        values[index] = builder.Normalize(value);
      }
      if (r->inserted) inserted.emplace(r->inserted->first, r->inserted->second);
      break;
    }
  }
  if (values.empty()) return std::nullopt;
  BindingBlock out;
  out.is_dataflow = block.is_dataflow;
  for (size_t i = 0; i < n; ++i) {
    auto ins = inserted.find(i);
    if (ins != inserted.end()) out.bindings.push_back(ins->second);
    if (dropped[i]) continue;
    Binding binding = block.bindings[i];
    auto it = values.find(i);
    if (it != values.end()) binding.value = it->second;
    out.bindings.push_back(std::move(binding));
  }
  return out;
}

IRModule RewriteModule(IRModule module, const PassContext& context) {
  std::vector<std::string> libraries = ParseLibraries(context.GetOption<std::string>("LegalizeLibraryCalls.libraries", ""));
  std::vector<Matcher> matchers;
  for (const LibraryRule& rule : Rules()) {
    if (std::find(libraries.begin(), libraries.end(), rule.library) != libraries.end()) matchers.push_back(rule.match);
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

std::vector<std::string> LibrariesTaking(const std::string& op) {
  std::vector<std::string> libraries;
  for (const LibraryRule& rule : Rules()) {
    if (rule.op == op && std::find(libraries.begin(), libraries.end(), rule.library) == libraries.end()) {
      libraries.push_back(rule.library);
    }
  }
  return libraries;
}

Pass LegalizeLibraryCalls() { return CreateModulePass(RewriteModule, "LegalizeLibraryCalls"); }

}  // namespace rxt
