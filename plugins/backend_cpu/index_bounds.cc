#include "index_bounds.h"

#include <algorithm>

namespace rxt::backend_cpu {
namespace {

using Range = IndexBounds::Range;
using kf::BinaryOp;
using kf::ExprKind;

// Ranges stay far from int64 overflow: products of two such bounds still fit.
constexpr int64_t kLimit = int64_t{1} << 30;

std::optional<Range> Checked(int64_t lo, int64_t hi) {
  if (lo > hi || lo < -kLimit || hi > kLimit) return std::nullopt;
  return Range{lo, hi};
}

int64_t FloorDiv(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

std::optional<Range> Combine(BinaryOp op, Range a, Range b) {
  switch (op) {
    case BinaryOp::kAdd: return Checked(a.lo + b.lo, a.hi + b.hi);
    case BinaryOp::kSub: return Checked(a.lo - b.hi, a.hi - b.lo);
    case BinaryOp::kMul: {
      int64_t p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      return Checked(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
    }
    case BinaryOp::kFloorDiv:
      if (b.lo != b.hi || b.lo <= 0) return std::nullopt;
      return Checked(FloorDiv(a.lo, b.lo), FloorDiv(a.hi, b.lo));
    case BinaryOp::kFloorMod:
      if (b.lo != b.hi || b.lo <= 0) return std::nullopt;
      if (a.lo >= 0 && a.hi < b.lo) return a;
      return Range{0, b.lo - 1};
    case BinaryOp::kMin: return Range{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case BinaryOp::kMax: return Range{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    default: return std::nullopt;
  }
}

}  // namespace

IndexBounds::IndexBounds(const kf::Kernel& kernel)
    : kernel_(kernel), var_ranges_(kernel.vars.size()), var_bound_(kernel.vars.size(), false) {
  if (!kernel.stmts.empty()) BindRanges(kernel.body());
}

// A variable bound twice (not in well-formed kernels) gets the union of both ranges.
void IndexBounds::Bind(int32_t var, std::optional<Range> range) {
  if (var < 0 || var >= static_cast<int32_t>(var_ranges_.size())) return;
  if (!var_bound_[var]) {
    var_bound_[var] = true;
    var_ranges_[var] = range;
  } else if (var_ranges_[var] && range) {
    var_ranges_[var] = Range{std::min(var_ranges_[var]->lo, range->lo), std::max(var_ranges_[var]->hi, range->hi)};
  } else {
    var_ranges_[var] = std::nullopt;
  }
}

// Top down: a block's bindings read the loops around it.
void IndexBounds::BindRanges(int32_t stmt) {
  if (stmt < 0) return;
  const kf::Stmt& s = kernel_.stmts[stmt];
  switch (s.kind) {
    case kf::StmtKind::kSeq:
      for (int32_t child : s.stmts) BindRanges(child);
      return;
    case kf::StmtKind::kFor: {
      std::optional<Range> extent = RangeOf(s.extent);
      Bind(s.var, extent && extent->lo == extent->hi && extent->lo >= 1 ? Checked(0, extent->lo - 1) : std::nullopt);
      return BindRanges(s.body);
    }
    case kf::StmtKind::kIf:
      BindRanges(s.then_case);
      return BindRanges(s.else_case);
    case kf::StmtKind::kAllocate: return BindRanges(s.body);
    case kf::StmtKind::kBlock:
      for (const kf::IterVar& iter : s.iter_vars) Bind(iter.var, RangeOf(iter.value));
      BindRanges(s.init);
      return BindRanges(s.body);
    case kf::StmtKind::kStore: return;
  }
}

std::optional<Range> IndexBounds::RangeOf(int32_t expr) const {
  if (expr < 0) return std::nullopt;
  const kf::Expr& e = kernel_.exprs[expr];
  if (!kf::IsInt(e.dtype)) return std::nullopt;
  switch (e.kind) {
    case ExprKind::kIntImm: return Checked(e.int_value, e.int_value);
    case ExprKind::kVar:
      return e.var >= 0 && e.var < static_cast<int32_t>(var_ranges_.size()) ? var_ranges_[e.var] : std::nullopt;
    case ExprKind::kBinary: {
      std::optional<Range> a = RangeOf(e.operands[0]), b = RangeOf(e.operands[1]);
      if (e.binary_op == BinaryOp::kFloorMod && !a && b && b->lo == b->hi && b->lo > 0) {
        return Range{0, b->lo - 1};  // whatever the dividend
      }
      if (!a || !b) return std::nullopt;
      return Combine(e.binary_op, *a, *b);
    }
    case ExprKind::kCast: {  // integer to integer: the value is kept if the target holds it
      std::optional<Range> x = RangeOf(e.operands[0]);
      bool narrow = e.dtype == kf::DType::kInt8 || e.dtype == kf::DType::kUInt8 || e.dtype == kf::DType::kInt16;
      if (!x || narrow || (e.dtype == kf::DType::kInt32 && (x->lo < INT32_MIN || x->hi > INT32_MAX))) {
        return std::nullopt;
      }
      return x;
    }
    case ExprKind::kSelect: {
      std::optional<Range> a = RangeOf(e.operands[1]), b = RangeOf(e.operands[2]);
      if (!a || !b) return std::nullopt;
      return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    default: return std::nullopt;
  }
}

bool IndexBounds::LoadInBounds(int32_t expr) const {
  const kf::Expr& e = kernel_.exprs[expr];
  if (e.kind != ExprKind::kLoad || e.buffer < 0) return false;
  const kf::Buffer& buffer = kernel_.buffers[e.buffer];
  if (buffer.shape.size() != e.operands.size()) return false;
  bool each_inside = true;
  for (size_t d = 0; d < e.operands.size(); ++d) {
    std::optional<Range> dim = RangeOf(buffer.shape[d]);
    std::optional<Range> index = RangeOf(e.operands[d]);
    if (!dim || dim->lo != dim->hi || dim->lo < 0 || !index || index->lo < 0) return false;
    each_inside = each_inside && index->hi < dim->lo;
  }
  if (each_inside || !buffer.strides.empty()) return each_inside;
  // An index past its dim (loops merged by loop_collapse.cc) still reads inside a compact buffer
  // when the largest offset, sum of index × stride, is below its number of elements.
  unsigned __int128 offset = 0, stride = 1;
  for (size_t d = e.operands.size(); d-- > 0;) {
    offset += static_cast<unsigned __int128>(RangeOf(e.operands[d])->hi) * stride;
    stride *= static_cast<unsigned __int128>(RangeOf(buffer.shape[d])->lo);
    if (stride > (unsigned __int128)1 << 64) return false;  // no buffer is that large
  }
  return offset < stride;
}

}  // namespace rxt::backend_cpu
