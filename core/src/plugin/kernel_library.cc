// Kernel libraries of plugins (rxt_library_t) as the KernelLibrary values LegalizeLibraryCalls
// takes (transform/legalize/library_patterns.h): each pattern's rewrite runs the plugin's
// callback over an IRBuilderHost, and what goes wrong is an rxt::Error naming the library, its
// plugin and the pattern.
#include "kernel_library.h"

#include <deque>

#include "rxt/plugin/ir_builder_host.h"
#include "rxt/plugin/ir_generators.h"

namespace rxt::plugin_detail {
namespace {

std::vector<std::string> OpNames(const char* const* list) {
  std::vector<std::string> names;
  for (; list != nullptr && *list != nullptr; ++list) names.emplace_back(*list);
  return names;
}

/// The C view of |calls|: handles of |host| for each call, result and producer; the producer
/// arrays live in |producers|.
std::vector<rxt_library_call_t> CallViews(IRBuilderHost& host, const std::vector<LibraryCall>& calls,
                                          std::deque<std::vector<rxt_ir_expr_t>>& producers) {
  std::vector<rxt_library_call_t> views;
  for (const LibraryCall& call : calls) {
    std::vector<rxt_ir_expr_t>& handles = producers.emplace_back();
    for (const Expr& p : call.producers) handles.push_back(host.Wrap(p));
    views.push_back({host.Wrap(call.call), host.Wrap(call.result), handles.data()});
  }
  return views;
}

LibraryRewrite Rewrite(const PluginItem& item, const rxt_library_pattern_t& pattern, const std::string& origin,
                       const LibraryMatch& match, BlockBuilder& builder) {
  IRBuilderHost host(builder);
  std::deque<std::vector<rxt_ir_expr_t>> producers;  // the views point into it
  std::vector<rxt_library_call_t> calls = CallViews(host, match.calls, producers);
  std::vector<rxt_library_call_t> siblings = CallViews(host, match.siblings, producers);
  rxt_library_match_t view{sizeof(rxt_library_match_t), calls.data(), static_cast<int>(calls.size()),
                           siblings.data(), static_cast<int>(siblings.size())};
  rxt_library_rewrite_t out{sizeof(rxt_library_rewrite_t), nullptr, 0, -1};
  ThrowIfGeneratorFailed(origin, host, pattern.rewrite(item.library->state, IRBuilderHost::Api(), host.handle(),
                                                       &view, &out));
  if (out.value == nullptr) return {};  // declined
  Expr value = host.Unwrap(out.value);
  if (value == nullptr || value->As<VarNode>() == nullptr) {
    Throw(ErrorCode::kInvalidArgument, origin, ": the replacement is not a variable the rewrite bound");
  }
  if (out.num_calls < 1 || out.num_calls > view.num_calls || out.sibling < -1 || out.sibling >= view.num_siblings) {
    Throw(ErrorCode::kInvalidArgument, origin, ": the rewrite computes ", out.num_calls, " calls of ", view.num_calls,
          " and sibling ", out.sibling, " of ", view.num_siblings);
  }
  return {static_cast<size_t>(out.num_calls), out.sibling, std::static_pointer_cast<const VarNode>(value)};
}

}  // namespace

KernelLibrary KernelLibraryOf(const PluginItem& item) {
  KernelLibrary library;
  library.name = item.name;
  library.origin = DescribeItem(item);
  const rxt_library_t& vtable = *item.library;
  for (size_t i = 0; i < vtable.num_patterns; ++i) {
    const rxt_library_pattern_t& pattern = *vtable.patterns[i];
    LibraryPattern p;
    p.name = pattern.name;
    p.anchor = pattern.anchor;
    p.epilogue = OpNames(pattern.epilogue);
    p.input_ops = OpNames(pattern.input_ops);
    p.sibling_ops = OpNames(pattern.sibling_ops);
    std::string origin = StrCat(library.origin, ": pattern '", pattern.name, "'");
    p.rewrite = [item, &pattern, origin](const LibraryMatch& match, BlockBuilder& builder) {
      return Rewrite(item, pattern, origin, match, builder);
    };
    library.patterns.push_back(std::move(p));
  }
  return library;
}

}  // namespace rxt::plugin_detail
