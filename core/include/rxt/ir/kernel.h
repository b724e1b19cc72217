// Kernel ("prim") functions: loop-level code over buffers. Legalization generates them from
// compute definitions; a backend compiles them; the reference backend interprets them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rxt/ir/attrs.h"
#include "rxt/ir/prim_expr.h"

namespace rxt {

/// A multi-dimensional view of memory. Identified by its node, not its name.
struct BufferNode {
  BufferNode(std::string n, DType t, std::vector<PrimExpr> s, std::vector<PrimExpr> st)
      : name(std::move(n)), dtype(t), shape(std::move(s)), strides(std::move(st)) {}
  const std::string name;
  const DType dtype;
  const std::vector<PrimExpr> shape;    // int64 dims, static or symbolic
  const std::vector<PrimExpr> strides;  // empty = compact row-major
};
Buffer MakeBuffer(std::string name, DType dtype, std::vector<PrimExpr> shape, std::vector<PrimExpr> strides = {});

enum class StmtKind : uint8_t { kSeq, kFor, kStore, kIf, kAllocate, kBlock };

struct StmtNode {
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  const StmtKind kind;
  template <typename T>
  const T* As() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
};
using Stmt = std::shared_ptr<const StmtNode>;

struct SeqStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kSeq;
  explicit SeqStmtNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  const std::vector<Stmt> stmts;
};

enum class LoopKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled };
const char* LoopKindName(LoopKind k);  // "serial", "parallel", "vectorized", "unrolled"

/// for var in range(extent): the loop variable runs 0 .. extent-1.
struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kFor;
  ForNode(PrimVar v, PrimExpr e, LoopKind k, Stmt b)
      : StmtNode(kKind), var(std::move(v)), extent(std::move(e)), loop_kind(k), body(std::move(b)) {}
  const PrimVar var;
  const PrimExpr extent;
  const LoopKind loop_kind;
  const Stmt body;
};

/// buffer[indices] = value
struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kStore;
  StoreNode(Buffer b, std::vector<PrimExpr> i, PrimExpr v)
      : StmtNode(kKind), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)) {}
  const Buffer buffer;
  const std::vector<PrimExpr> indices;
  const PrimExpr value;
};

struct IfStmtNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kIf;
  IfStmtNode(PrimExpr c, Stmt t, Stmt e) : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  const PrimExpr cond;
  const Stmt then_case;
  const Stmt else_case;  // may be null
};

/// A local buffer, live while |body| runs.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kAllocate;
  AllocateNode(Buffer b, Stmt bd) : StmtNode(kKind), buffer(std::move(b)), body(std::move(bd)) {}
  const Buffer buffer;
  const Stmt body;
};

enum class IterKind : uint8_t { kSpatial, kReduce };

/// A block iterator bound to an expression of the enclosing loop variables.
struct IterVar {
  PrimVar var;
  PrimExpr value;
  IterKind kind = IterKind::kSpatial;
};

/// A named computation step (TensorIR's T.block). When |init| is set, it runs before |body|
/// on the first iteration of the reduction: when every reduce iterator's value is 0.
struct BlockNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kBlock;
  BlockNode(std::string n, std::vector<IterVar> iv, Stmt i, Stmt b)
      : StmtNode(kKind), name(std::move(n)), iter_vars(std::move(iv)), init(std::move(i)), body(std::move(b)) {}
  const std::string name;
  const std::vector<IterVar> iter_vars;
  const Stmt init;  // may be null
  const Stmt body;
};

Stmt MakeSeq(std::vector<Stmt> stmts);
Stmt MakeFor(PrimVar var, PrimExpr extent, Stmt body, LoopKind kind = LoopKind::kSerial);
Stmt MakeStore(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr value);
Stmt MakeIfStmt(PrimExpr cond, Stmt then_case, Stmt else_case = nullptr);
Stmt MakeAllocate(Buffer buffer, Stmt body);
Stmt MakeBlock(std::string name, std::vector<IterVar> iter_vars, Stmt init, Stmt body);

/// A kernel parameter: a buffer, or a scalar (buffer null, scalar set).
struct KernelParam {
  Buffer buffer;
  PrimVar scalar;
};

/// Destination-passing style: outputs are the trailing buffer parameters.
struct KernelFunctionNode {
  KernelFunctionNode(std::vector<KernelParam> p, Stmt b, Attrs a)
      : params(std::move(p)), body(std::move(b)), attrs(std::move(a)) {}
  const std::vector<KernelParam> params;
  const Stmt body;
  const Attrs attrs;
};
using KernelFunction = std::shared_ptr<const KernelFunctionNode>;
KernelFunction MakeKernelFunction(std::vector<KernelParam> params, Stmt body, Attrs attrs = {});

}  // namespace rxt
