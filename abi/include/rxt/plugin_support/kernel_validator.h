// kernel_validator.h (plugin SDK): every invariant of a decoded kernel that a backend may rely
// on without checking again (ValidateKernel; DecodeKernel runs it).
#ifndef RXT_PLUGIN_SUPPORT_KERNEL_VALIDATOR_H_
#define RXT_PLUGIN_SUPPORT_KERNEL_VALIDATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rxt/plugin_support/kernel_format.h"

namespace rxt::plugin_support::kernel_format {
namespace detail {

/// Positions in a pre-order numbering of the statement tree, where 0 is the kernel's entry
/// (parameters) and statement s occupies [first[s], last[s]] with its subtree. A variable or
/// buffer is visible on an interval; an expression on the intersection of the intervals of
/// everything it reads.
struct Interval {
  int64_t lo, hi;
  bool Contains(int64_t site) const { return lo <= site && site <= hi; }
  Interval Intersect(Interval o) const { return {lo > o.lo ? lo : o.lo, hi < o.hi ? hi : o.hi}; }
};

class Validator {
 public:
  explicit Validator(const Kernel& k) : k_(k) {}

  std::string Run() {
    if (!CheckVars() || !CheckBuffers() || !CheckExprs() || !CheckBufferShapes() || !CheckStmts() ||
        !CheckParams() || !NumberStatements() || !CheckDefinitions() || !CheckScopes() || !CheckAttrs()) {
      return error_;
    }
    return {};
  }

 private:
  bool Fail(const std::string& message) {
    if (error_.empty()) error_ = message;
    return false;
  }
  static std::string Quote(const std::string& name) { return "'" + name + "'"; }
  std::string VarName(int32_t v) const { return "variable " + std::to_string(v) + " " + Quote(k_.vars[v].name); }
  std::string BufferName(int32_t b) const { return "buffer " + std::to_string(b) + " " + Quote(k_.buffers[b].name); }
  std::string StmtName(size_t s) const {
    return "statement " + std::to_string(s) + " (" + StmtKindName(k_.stmts[s].kind) + ")";
  }

  bool ValidVar(int32_t v) const { return v >= 0 && static_cast<size_t>(v) < k_.vars.size(); }
  bool ValidBuffer(int32_t b) const { return b >= 0 && static_cast<size_t>(b) < k_.buffers.size(); }
  bool ValidExpr(int32_t e) const { return e >= 0 && static_cast<size_t>(e) < k_.exprs.size(); }
  DType ExprType(int32_t e) const { return k_.exprs[e].dtype; }

  bool CheckVars() {
    for (size_t i = 0; i < k_.vars.size(); ++i) {
      if (!IsDataDType(k_.vars[i].dtype)) return Fail("variable " + std::to_string(i) + " has an invalid dtype");
    }
    return true;
  }

  bool CheckBuffers() {
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      const Buffer& b = k_.buffers[i];
      std::string what = BufferName(static_cast<int32_t>(i));
      if (!IsDataDType(b.dtype)) return Fail(what + " has an invalid dtype");
      if (b.shape.size() > static_cast<size_t>(kMaxNdim)) return Fail(what + " has too many dims");
      if (!b.strides.empty() && b.strides.size() != b.shape.size()) {
        return Fail(what + " has " + std::to_string(b.strides.size()) + " strides for " +
                    std::to_string(b.shape.size()) + " dims");
      }
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          if (!ValidExpr(e)) return Fail(what + ": dim or stride expression " + std::to_string(e) + " does not exist");
        }
      }
    }
    return true;
  }

  // Operands precede their users (so there are no cycles) and have the types the node needs.
  bool CheckExprs() {
    depth_.assign(k_.exprs.size(), 1);
    has_load_.assign(k_.exprs.size(), false);
    for (size_t i = 0; i < k_.exprs.size(); ++i) {
      const Expr& e = k_.exprs[i];
      std::string what = "expression " + std::to_string(i);
      if (!IsDataDType(e.dtype)) return Fail(what + " has an invalid dtype");
      for (int32_t op : e.operands) {
        if (op < 0 || static_cast<size_t>(op) >= i) {
          return Fail(what + ": operand " + std::to_string(op) + " does not precede it");
        }
        if (depth_[op] + 1 > depth_[i]) depth_[i] = depth_[op] + 1;
        if (has_load_[op]) has_load_[i] = true;
      }
      if (depth_[i] > kMaxDepth) return Fail(what + " nests more than " + std::to_string(kMaxDepth) + " levels deep");
      if (!CheckExprNode(i, what)) return false;
    }
    return true;
  }

  bool ExpectOperands(const Expr& e, size_t n, const std::string& what) {
    if (e.operands.size() == n) return true;
    return Fail(what + " has " + std::to_string(e.operands.size()) + " operands, expected " + std::to_string(n));
  }
  bool ExpectType(const std::string& what, DType actual, bool ok, const char* expected) {
    if (ok) return true;
    return Fail(what + ": expected " + expected + " but found " + DTypeName(actual));
  }

  bool CheckExprNode(size_t index, const std::string& what) {
    const Expr& e = k_.exprs[index];
    switch (e.kind) {
      case ExprKind::kIntImm:
        if (!ExpectOperands(e, 0, what)) return false;
        if (e.dtype == DType::kBool) {
          if (e.int_value != 0 && e.int_value != 1) return Fail(what + ": a bool immediate must be 0 or 1");
          return true;
        }
        if (!ExpectType(what, e.dtype, IsInt(e.dtype), "an integer or bool immediate")) return false;
        if (!FitsIntDType(e.dtype, e.int_value)) {
          return Fail(what + ": " + std::to_string(e.int_value) + " is out of range for " + DTypeName(e.dtype));
        }
        return true;
      case ExprKind::kFloatImm:
        if (!ExpectOperands(e, 0, what) || !ExpectType(what, e.dtype, IsFloat(e.dtype), "a float immediate")) return false;
        if (!FitsFloatDType(e.dtype, e.float_value)) {
          return Fail(what + ": " + std::to_string(e.float_value) + " is out of range for " + DTypeName(e.dtype));
        }
        return true;
      case ExprKind::kVar:
        if (!ExpectOperands(e, 0, what)) return false;
        if (!ValidVar(e.var)) return Fail(what + ": variable " + std::to_string(e.var) + " does not exist");
        return ExpectType(what, e.dtype, e.dtype == k_.vars[e.var].dtype, DTypeName(k_.vars[e.var].dtype));
      case ExprKind::kBinary: {
        if (static_cast<int>(e.binary_op) >= kNumBinaryOps) return Fail(what + " has an invalid binary operator");
        if (!ExpectOperands(e, 2, what)) return false;
        DType a = ExprType(e.operands[0]), b = ExprType(e.operands[1]);
        std::string op_what = what + " (" + BinaryOpName(e.binary_op) + ")";
        if (a != b) return Fail(op_what + ": operands are " + DTypeName(a) + " and " + DTypeName(b));
        if (IsLogical(e.binary_op)) {
          if (!ExpectType(op_what, a, a == DType::kBool, "bool operands")) return false;
        } else if (!IsComparison(e.binary_op)) {
          if (!ExpectType(op_what, a, IsInt(a) || IsFloat(a), "numeric operands")) return false;
        }
        DType result = IsLogical(e.binary_op) || IsComparison(e.binary_op) ? DType::kBool : a;
        return ExpectType(op_what + " result", e.dtype, e.dtype == result, DTypeName(result));
      }
      case ExprKind::kNot:
        return ExpectOperands(e, 1, what) &&
               ExpectType(what + " (!)", ExprType(e.operands[0]), ExprType(e.operands[0]) == DType::kBool, "bool") &&
               ExpectType(what + " (!) result", e.dtype, e.dtype == DType::kBool, "bool");
      case ExprKind::kSelect: {
        if (!ExpectOperands(e, 3, what)) return false;
        DType c = ExprType(e.operands[0]), t = ExprType(e.operands[1]), f = ExprType(e.operands[2]);
        if (!ExpectType(what + " (select condition)", c, c == DType::kBool, "bool")) return false;
        if (t != f || t != e.dtype) {
          return Fail(what + " (select): branches are " + DTypeName(t) + " and " + DTypeName(f) + ", result " +
                      DTypeName(e.dtype));
        }
        return true;
      }
      case ExprKind::kCast:
        // One form per kernel: the IR folds a cast to its operand's own dtype away, so its text
        // cannot write one either.
        return ExpectOperands(e, 1, what) && ExpectType(what + " (cast) result", e.dtype,
                                                         e.dtype != ExprType(e.operands[0]), "another dtype than its operand's");
      case ExprKind::kIntrinsic: {
        if (static_cast<int>(e.intrinsic) >= kNumIntrinsics) return Fail(what + " has an invalid intrinsic");
        std::string fn_what = what + " (" + IntrinsicName(e.intrinsic) + ")";
        if (!ExpectOperands(e, static_cast<size_t>(IntrinsicArity(e.intrinsic)), fn_what)) return false;
        DType a = ExprType(e.operands[0]);
        for (int32_t op : e.operands) {
          if (ExprType(op) != a) return Fail(fn_what + ": arguments have different dtypes");
        }
        bool ok = IsFloat(a) || (IntrinsicAcceptsInt(e.intrinsic) && IsInt(a));
        if (!ExpectType(fn_what, a, ok, IntrinsicAcceptsInt(e.intrinsic) ? "numeric arguments" : "float arguments")) {
          return false;
        }
        DType result = e.intrinsic == Intrinsic::kIsNan ? DType::kBool : a;
        return ExpectType(fn_what + " result", e.dtype, e.dtype == result, DTypeName(result));
      }
      case ExprKind::kLoad: {
        if (!ValidBuffer(e.buffer)) return Fail(what + ": buffer " + std::to_string(e.buffer) + " does not exist");
        const Buffer& b = k_.buffers[e.buffer];
        std::string load_what = what + " (load from " + Quote(b.name) + ")";
        if (!ExpectOperands(e, b.shape.size(), load_what)) return false;
        for (int32_t op : e.operands) {
          if (!ExpectType(load_what + " index", ExprType(op), IsInt(ExprType(op)), "an integer")) return false;
        }
        has_load_[index] = true;
        return ExpectType(load_what, e.dtype, e.dtype == b.dtype, DTypeName(b.dtype));
      }
    }
    return Fail(what + " has an invalid kind");
  }

  // Shapes and strides are integer expressions that read no buffer.
  bool CheckBufferShapes() {
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      const Buffer& b = k_.buffers[i];
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          std::string what =
              BufferName(static_cast<int32_t>(i)) + " dim or stride (expression " + std::to_string(e) + ")";
          if (!ExpectType(what, ExprType(e), IsInt(ExprType(e)), "an integer")) return false;
          if (has_load_[e]) return Fail(what + " reads a buffer");
        }
      }
    }
    return true;
  }

  bool CheckChildStmt(size_t parent, int32_t child, bool optional, const char* role) {
    if (optional && child == kNone) return true;
    if (child < 0 || static_cast<size_t>(child) >= parent) {
      return Fail(StmtName(parent) + ": " + role + " " + std::to_string(child) + " does not precede it");
    }
    if (parent_[child] != kNone) {
      return Fail("statement " + std::to_string(child) + " is used twice (by statements " +
                  std::to_string(parent_[child]) + " and " + std::to_string(parent) + ")");
    }
    parent_[child] = static_cast<int32_t>(parent);
    return true;
  }
  bool CheckStmtExpr(size_t s, int32_t e, const char* role, bool (*type_ok)(DType), const char* expected) {
    if (!ValidExpr(e)) return Fail(StmtName(s) + ": " + role + " expression " + std::to_string(e) + " does not exist");
    return ExpectType(StmtName(s) + " " + role, ExprType(e), type_ok(ExprType(e)), expected);
  }
  static bool AnyType(DType) { return true; }
  static bool IsBool(DType t) { return t == DType::kBool; }

  // Statements form one tree rooted at the last statement; children precede their parent.
  bool CheckStmts() {
    if (k_.stmts.empty()) return Fail("the kernel has no body (no statements)");
    parent_.assign(k_.stmts.size(), kNone);
    for (size_t s = 0; s < k_.stmts.size(); ++s) {
      const Stmt& st = k_.stmts[s];
      std::string what = StmtName(s);
      if (static_cast<int>(st.kind) >= kNumStmtKinds) return Fail(what + " has an invalid kind");
      switch (st.kind) {
        case StmtKind::kSeq:
          for (int32_t c : st.stmts) {
            if (!CheckChildStmt(s, c, false, "child")) return false;
          }
          break;
        case StmtKind::kFor:
          if (!ValidVar(st.var)) return Fail(what + ": variable " + std::to_string(st.var) + " does not exist");
          if (static_cast<int>(st.loop_kind) >= kNumLoopKinds) return Fail(what + " has an invalid loop kind");
          if (!ExpectType(what + " variable", k_.vars[st.var].dtype, IsInt(k_.vars[st.var].dtype), "an integer") ||
              !CheckStmtExpr(s, st.extent, "extent", IsInt, "an integer")) {
            return false;
          }
          if (ExprType(st.extent) != k_.vars[st.var].dtype) {
            return Fail(what + ": the extent is " + DTypeName(ExprType(st.extent)) + " but the loop variable is " +
                        DTypeName(k_.vars[st.var].dtype));
          }
          if (!CheckChildStmt(s, st.body, false, "body")) return false;
          break;
        case StmtKind::kStore: {
          if (!ValidBuffer(st.buffer)) return Fail(what + ": buffer " + std::to_string(st.buffer) + " does not exist");
          const Buffer& b = k_.buffers[st.buffer];
          if (st.indices.size() != b.shape.size()) {
            return Fail(what + ": " + std::to_string(st.indices.size()) + " indices for the " +
                        std::to_string(b.shape.size()) + "-d buffer " + Quote(b.name));
          }
          for (int32_t e : st.indices) {
            if (!CheckStmtExpr(s, e, "index", IsInt, "an integer")) return false;
          }
          if (!CheckStmtExpr(s, st.value, "value", AnyType, "")) return false;
          if (ExprType(st.value) != b.dtype) {
            return Fail(what + ": the value is " + DTypeName(ExprType(st.value)) + " but " + Quote(b.name) + " holds " +
                        DTypeName(b.dtype));
          }
          break;
        }
        case StmtKind::kIf:
          if (!CheckStmtExpr(s, st.cond, "condition", IsBool, "bool") ||
              !CheckChildStmt(s, st.then_case, false, "then branch") ||
              !CheckChildStmt(s, st.else_case, true, "else branch")) {
            return false;
          }
          break;
        case StmtKind::kAllocate:
          if (!ValidBuffer(st.buffer)) return Fail(what + ": buffer " + std::to_string(st.buffer) + " does not exist");
          if (!CheckChildStmt(s, st.body, false, "body")) return false;
          break;
        case StmtKind::kBlock: {
          bool has_reduce = false;
          for (const IterVar& iv : st.iter_vars) {
            if (!ValidVar(iv.var)) return Fail(what + ": variable " + std::to_string(iv.var) + " does not exist");
            if (iv.kind != IterKind::kSpatial && iv.kind != IterKind::kReduce) {
              return Fail(what + " has an invalid iterator kind");
            }
            if (!CheckStmtExpr(s, iv.value, "iterator value", IsInt, "an integer")) return false;
            if (ExprType(iv.value) != k_.vars[iv.var].dtype) {
              return Fail(what + ": iterator " + Quote(k_.vars[iv.var].name) + " is " +
                          DTypeName(k_.vars[iv.var].dtype) + " but its value is " + DTypeName(ExprType(iv.value)));
            }
            has_reduce = has_reduce || iv.kind == IterKind::kReduce;
          }
          if (st.init != kNone && !has_reduce) {
            return Fail(what + " " + Quote(st.name) + " has an init but no reduce iterator");
          }
          if (!CheckChildStmt(s, st.init, true, "init") || !CheckChildStmt(s, st.body, false, "body")) return false;
          break;
        }
      }
    }
    for (size_t s = 0; s + 1 < k_.stmts.size(); ++s) {
      if (parent_[s] == kNone) return Fail("statement " + std::to_string(s) + " is not part of the body");
    }
    return true;
  }

  bool CheckParams() {
    std::vector<bool> seen_buffer(k_.buffers.size()), seen_var(k_.vars.size());
    for (size_t i = 0; i < k_.params.size(); ++i) {
      const Param& p = k_.params[i];
      std::string what = "parameter " + std::to_string(i);
      if (p.kind != ParamKind::kBuffer && p.kind != ParamKind::kScalar) return Fail(what + " has an invalid kind");
      if (p.kind == ParamKind::kBuffer) {
        if (!ValidBuffer(p.index)) return Fail(what + ": buffer " + std::to_string(p.index) + " does not exist");
        if (seen_buffer[p.index]) return Fail(what + ": " + BufferName(p.index) + " is a parameter twice");
        seen_buffer[p.index] = true;
      } else {
        if (!ValidVar(p.index)) return Fail(what + ": variable " + std::to_string(p.index) + " does not exist");
        if (seen_var[p.index]) return Fail(what + ": " + VarName(p.index) + " is a parameter twice");
        seen_var[p.index] = true;
      }
    }
    return true;
  }

  // Pre-order numbering without recursion: subtree sizes bottom-up (children have smaller
  // indices), then first positions top-down. A block's init subtree precedes its body's.
  static void Children(const Stmt& st, std::vector<int32_t>* out) {
    out->clear();
    switch (st.kind) {
      case StmtKind::kSeq: *out = st.stmts; break;
      case StmtKind::kFor: case StmtKind::kAllocate: out->push_back(st.body); break;
      case StmtKind::kIf:
        out->push_back(st.then_case);
        if (st.else_case != kNone) out->push_back(st.else_case);
        break;
      case StmtKind::kBlock:
        if (st.init != kNone) out->push_back(st.init);
        out->push_back(st.body);
        break;
      case StmtKind::kStore: break;
    }
  }

  bool NumberStatements() {
    size_t n = k_.stmts.size();
    std::vector<int64_t> size(n, 1);
    std::vector<int32_t> depth(n, 1);
    std::vector<int32_t> children;
    for (size_t s = 0; s < n; ++s) {
      Children(k_.stmts[s], &children);
      for (int32_t c : children) size[s] += size[c];
    }
    first_.assign(n, 0);
    last_.assign(n, 0);
    first_[n - 1] = 1;
    for (size_t s = n; s-- > 0;) {
      last_[s] = first_[s] + size[s] - 1;
      if (depth[s] > kMaxDepth) return Fail("statements nest more than " + std::to_string(kMaxDepth) + " levels deep");
      Children(k_.stmts[s], &children);
      int64_t next = first_[s] + 1;
      for (int32_t c : children) {
        first_[c] = next;
        depth[c] = depth[s] + 1;
        next += size[c];
      }
    }
    num_sites_ = static_cast<int64_t>(n) + 1;
    return true;
  }

  // Each variable and buffer is defined once: parameters and bare dims of parameter buffers at
  // the entry (a scalar parameter may also be such a dim), loops and blocks in the body.
  bool CheckDefinitions() {
    const Interval everywhere{0, num_sites_ - 1}, nowhere{1, 0};
    var_scope_.assign(k_.vars.size(), nowhere);
    buffer_scope_.assign(k_.buffers.size(), nowhere);
    std::vector<bool> var_at_entry(k_.vars.size()), var_in_body(k_.vars.size());
    for (const Param& p : k_.params) {
      if (p.kind == ParamKind::kScalar) {
        var_at_entry[p.index] = true;
        continue;
      }
      buffer_scope_[p.index] = everywhere;
      const Buffer& b = k_.buffers[p.index];
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          if (k_.exprs[e].kind == ExprKind::kVar) var_at_entry[k_.exprs[e].var] = true;
        }
      }
    }
    for (size_t v = 0; v < k_.vars.size(); ++v) {
      if (var_at_entry[v]) var_scope_[v] = everywhere;
    }
    auto define_var = [&](int32_t v, size_t s, Interval scope) {
      if (var_at_entry[v] || var_in_body[v]) return Fail(StmtName(s) + " defines " + VarName(v) + " a second time");
      var_in_body[v] = true;
      var_scope_[v] = scope;
      return true;
    };
    for (size_t s = 0; s < k_.stmts.size(); ++s) {
      const Stmt& st = k_.stmts[s];
      Interval inside{first_[s] + 1, last_[s]};
      if (st.kind == StmtKind::kFor && !define_var(st.var, s, inside)) return false;
      if (st.kind == StmtKind::kAllocate) {
        if (buffer_scope_[st.buffer].lo <= buffer_scope_[st.buffer].hi) {
          return Fail(StmtName(s) + " defines " + BufferName(st.buffer) + " a second time");
        }
        buffer_scope_[st.buffer] = inside;
      }
      if (st.kind == StmtKind::kBlock) {
        // Reduce iterators are not visible in the init, which runs before the reduction.
        Interval body_only{first_[st.body], last_[s]};
        for (const IterVar& iv : st.iter_vars) {
          if (!define_var(iv.var, s, iv.kind == IterKind::kReduce ? body_only : inside)) return false;
        }
      }
    }
    return true;
  }

  bool CheckScopes() {
    // Where each expression may be evaluated: the intersection of what it reads.
    const Interval everywhere{0, num_sites_ - 1};
    expr_scope_.assign(k_.exprs.size(), everywhere);
    for (size_t i = 0; i < k_.exprs.size(); ++i) {
      const Expr& e = k_.exprs[i];
      Interval scope = everywhere;
      if (e.kind == ExprKind::kVar) scope = var_scope_[e.var];
      if (e.kind == ExprKind::kLoad) scope = buffer_scope_[e.buffer];
      for (int32_t op : e.operands) scope = scope.Intersect(expr_scope_[op]);
      expr_scope_[i] = scope;
    }
    for (const Param& p : k_.params) {
      if (p.kind != ParamKind::kBuffer) continue;
      const Buffer& b = k_.buffers[p.index];
      for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
        for (int32_t e : *list) {
          if (!UsedAt(e, 0, "the shape of parameter " + BufferName(p.index))) return false;
        }
      }
    }
    for (size_t s = 0; s < k_.stmts.size(); ++s) {
      const Stmt& st = k_.stmts[s];
      int64_t site = first_[s];
      std::string what = StmtName(s);
      switch (st.kind) {
        case StmtKind::kFor:
          if (!UsedAt(st.extent, site, what)) return false;
          break;
        case StmtKind::kStore:
          if (!buffer_scope_[st.buffer].Contains(site)) {
            return Fail(what + " writes " + BufferName(st.buffer) + " where it is not defined");
          }
          for (int32_t e : st.indices) {
            if (!UsedAt(e, site, what)) return false;
          }
          if (!UsedAt(st.value, site, what)) return false;
          break;
        case StmtKind::kIf:
          if (!UsedAt(st.cond, site, what)) return false;
          break;
        case StmtKind::kAllocate: {
          const Buffer& b = k_.buffers[st.buffer];
          for (const std::vector<int32_t>* list : {&b.shape, &b.strides}) {
            for (int32_t e : *list) {
              if (!UsedAt(e, site, what + " of " + BufferName(st.buffer))) return false;
            }
          }
          break;
        }
        case StmtKind::kBlock:
          for (const IterVar& iv : st.iter_vars) {
            if (!UsedAt(iv.value, site, what)) return false;
          }
          break;
        case StmtKind::kSeq: break;
      }
    }
    return true;
  }

  // What the reader checks while reading attributes, for kernels built in memory.
  bool CheckAttrs() {
    for (const Attr& a : k_.attrs) {
      if (!CheckAttrValue(a.value, "attribute " + Quote(a.name), 0)) return false;
    }
    return true;
  }

  bool CheckAttrValue(const AttrValue& v, const std::string& what, int depth) {
    if (depth > kMaxAttrDepth) return Fail(what + ": arrays nest too deeply");
    switch (v.kind) {
      case AttrKind::kNone: case AttrKind::kBool: case AttrKind::kInt: case AttrKind::kFloat: case AttrKind::kString:
        return true;
      case AttrKind::kDType:
        if (static_cast<int>(v.dtype_value) >= kNumDTypes) return Fail(what + " has an invalid dtype");
        return true;
      case AttrKind::kTensor: {
        const TensorValue& t = v.tensor_value;
        if (!IsDataDType(t.dtype)) return Fail(what + ": the tensor has an invalid dtype");
        if (t.shape.size() > static_cast<size_t>(kMaxNdim)) return Fail(what + ": the tensor has too many dims");
        bool empty = false;
        for (int64_t d : t.shape) {
          if (d < 0) return Fail(what + ": the tensor has a negative dim");
          empty = empty || d == 0;
        }
        // Multiplied without overflow: once past the actual size, it can only be a mismatch.
        uint64_t bytes = empty ? 0 : static_cast<uint64_t>(DTypeBits(t.dtype) / 8);
        for (int64_t d : t.shape) {
          if (empty) break;
          if (bytes > t.bytes.size() / static_cast<uint64_t>(d)) {
            return Fail(what + ": the tensor's bytes do not match its shape");
          }
          bytes *= static_cast<uint64_t>(d);
        }
        if (bytes != t.bytes.size()) return Fail(what + ": the tensor's bytes do not match its shape");
        return true;
      }
      case AttrKind::kArray:
        for (const AttrValue& e : v.array_value) {
          if (!CheckAttrValue(e, what, depth + 1)) return false;
        }
        return true;
    }
    return Fail(what + " has an invalid kind");
  }

  // Expression |e| is used at |site|; on failure, names what it reads out of scope.
  bool UsedAt(int32_t e, int64_t site, const std::string& where) {
    if (expr_scope_[e].Contains(site)) return true;
    std::vector<bool> seen(k_.exprs.size());
    std::vector<int32_t> todo = {e};
    while (!todo.empty()) {
      int32_t i = todo.back();
      todo.pop_back();
      if (seen[i]) continue;
      seen[i] = true;
      const Expr& x = k_.exprs[i];
      if (x.kind == ExprKind::kVar && !var_scope_[x.var].Contains(site)) {
        return Fail(where + " reads " + VarName(x.var) + " where it is not defined");
      }
      if (x.kind == ExprKind::kLoad && !buffer_scope_[x.buffer].Contains(site)) {
        return Fail(where + " reads " + BufferName(x.buffer) + " where it is not defined");
      }
      for (int32_t op : x.operands) todo.push_back(op);
    }
    return Fail(where + " uses expression " + std::to_string(e) + " outside its scope");
  }

  const Kernel& k_;
  std::string error_;
  std::vector<int32_t> depth_;
  std::vector<bool> has_load_;
  std::vector<int32_t> parent_;
  std::vector<int64_t> first_, last_;
  int64_t num_sites_ = 0;
  std::vector<Interval> var_scope_, buffer_scope_, expr_scope_;
};

}  // namespace detail

/// Checks every invariant a backend may rely on; returns "" when |k| is valid, else why not:
///  - dtypes are data dtypes; kinds, operators and intrinsics are known; every index refers to
///    an existing entry;
///  - expression operands precede their user, statement children precede their parent, every
///    statement but the last (the body) has exactly one parent; nesting is at most kMaxDepth;
///  - types: binary operands share a dtype (bool for && ||, numeric for arithmetic), the result
///    is bool for comparisons and && || and the operand dtype otherwise; ! and if/select
///    conditions are bool; select branches share the result dtype; intrinsic arity and types
///    (IntrinsicAcceptsInt), isnan gives bool; loads and stores use one integer index per dim
///    and the buffer's dtype; loop variables, extents, iterators and their values are integers
///    of one dtype; immediates match their dtype (bool 0 or 1);
///  - buffer dims and strides are integer expressions that read no buffer; strides are empty or
///    one per dim;
///  - definitions: each variable is defined once, by a scalar parameter and/or as a bare dim or
///    stride of a parameter buffer (visible everywhere), or by one loop or block (visible in its
///    body; a reduce iterator not in the block's init); each buffer is a parameter once or
///    allocated once (visible in the allocation's body);
///  - scopes: every expression reads variables and buffers only where they are visible; the
///    dims of parameter buffers read only parameters and bare dims.
inline std::string ValidateKernel(const Kernel& k) { return detail::Validator(k).Run(); }

}  // namespace rxt::plugin_support::kernel_format

#endif  // RXT_PLUGIN_SUPPORT_KERNEL_VALIDATOR_H_
