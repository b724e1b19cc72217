// dnnl.softmax(x, axis, out): softmax along one axis through oneDNN's softmax primitive (its
// vectorized exp; the generated kernel calls libm's expf once per element). x is viewed as
// (outer, n, inner) around the axis; the outer rows are split over the host's pool, one cached
// primitive per part shape. Results differ from the generated kernel's in the last bits (a
// float32 sum, oneDNN's exp), as a library GEMM's do.
#include <oneapi/dnnl/dnnl.hpp>

#include <tuple>

#include "dnnl_context.h"
#include "externs.h"
#include "host_threads.h"
#include "primitive_cache.h"
#include "tensor_args.h"

namespace rxt::lib_dnnl {
namespace {

using dnnl::memory;

/// (outer, n, inner): the dims before the axis, the axis, the dims after it.
struct SoftmaxShape {
  int64_t outer, n, inner;
  bool operator<(const SoftmaxShape& o) const {
    return std::tie(outer, n, inner) < std::tie(o.outer, o.n, o.inner);
  }
};

struct SoftmaxPrimitive {
  memory::desc data;
  dnnl::softmax_forward softmax;
};

SoftmaxPrimitive CreateSoftmax(const SoftmaxShape& s) {
  SoftmaxPrimitive p;
  // The axis innermost when it is (the common case: attention's rows), else in the middle.
  p.data = s.inner == 1 ? memory::desc({s.outer, s.n}, memory::data_type::f32, memory::format_tag::ab)
                        : memory::desc({s.outer, s.n, s.inner}, memory::data_type::f32, memory::format_tag::abc);
  dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, p.data, 1);
  p.softmax = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(desc, UserScratchpad(), Engine()));
  return p;
}

PrimitiveCache<SoftmaxShape, SoftmaxPrimitive>& SoftmaxCache() {
  static PrimitiveCache<SoftmaxShape, SoftmaxPrimitive> cache;
  return cache;
}

}  // namespace

void Softmax(void* const* args, int num_args) {
  CheckArity(num_args, 3, "dnnl.softmax");
  FloatView x = FloatArgView(args, 0, "argument 0 (x)", -1, 1);
  int64_t axis = IntArg(args, 1, "argument 1 (axis)");
  FloatView out = FloatArgView(args, 2, "the output", x.ndim);
  if (axis < 0 || axis >= x.ndim) {
    throw ArgumentError("axis " + std::to_string(axis) + " is out of range for x " + ShapeText(x.Shape()));
  }
  if (out.Shape() != x.Shape()) {
    throw ArgumentError("the output has shape " + ShapeText(out.Shape()) + ", expected " + ShapeText(x.Shape()));
  }
  SoftmaxShape shape{1, x.shape[axis], 1};
  for (int64_t i = 0; i < axis; ++i) shape.outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.ndim; ++i) shape.inner *= x.shape[i];
  if (shape.outer == 0 || shape.n == 0 || shape.inner == 0) return;
  int64_t row = shape.n * shape.inner;
  // The rows are independent: one part per thread of the host's pool, from 2^14 elements.
  BatchSplit split = shape.outer * row < (int64_t{1} << 14) ? BatchSplit{shape.outer, 1} : BatchSplit::Of(shape.outer);
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, count] = split.Part(part);
    SoftmaxShape part_shape{count, shape.n, shape.inner};
    std::shared_ptr<const SoftmaxPrimitive> p = SoftmaxCache().Get(part_shape, [&] { return CreateSoftmax(part_shape); });
    memory src(p->data, Engine(), x.data + first * row), dst(p->data, Engine(), out.data + first * row);
    Execute(p->softmax, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    ThreadStream().wait();
  });
}

}  // namespace rxt::lib_dnnl
