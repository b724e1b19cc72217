// The printer's machinery, shared by printer.cc (modules, Relax functions), print_kernel.cc
// (kernels, scalar expressions) and print_value.cc (struct info, attributes, constants).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rxt/ir/printer.h"

namespace rxt::text {

/// Gives every variable (keyed by its node) a printable name that no other variable visible
/// at that point has: the variable's own name when free, else name_1, name_2...
/// Scopes mirror the parser's: a name may be reused once the variable holding it is gone.
class Namer {
 public:
  /// |bare|: names print without a sigil, so they must avoid reserved words.
  explicit Namer(bool bare) : bare_(bare) {}

  void PushScope() { scopes_.emplace_back(); }
  void PopScope();
  /// Names |key| in the innermost scope.
  const std::string& Define(const void* key, std::string_view hint) { return DefineIn(scopes_.size() - 1, key, hint); }
  /// Names |key| in the outermost scope (symbolic variables live in the whole function).
  const std::string& DefineOuter(const void* key, std::string_view hint) { return DefineIn(0, key, hint); }
  /// The name of |key| if it is visible; else nullptr.
  const std::string* Find(const void* key) const;

 private:
  const std::string& DefineIn(size_t level, const void* key, std::string_view hint);
  bool Taken(const std::string& name) const;

  bool bare_;
  std::unordered_map<const void*, std::string> names_;
  std::unordered_map<std::string, int> visible_;  // name -> how many visible keys hold it
  /// Per base name, a suffix below which every "base_i" is taken: many variables of one name
  /// (a pass's "lv") are named in linear time. Names are freed only by PopScope, which clears it.
  std::unordered_map<std::string, int> next_suffix_;
  std::vector<std::vector<const void*>> scopes_ = std::vector<std::vector<const void*>>(1);
};

/// A printed scalar expression and the precedence of its outermost operator.
struct PrimText {
  std::string text;
  int precedence;
};

class TextPrinter {
 public:
  /// |standalone|: printing a fragment for a message; variables print by their own names
  /// and large constants as a summary instead of a metadata reference.
  TextPrinter(const PrintOptions& options, bool standalone) : options_(options), standalone_(standalone) {}

  /// Bounds the text for a message: once |chars| characters are out, the rest is left out
  /// (lists stop early, nested parts print nothing), so printing takes time proportional to
  /// |chars| whatever the size of what is printed. Bounded() then cuts the text to |chars|
  /// and ends it with an ellipsis.
  void SetBudget(size_t chars) { budget_ = chars; }
  std::string Bounded(std::string text) const;

  // printer.cc
  std::string Module(const IRModule& module);
  void Function(const std::string& name, const FunctionNode& function);
  std::string Expr(const rxt::Expr& expr);
  std::string Output() const { return out_; }

  // print_kernel.cc
  void Kernel(const std::string& name, const KernelFunctionNode& kernel);
  void StmtList(const Stmt& stmt);
  PrimText Prim(const PrimExpr& expr);
  std::string PrimString(const PrimExpr& expr) { return Prim(expr).text; }

  // print_value.cc
  std::string SInfo(const StructInfo& sinfo);
  /// SInfo appended to |out| (stops once |out| and what was printed before it pass the budget).
  void AppendSInfo(const StructInfo& sinfo, std::string& out);
  std::string ShapeTuple(const std::vector<PrimExpr>& dims);
  std::string AttrValueText(const AttrValue& value);
  /// {name = value, ...} (module and function attributes).
  std::string AttrsBlock(const Attrs& attrs);
  std::string Constant(const Tensor& tensor);
  /// The metadata section (empty when no constant went there).
  std::string Metadata() const;

 private:
  void Line(const std::string& text);
  /// "header(p1, p2, ...)tail", wrapped after commas when longer than 100 columns.
  void Header(const std::string& head, const std::vector<std::string>& params, const std::string& tail);
  std::string VarName(const VarNode* var);
  std::string GlobalName(const std::string& name) const;
  void SeqBody(const SeqExprNode& seq, const char* terminator);
  void Binding(const rxt::Binding& binding);
  /// Whether the parser infers exactly the variable's struct info from the binding's value,
  /// for a tuple bound to a tuple literal, a tuple item or a variable (docs/ir.md).
  bool AnnotationIsInferred(const rxt::Binding& binding);
  std::string Call(const CallNode& call);
  std::string ExprText(const rxt::Expr& expr);
  /// |text|, counted against the budget.
  std::string Counted(std::string text);
  /// A string literal (bounded by MessageText under a budget).
  std::string StringText(const std::string& value) const;
  std::string If(const IfNode& node);

  void Stmt(const rxt::Stmt& stmt);
  std::string BufferName(const BufferNode* buffer) const;
  std::string BufferDecl(const BufferNode& buffer);
  std::string PrimVarName(const PrimVarNode* var);

  /// Whether the budget is used up (|pending| more characters counted as printed).
  bool Exhausted(size_t pending = 0) const { return printed_ + pending >= budget_; }

  const PrintOptions options_;
  const bool standalone_;
  size_t budget_ = SIZE_MAX;
  size_t printed_ = 0;  // characters of leaves and punctuation counted against the budget
  std::string out_;
  int indent_ = 0;
  Namer vars_{false};         // %x: Relax variables of the current function
  Namer prim_vars_{true};     // n, i, vi: symbolic dims, loop and block variables
  Namer buffers_{true};       // X, Y: kernel buffers
  std::vector<Tensor> metadata_;
};

}  // namespace rxt::text
