/// LegalizeLibraryCalls: replaces op calls that a kernel library computes faster than generated
/// kernels by what the library's patterns build (call_extern of its functions), folding what
/// follows into the same call when a pattern takes it. What no pattern takes stays for
/// LegalizeOps. Libraries come from a LibraryProvider (plugins: rxt_library_t); the engine
/// (library_match.cc) knows no op and no library.
///
/// Option LegalizeLibraryCalls.libraries: comma-separated library names ("dnnl"); empty or
/// absent: the pass changes nothing.
#include <algorithm>
#include <sstream>

#include "library_match.h"
#include "rxt/support/message_text.h"
#include "rxt/transform/passes.h"

namespace rxt {
namespace {

using namespace library_match;

/// The libraries named in |text|, in its order; an unknown name is an error naming the known.
std::vector<KernelLibrary> ChosenLibraries(const std::string& text, const LibraryProvider& provider) {
  std::vector<KernelLibrary> known = provider.Libraries();
  std::vector<KernelLibrary> chosen;
  std::stringstream stream(text);
  for (std::string name; std::getline(stream, name, ',');) {
    if (name.empty()) continue;
    auto it = std::find_if(known.begin(), known.end(), [&](const KernelLibrary& l) { return l.name == name; });
    if (it == known.end()) {
      std::string list;
      for (const KernelLibrary& l : known) list += (list.empty() ? "" : ", ") + l.name;
      Throw(ErrorCode::kNotFound, "LegalizeLibraryCalls: unknown library ", Quoted(name), " (known: ",
            list.empty() ? "none; a plugin provides them" : list, ")");
    }
    chosen.push_back(*it);
  }
  return chosen;
}

/// One pattern in the order the pass tries them, with the library it belongs to.
struct RankedPattern {
  const KernelLibrary* library;
  const LibraryPattern* pattern;
};

/// Asks |pattern| about |candidate| in a scratch block; the replacement, or nullopt if it
/// declines or what it built cannot go where the calls were.
std::optional<Replacement> Ask(const RankedPattern& ranked, Candidate candidate, const BlockView& view,
                               const std::vector<bool>& dropped, BlockBuilder& builder) {
  const std::string origin = StrCat(ranked.library->origin, ": pattern ", Quoted(ranked.pattern->name));
  for (;;) {
    if (view.is_dataflow()) {
      builder.BeginDataflowBlock();
    } else {
      builder.BeginBindingBlock();
    }
    LibraryRewrite rewrite;
    try {
      rewrite = ranked.pattern->rewrite(candidate.match, builder);
    } catch (...) {
      builder.EndBlock();
      throw;
    }
    BindingBlock built = builder.EndBlock();
    if (rewrite.num_calls == 0) return std::nullopt;
    if (rewrite.num_calls > candidate.match.calls.size() ||
        rewrite.sibling >= static_cast<int>(candidate.match.siblings.size()) || rewrite.sibling < -1) {
      Throw(ErrorCode::kInvalidArgument, origin, ": the rewrite computes ", rewrite.num_calls, " calls of ",
            candidate.match.calls.size(), " and sibling ", rewrite.sibling, " of ", candidate.match.siblings.size());
    }
    std::optional<Replacement> r = Place(view, candidate, rewrite, built, dropped, origin, builder);
    // A sibling whose place comes before a value the call reads: ask again without siblings.
    if (r || rewrite.sibling < 0) return r;
    candidate.match.siblings.clear();
    candidate.sibling_at.clear();
    candidate.sibling_producers_at.clear();
  }
}

/// The block with library calls in place of what they replace; nullopt if nothing matched.
std::optional<BindingBlock> RewriteBlock(const BindingBlock& block,
                                         const std::unordered_map<const ExprNode*, int>& uses,
                                         const std::vector<RankedPattern>& patterns, BlockBuilder& builder) {
  BlockView view(block, uses);
  size_t n = block.bindings.size();
  std::vector<bool> taken(n, false), dropped(n, false);
  std::unordered_map<size_t, Expr> values;                  // binding index -> new value
  std::unordered_map<size_t, std::vector<Binding>> before;  // binding index -> new bindings just before it
  for (size_t i = 0; i < n; ++i) {
    std::string op;
    if (taken[i] || view.OpCallAt(i, &op) == nullptr) continue;
    for (const RankedPattern& ranked : patterns) {
      if (ranked.pattern->anchor != op) continue;
      std::optional<Replacement> r = Ask(ranked, MatchAt(view, i, *ranked.pattern, taken), view, dropped, builder);
      if (!r) continue;
      // A binding belongs to at most one replacement.
      bool clash = false;
      for (size_t d : r->dropped) clash = clash || taken[d];
      for (const auto& v : r->values) clash = clash || taken[v.first];
      if (clash) continue;
      for (size_t d : r->dropped) taken[d] = dropped[d] = true;
      for (auto& [index, value] : r->values) {
        taken[index] = true;
        values[index] = value;
      }
      std::vector<Binding>& slot = before[r->insert_at];
      slot.insert(slot.end(), r->inserted.begin(), r->inserted.end());
      break;
    }
  }
  if (values.empty()) return std::nullopt;
  BindingBlock out;
  out.is_dataflow = block.is_dataflow;
  for (size_t i = 0; i < n; ++i) {
    auto ins = before.find(i);
    if (ins != before.end()) out.bindings.insert(out.bindings.end(), ins->second.begin(), ins->second.end());
    if (dropped[i]) continue;
    Binding binding = block.bindings[i];
    auto it = values.find(i);
    if (it != values.end()) binding.value = it->second;
    out.bindings.push_back(std::move(binding));
  }
  return out;
}

IRModule RewriteModule(IRModule module, const PassContext& context, const LibraryProvider& provider) {
  std::string names = context.GetOption<std::string>("LegalizeLibraryCalls.libraries", "");
  if (names.empty()) return module;
  std::vector<KernelLibrary> libraries = ChosenLibraries(names, provider);
  std::vector<RankedPattern> patterns;
  for (const KernelLibrary& library : libraries) {
    for (const LibraryPattern& pattern : library.patterns) patterns.push_back({&library, &pattern});
  }
  if (patterns.empty()) return module;
  const IRModule input = module;
  BlockBuilder builder(&input);
  for (const IRModule::Entry& entry : input.entries()) {
    if (!entry.function) continue;
    UseCounter counter;
    counter.VisitFunction(*entry.function);
    std::vector<BindingBlock> blocks;
    bool changed = false;
    for (const BindingBlock& block : entry.function->body->blocks) {
      std::optional<BindingBlock> rewritten = RewriteBlock(block, counter.uses, patterns, builder);
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

std::vector<std::string> LibrariesTaking(const std::string& op, const LibraryProvider& provider) {
  std::vector<std::string> names;
  for (const KernelLibrary& library : provider.Libraries()) {
    bool takes = std::any_of(library.patterns.begin(), library.patterns.end(),
                             [&](const LibraryPattern& p) { return p.anchor == op; });
    if (takes) names.push_back(library.name);
  }
  return names;
}

Pass LegalizeLibraryCalls(const LibraryProvider* provider) {
  auto run = [provider](IRModule module, const PassContext& context) {
    return RewriteModule(std::move(module), context, provider != nullptr ? *provider : DefaultLibraryProvider());
  };
  return CreateModulePass(run, "LegalizeLibraryCalls");
}

}  // namespace rxt
