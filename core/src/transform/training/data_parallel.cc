/// AllReduceInBuckets (data_parallel.h).
#include "data_parallel.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "rxt/ir/builder.h"
#include "rxt/ir/op.h"
#include "transform/rewrite/function_inliner.h"

namespace rxt::training {
namespace {

const TensorSINode& TensorOf(const Expr& value) {
  const auto* t = GetStructInfo(value)->As<TensorSINode>();
  RXT_CHECK(t != nullptr, "data parallel: a value to reduce is not a tensor: ", ToString(GetStructInfo(value)));
  return *t;
}

/// Elements of a static tensor, or -1.
int64_t StaticElements(const TensorSINode& t) {
  if (!t.IsStatic()) return -1;
  int64_t n = 1;
  for (int64_t d : t.StaticShape()) n *= d;
  return n;
}

/// [begin, end) ranges of |values| that share a bucket.
std::vector<std::pair<size_t, size_t>> Buckets(const std::vector<ReducedValue>& values, int64_t bucket_bytes) {
  std::vector<std::pair<size_t, size_t>> buckets;
  size_t begin = 0;
  int64_t bytes = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const TensorSINode& t = TensorOf(values[i].value);
    int64_t n = StaticElements(t);
    int64_t size = n < 0 ? -1 : n * static_cast<int64_t>(DTypeBytes(t.dtype));
    bool joins = i > begin && size >= 0 && bytes >= 0 && bytes + size <= bucket_bytes &&
                 values[i].op == values[begin].op && t.dtype == TensorOf(values[begin].value).dtype;
    if (!joins && i > begin) {
      buckets.emplace_back(begin, i);
      begin = i;
      bytes = 0;
    }
    bytes = size < 0 || bytes < 0 ? -1 : bytes + size;
  }
  if (begin < values.size()) buckets.emplace_back(begin, values.size());
  return buckets;
}

Var Bind(std::vector<BindingBlock>& blocks, const std::string& op, std::vector<Expr> args, Attrs attrs,
         const std::string& name, const IRModule& module, std::vector<StructInfo> sinfo_args = {}) {
  Expr call = MakeOpCall(op, std::move(args), std::move(attrs), std::move(sinfo_args));
  InferStructInfo(call, &module);
  return BindLocal(blocks, call, name);
}

Attrs OpAttr(const std::string& op) {
  Attrs attrs;
  attrs.Set("op", op);
  return attrs;
}

/// The positions of |values| in the order |blocks| compute them (a value bound earlier first; a
/// parameter or constant before everything); ties keep the given order.
std::vector<size_t> ProductionOrder(const std::vector<BindingBlock>& blocks, const std::vector<ReducedValue>& values) {
  std::unordered_map<const VarNode*, int64_t> bound_at;
  int64_t position = 0;
  for (const BindingBlock& block : blocks) {
    for (const Binding& binding : block.bindings) bound_at[binding.var.get()] = position++;
  }
  std::vector<int64_t> when(values.size(), -1);
  for (size_t i = 0; i < values.size(); ++i) {
    const auto* var = values[i].value->As<VarNode>();
    auto it = var != nullptr ? bound_at.find(var) : bound_at.end();
    if (it != bound_at.end()) when[i] = it->second;
  }
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return when[a] < when[b]; });
  return order;
}

/// The value a bucket passes: its one tensor, or the tuple of its members.
Expr BucketArg(const std::vector<ReducedValue>& values, size_t begin, size_t end) {
  if (end - begin == 1) return values[begin].value;
  std::vector<Expr> members;
  for (size_t i = begin; i < end; ++i) members.push_back(values[i].value);
  return MakeTupleOf(members);
}

/// Binds the fields of a bucket's combined value |combined| (or the value itself, for one).
void TakeFields(std::vector<BindingBlock>& blocks, const Var& combined, size_t count, std::vector<Expr>& reduced) {
  if (count == 1) {
    reduced.push_back(combined);
    return;
  }
  for (size_t i = 0; i < count; ++i) reduced.push_back(TupleField(blocks, combined, static_cast<int>(i), "reduced"));
}

}  // namespace

std::vector<Expr> AllReduceInBuckets(std::vector<BindingBlock>& blocks, const std::vector<ReducedValue>& given,
                                     int64_t bucket_bytes, bool overlap, const IRModule& module) {
  std::vector<size_t> order(given.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (overlap) order = ProductionOrder(blocks, given);
  std::vector<ReducedValue> values;
  for (size_t i : order) values.push_back(given[i]);

  std::vector<Expr> reduced;  // in the order of |values|
  std::vector<std::pair<size_t, size_t>> buckets = Buckets(values, bucket_bytes);
  if (!overlap) {
    // One call for a bucket: the extern packs its tensors into one communication.
    for (auto [begin, end] : buckets) {
      Var combined = Bind(blocks, "ccl.allreduce", {BucketArg(values, begin, end)}, OpAttr(values[begin].op),
                          end - begin == 1 ? "reduced" : "bucket_reduced", module);
      TakeFields(blocks, combined, end - begin, reduced);
    }
  } else {
    std::vector<Var> requests;
    for (auto [begin, end] : buckets) {
      requests.push_back(Bind(blocks, "ccl.allreduce_start", {BucketArg(values, begin, end)},
                              OpAttr(values[begin].op), "request", module));
    }
    for (size_t k = 0; k < buckets.size(); ++k) {
      auto [begin, end] = buckets[k];
      StructInfo combined_sinfo = GetStructInfo(BucketArg(values, begin, end));
      Var combined = Bind(blocks, "ccl.allreduce_wait", {requests[k]}, {}, "bucket_reduced", module,
                          {combined_sinfo});
      TakeFields(blocks, combined, end - begin, reduced);
    }
  }
  std::vector<Expr> in_given_order(given.size());
  for (size_t i = 0; i < order.size(); ++i) in_given_order[order[i]] = reduced[i];
  return in_given_order;
}

}  // namespace rxt::training
