// BlockBuilder: builds Relax functions binding by binding, normalizing as it goes:
// every emitted expression gets its struct info inferred (ops through the registry,
// module functions through their signatures), and nested non-leaf arguments are bound to
// fresh variables first (A-normal form).
#pragma once

#include <string>
#include <vector>

#include "rxt/ir/expr.h"
#include "rxt/ir/module.h"

namespace rxt {

/// Infers and stores the struct info of |e|, whose sub-expressions must already have
/// theirs (leaf arguments). |module| resolves calls to module functions (may be null).
/// Returns e->struct_info. Throws kInvalidArgument on a bad call, prefixed with e's span.
StructInfo InferStructInfo(const Expr& e, const IRModule* module);

class BlockBuilder {
 public:
  /// |module| (may be null) resolves calls to module functions; it must outlive the builder.
  explicit BlockBuilder(const IRModule* module = nullptr) : module_(module) {}

  void BeginDataflowBlock();
  void BeginBindingBlock();
  /// Ends the current block and returns it.
  BindingBlock EndBlock();
  bool InDataflowBlock() const;

  /// Normalizes |e| (infers struct info, binds nested non-leaf arguments first) and returns
  /// the normalized expression (possibly a new node).
  Expr Normalize(const Expr& e);
  /// Normalizes |value| and binds it to a new variable (a dataflow variable inside a
  /// dataflow block). |annotation|, when given, must be compatible with the inferred
  /// struct info and becomes the variable's struct info.
  Var Emit(const Expr& value, const std::string& name_hint = "lv", StructInfo annotation = nullptr,
           Span span = {});
  /// Binds to a non-dataflow variable even inside a dataflow block (the block's output).
  Var EmitOutput(const Expr& value, const std::string& name_hint = "gv", StructInfo annotation = nullptr,
                 Span span = {});
  /// var = match_cast(value, sinfo)
  Var EmitMatchCast(const Expr& value, StructInfo sinfo, const std::string& name_hint = "lv",
                    bool as_output = false, Span span = {});
  /// Appends an already-built binding (its value must be normalized).
  void AddBinding(Binding binding);

  /// Emits with a caller-chosen variable (e.g. the parser's named vars); |var|'s struct info
  /// must be compatible with the value's.
  void EmitBinding(const Var& var, const Expr& value, Span span = {});

  const IRModule* module() const { return module_; }

 private:
  Expr NormalizeArgument(const Expr& arg);
  Var EmitImpl(const Expr& value, const std::string& name_hint, StructInfo annotation, bool as_output,
               Span span);
  const IRModule* module_;
  std::vector<BindingBlock> blocks_;  // a stack of open blocks (If branches nest)
  int fresh_counter_ = 0;
};

/// Builds a SeqExpr from blocks, dropping empty ones.
SeqExpr MakeSeqFromBlocks(std::vector<BindingBlock> blocks, Expr body);

}  // namespace rxt
