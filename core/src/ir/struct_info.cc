#include "rxt/ir/struct_info.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "rxt/support/error.h"

namespace rxt {
namespace {

/// A pair of struct info nodes, as a key: struct info is shared (a tuple may hold the same
/// sub-type twice, and its parent again twice...), so walks over two of them remember the
/// pairs of tuples and signatures they have compared and meet each pair once, in time
/// linear in the number of distinct nodes rather than in the (possibly exponential) number
/// of paths.
using NodePair = std::pair<const StructInfoNode*, const StructInfoNode*>;
struct NodePairHash {
  size_t operator()(const NodePair& p) const {
    return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
  }
};

bool IsComposite(const StructInfo& s) { return s->kind == StructInfoKind::kTuple || s->kind == StructInfoKind::kFunc; }

bool DimsEqual(const PrimExpr& a, const PrimExpr& b, bool assume_unknown_equal) {
  if (ProvablyEqual(a, b)) return true;
  int64_t x, y;
  if (GetConstInt(a, &x) && GetConstInt(b, &y)) return false;  // two different constants
  return assume_unknown_equal;
}

bool ShapesMatch(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b, bool assume_unknown_equal) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!DimsEqual(a[i], b[i], assume_unknown_equal)) return false;
  }
  return true;
}

// Unify helpers keep what both sides agree on and forget the rest.
std::optional<std::vector<PrimExpr>> UnifyShapes(const std::optional<std::vector<PrimExpr>>& a,
                                                 const std::optional<std::vector<PrimExpr>>& b) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!ProvablyEqual((*a)[i], (*b)[i])) return std::nullopt;
  }
  return a;
}

}  // namespace

bool TensorSINode::IsStatic() const {
  if (!shape) return false;
  for (const auto& d : *shape) {
    if (!GetConstInt(d, nullptr)) return false;
  }
  return true;
}

std::vector<int64_t> TensorSINode::StaticShape() const {
  RXT_CHECK(IsStatic(), "shape is not static");
  std::vector<int64_t> out;
  for (const auto& d : *shape) {
    int64_t v = 0;
    GetConstInt(d, &v);
    out.push_back(v);
  }
  return out;
}

StructInfo ObjectSI() {
  static const StructInfo kObject = std::make_shared<ObjectSINode>();
  return kObject;
}
StructInfo PrimSI(DType dtype, PrimExpr value) { return std::make_shared<PrimSINode>(dtype, std::move(value)); }
StructInfo ShapeSI(std::vector<PrimExpr> values) {
  int n = static_cast<int>(values.size());
  return std::make_shared<ShapeSINode>(n, std::move(values));
}
StructInfo ShapeSI(int ndim) { return std::make_shared<ShapeSINode>(ndim, std::nullopt); }
StructInfo TensorSI(std::vector<PrimExpr> shape, DType dtype) {
  int n = static_cast<int>(shape.size());
  return std::make_shared<TensorSINode>(dtype, n, std::move(shape));
}
StructInfo TensorSI(const std::vector<int64_t>& shape, DType dtype) {
  std::vector<PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(IntImm(d));
  return TensorSI(std::move(dims), dtype);
}
StructInfo TensorSI(DType dtype, int ndim) { return std::make_shared<TensorSINode>(dtype, ndim, std::nullopt); }
namespace {

StructInfo CheckDepth(StructInfo sinfo) {
  if (sinfo->depth > kMaxStructInfoDepth) {
    Throw(ErrorCode::kInvalidArgument, "struct info nested more than ", kMaxStructInfoDepth,
          " levels deep (a tuple of a tuple of ...)");
  }
  return sinfo;
}

}  // namespace

StructInfo TupleSI(std::vector<StructInfo> fields) { return CheckDepth(std::make_shared<TupleSINode>(std::move(fields))); }
StructInfo FuncSI(std::vector<StructInfo> params, StructInfo ret, bool is_pure) {
  return CheckDepth(std::make_shared<FuncSINode>(std::move(params), std::move(ret), is_pure));
}

namespace {

/// IsBaseOf; |related| holds the composite pairs already found related (a false answer ends
/// the whole walk, so only true ones are remembered).
bool IsBaseOfImpl(const StructInfo& base, const StructInfo& derived, bool assume_unknown_equal,
                  std::unordered_set<NodePair, NodePairHash>& related) {
  RXT_CHECK(base && derived);
  if (base == derived || base->kind == StructInfoKind::kObject) return true;
  if (base->kind != derived->kind) return false;
  if (IsComposite(base) && related.count({base.get(), derived.get()})) return true;
  auto recurse = [&](const StructInfo& b, const StructInfo& d) {
    return IsBaseOfImpl(b, d, assume_unknown_equal, related);
  };
  bool result = false;
  switch (base->kind) {
    case StructInfoKind::kObject: return true;
    case StructInfoKind::kPrim: {
      const auto* b = base->As<PrimSINode>();
      const auto* d = derived->As<PrimSINode>();
      if (b->dtype != DType::kUnknown && b->dtype != d->dtype) return false;
      if (!b->value) return true;
      return d->value && DimsEqual(b->value, d->value, assume_unknown_equal);
    }
    case StructInfoKind::kShape: {
      const auto* b = base->As<ShapeSINode>();
      const auto* d = derived->As<ShapeSINode>();
      if (b->ndim != -1 && b->ndim != d->ndim) return false;
      if (!b->values) return true;
      return d->values && ShapesMatch(*b->values, *d->values, assume_unknown_equal);
    }
    case StructInfoKind::kTensor: {
      const auto* b = base->As<TensorSINode>();
      const auto* d = derived->As<TensorSINode>();
      if (b->dtype != DType::kUnknown && b->dtype != d->dtype) return false;
      if (b->ndim != -1 && b->ndim != d->ndim) return false;
      if (!b->shape) return true;
      return d->shape && ShapesMatch(*b->shape, *d->shape, assume_unknown_equal);
    }
    case StructInfoKind::kTuple: {
      const auto* b = base->As<TupleSINode>();
      const auto* d = derived->As<TupleSINode>();
      if (b->fields.size() != d->fields.size()) return false;
      result = true;
      for (size_t i = 0; i < b->fields.size() && result; ++i) result = recurse(b->fields[i], d->fields[i]);
      break;
    }
    case StructInfoKind::kFunc: {
      const auto* b = base->As<FuncSINode>();
      const auto* d = derived->As<FuncSINode>();
      if (b->params.size() != d->params.size()) return false;
      if (b->is_pure && !d->is_pure) return false;
      result = true;
      for (size_t i = 0; i < b->params.size() && result; ++i) {  // parameters are contravariant
        result = recurse(d->params[i], b->params[i]);
      }
      result = result && recurse(b->ret, d->ret);
      break;
    }
  }
  if (result) related.insert({base.get(), derived.get()});
  return result;
}

StructInfo UnifyNodes(const StructInfo& a, const StructInfo& b,
                      std::unordered_map<NodePair, StructInfo, NodePairHash>& done);

/// Unify; |done| holds the results for the pairs already joined (one node per pair, so the
/// result is shared as its inputs are).
StructInfo UnifyImpl(const StructInfo& a, const StructInfo& b,
                     std::unordered_map<NodePair, StructInfo, NodePairHash>& done) {
  RXT_CHECK(a && b);
  if (a == b) return a;
  if (a->kind != b->kind) return ObjectSI();
  if (auto it = done.find({a.get(), b.get()}); it != done.end()) return it->second;
  return done[{a.get(), b.get()}] = UnifyNodes(a, b, done);
}

StructInfo UnifyNodes(const StructInfo& a, const StructInfo& b,
                      std::unordered_map<NodePair, StructInfo, NodePairHash>& done) {
  switch (a->kind) {
    case StructInfoKind::kObject: return a;
    case StructInfoKind::kPrim: {
      const auto* x = a->As<PrimSINode>();
      const auto* y = b->As<PrimSINode>();
      DType t = x->dtype == y->dtype ? x->dtype : DType::kUnknown;
      PrimExpr v = (x->value && y->value && ProvablyEqual(x->value, y->value)) ? x->value : nullptr;
      return PrimSI(t, v);
    }
    case StructInfoKind::kShape: {
      const auto* x = a->As<ShapeSINode>();
      const auto* y = b->As<ShapeSINode>();
      int ndim = x->ndim == y->ndim ? x->ndim : -1;
      return std::make_shared<ShapeSINode>(ndim, UnifyShapes(x->values, y->values));
    }
    case StructInfoKind::kTensor: {
      const auto* x = a->As<TensorSINode>();
      const auto* y = b->As<TensorSINode>();
      DType t = x->dtype == y->dtype ? x->dtype : DType::kUnknown;
      int ndim = x->ndim == y->ndim ? x->ndim : -1;
      return std::make_shared<TensorSINode>(t, ndim, UnifyShapes(x->shape, y->shape));
    }
    case StructInfoKind::kTuple: {
      const auto* x = a->As<TupleSINode>();
      const auto* y = b->As<TupleSINode>();
      if (x->fields.size() != y->fields.size()) return ObjectSI();
      std::vector<StructInfo> fields;
      for (size_t i = 0; i < x->fields.size(); ++i) fields.push_back(UnifyImpl(x->fields[i], y->fields[i], done));
      return TupleSI(std::move(fields));
    }
    case StructInfoKind::kFunc:
      return IsBaseOf(a, b) ? a : (IsBaseOf(b, a) ? b : ObjectSI());
  }
  return ObjectSI();
}

}  // namespace

bool IsBaseOf(const StructInfo& base, const StructInfo& derived, bool assume_unknown_equal) {
  std::unordered_set<NodePair, NodePairHash> related;
  return IsBaseOfImpl(base, derived, assume_unknown_equal, related);
}

StructInfo Unify(const StructInfo& a, const StructInfo& b) {
  std::unordered_map<NodePair, StructInfo, NodePairHash> done;
  return UnifyImpl(a, b, done);
}

}  // namespace rxt
