/// AllReduceInBuckets (data_parallel.h).
#include "data_parallel.h"

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
         const std::string& name, const IRModule& module) {
  Expr call = MakeOpCall(op, std::move(args), std::move(attrs));
  InferStructInfo(call, &module);
  return BindLocal(blocks, call, name);
}

Attrs OpAttr(const std::string& op) {
  Attrs attrs;
  attrs.Set("op", op);
  return attrs;
}

}  // namespace

std::vector<Expr> AllReduceInBuckets(std::vector<BindingBlock>& blocks, const std::vector<ReducedValue>& values,
                                     int64_t bucket_bytes, const IRModule& module) {
  std::vector<Expr> reduced;
  for (auto [begin, end] : Buckets(values, bucket_bytes)) {
    const std::string& op = values[begin].op;
    if (end - begin == 1) {
      reduced.push_back(Bind(blocks, "ccl.allreduce", {values[begin].value}, OpAttr(op), "reduced", module));
      continue;
    }
    // One call for the bucket: the extern packs its tensors into one communication.
    std::vector<Expr> members;
    for (size_t i = begin; i < end; ++i) members.push_back(values[i].value);
    Var combined = Bind(blocks, "ccl.allreduce", {MakeTupleOf(members)}, OpAttr(op), "bucket_reduced", module);
    for (size_t i = begin; i < end; ++i) {
      reduced.push_back(TupleField(blocks, combined, static_cast<int>(i - begin), "reduced"));
    }
  }
  return reduced;
}

}  // namespace rxt::training
