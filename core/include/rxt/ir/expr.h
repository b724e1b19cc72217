// Relax expressions, bindings, blocks and functions.
//
// Nodes are immutable and shared (std::shared_ptr<const ...>); variables are identified by
// their node, never by name. The one exception to immutability is `struct_info`, which the
// BlockBuilder fills in once when it normalizes a freshly built expression.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rxt/ir/attrs.h"
#include "rxt/ir/prim_expr.h"
#include "rxt/ir/struct_info.h"
#include "rxt/runtime/tensor.h"
#include "rxt/support/error.h"

namespace rxt {

enum class ExprKind : uint8_t {
  kVar,           // %x (a DataflowVar when is_dataflow)
  kConstant,      // tensor data
  kTuple,         // (a, b)
  kTupleGetItem,  // t[0]
  kCall,          // op(args, attrs) | @func(args) | call_kernel(...) | call_extern(...)
  kShapeExpr,     // shape(1, n)
  kPrimValue,     // prim(n)
  kStringImm,     // "text"
  kIf,            // if c { ... } else { ... }
  kOp,            // a registered operator, as the callee of a Call
  kGlobalVar,     // @name: a function or kernel function of the module
  kExternFunc,    // a named external function resolved at run time
};

class OpDef;  // rxt/ir/op.h

struct ExprNode {
  ExprNode(ExprKind k, Span s) : kind(k), span(std::move(s)) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  const Span span;
  /// Filled in by normalization (BlockBuilder); null before.
  mutable StructInfo struct_info;

  template <typename T>
  const T* As() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
};
using Expr = std::shared_ptr<const ExprNode>;

struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kVar;
  VarNode(std::string n, bool dataflow, StructInfo sinfo, Span s = {})
      : ExprNode(kKind, std::move(s)), name(std::move(n)), is_dataflow(dataflow) {
    struct_info = std::move(sinfo);
  }
  const std::string name;  // a hint for printing; identity is the node
  const bool is_dataflow;  // only visible inside its dataflow block
};
using Var = std::shared_ptr<const VarNode>;

struct ConstantNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kConstant;
  ConstantNode(Tensor d, Span s = {}) : ExprNode(kKind, std::move(s)), data(std::move(d)) {}
  const Tensor data;
};

struct TupleNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kTuple;
  TupleNode(std::vector<Expr> f, Span s = {}) : ExprNode(kKind, std::move(s)), fields(std::move(f)) {}
  const std::vector<Expr> fields;
};

struct TupleGetItemNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kTupleGetItem;
  TupleGetItemNode(Expr t, int i, Span s = {}) : ExprNode(kKind, std::move(s)), tuple(std::move(t)), index(i) {}
  const Expr tuple;
  const int index;
};

struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCall;
  CallNode(Expr c, std::vector<Expr> a, Attrs at, std::vector<StructInfo> sa, Span s = {})
      : ExprNode(kKind, std::move(s)), callee(std::move(c)), args(std::move(a)), attrs(std::move(at)),
        sinfo_args(std::move(sa)) {}
  const Expr callee;  // an OpNode, a GlobalVarNode or an ExternFuncNode
  const std::vector<Expr> args;
  const Attrs attrs;                        // op attributes, complete with defaults
  const std::vector<StructInfo> sinfo_args;  // e.g. the output struct info of call_kernel
};

struct ShapeExprNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kShapeExpr;
  ShapeExprNode(std::vector<PrimExpr> v, Span s = {}) : ExprNode(kKind, std::move(s)), values(std::move(v)) {}
  const std::vector<PrimExpr> values;
};

struct PrimValueNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kPrimValue;
  PrimValueNode(PrimExpr v, Span s = {}) : ExprNode(kKind, std::move(s)), value(std::move(v)) {}
  const PrimExpr value;
};

struct StringImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kStringImm;
  StringImmNode(std::string v, Span s = {}) : ExprNode(kKind, std::move(s)), value(std::move(v)) {}
  const std::string value;
};

struct SeqExprNode;
using SeqExpr = std::shared_ptr<const SeqExprNode>;

struct IfNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kIf;
  IfNode(Expr c, SeqExpr t, SeqExpr f, Span s = {})
      : ExprNode(kKind, std::move(s)), cond(std::move(c)), then_branch(std::move(t)), else_branch(std::move(f)) {}
  const Expr cond;  // a bool scalar tensor or prim value
  const SeqExpr then_branch, else_branch;
};

struct OpNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kOp;
  explicit OpNode(const OpDef* d) : ExprNode(kKind, {}), def(d) {}
  const OpDef* const def;  // owned by the OpRegistry, which outlives every module
  const std::string& name() const;
};

struct GlobalVarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kGlobalVar;
  GlobalVarNode(std::string n, Span s = {}) : ExprNode(kKind, std::move(s)), name(std::move(n)) {}
  const std::string name;  // resolved in the module by name
};

struct ExternFuncNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kExternFunc;
  ExternFuncNode(std::string n, Span s = {}) : ExprNode(kKind, std::move(s)), name(std::move(n)) {}
  const std::string name;
};

/// `var = value` or, when match_sinfo is set, `var = match_cast(value, match_sinfo)`:
/// a checked cast that may define new symbolic variables.
struct Binding {
  Var var;
  Expr value;
  StructInfo match_sinfo;  // non-null => MatchCast
  bool is_match_cast() const { return match_sinfo != nullptr; }
};

struct BindingBlock {
  std::vector<Binding> bindings;
  bool is_dataflow = false;  // a dataflow block holds only pure bindings
};

/// A sequence of binding blocks followed by a result expression.
struct SeqExprNode {
  SeqExprNode(std::vector<BindingBlock> b, Expr r) : blocks(std::move(b)), body(std::move(r)) {}
  const std::vector<BindingBlock> blocks;
  const Expr body;
};

/// A Relax function of a module. Its name lives in the module.
struct FunctionNode {
  FunctionNode(std::vector<Var> p, SeqExpr b, StructInfo r, Attrs a, bool pure, Span s = {})
      : params(std::move(p)), body(std::move(b)), ret_sinfo(std::move(r)), attrs(std::move(a)),
        is_pure(pure), span(std::move(s)) {}
  const std::vector<Var> params;
  const SeqExpr body;
  const StructInfo ret_sinfo;
  const Attrs attrs;
  const bool is_pure;
  const Span span;
  /// The signature as struct info (for calls through a GlobalVar).
  StructInfo Signature() const;
};
using Function = std::shared_ptr<const FunctionNode>;

// ---- Constructors (struct info is left for the BlockBuilder unless given).
Var MakeVar(std::string name, StructInfo sinfo, Span span = {});
Var MakeDataflowVar(std::string name, StructInfo sinfo, Span span = {});
Expr MakeConstant(Tensor data, Span span = {});
Expr MakeTuple(std::vector<Expr> fields, Span span = {});
Expr MakeTupleGetItem(Expr tuple, int index, Span span = {});
Expr MakeCall(Expr callee, std::vector<Expr> args, Attrs attrs = {}, std::vector<StructInfo> sinfo_args = {},
              Span span = {});
Expr MakeShapeExpr(std::vector<PrimExpr> values, Span span = {});
Expr MakePrimValue(PrimExpr value, Span span = {});
Expr MakeStringImm(std::string value, Span span = {});
Expr MakeIf(Expr cond, SeqExpr then_branch, SeqExpr else_branch, Span span = {});
Expr MakeGlobalVar(std::string name, Span span = {});
Expr MakeExternFunc(std::string name, Span span = {});
SeqExpr MakeSeqExpr(std::vector<BindingBlock> blocks, Expr body);
Function MakeFunction(std::vector<Var> params, SeqExpr body, StructInfo ret_sinfo, Attrs attrs = {},
                      bool is_pure = true, Span span = {});

/// The struct info of |e|; throws kInternal if it has not been normalized.
const StructInfo& GetStructInfo(const Expr& e);

}  // namespace rxt
