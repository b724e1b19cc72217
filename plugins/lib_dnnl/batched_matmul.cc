// A batch of small GEMMs (dnnl.matmul with b batched like a: attention's q kᵀ and p v) through
// oneDNN's matmul primitive with a batch dim: one call runs every item (dnnl_sgemm per item
// pays its set-up 128 times for the imported encoder's 128 x 32x16x32). The batch is split over
// the host's pool, one cached primitive per part size.
#include "batched_matmul.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <tuple>

#include "dnnl_context.h"
#include "host_threads.h"
#include "primitive_cache.h"

namespace rxt::lib_dnnl {
namespace {

using dnnl::memory;

struct Key {
  int64_t batch, m, k, n;
  bool trans_a, trans_b, bias, relu;
  auto Tie() const { return std::tie(batch, m, k, n, trans_a, trans_b, bias, relu); }
  bool operator<(const Key& o) const { return Tie() < o.Tie(); }
};

struct Primitive {
  memory::desc a, b, bias, c;
  dnnl::matmul matmul;
};

Primitive Create(const Key& key) {
  Primitive p;
  const auto f32 = memory::data_type::f32;
  int64_t m = key.m, k = key.k, n = key.n;
  // Row-major items, read transposed through their strides.
  p.a = memory::desc({key.batch, m, k}, f32, key.trans_a ? memory::dims{m * k, 1, m} : memory::dims{m * k, k, 1});
  p.b = memory::desc({key.batch, k, n}, f32, key.trans_b ? memory::dims{k * n, 1, k} : memory::dims{k * n, n, 1});
  p.c = memory::desc({key.batch, m, n}, f32, memory::dims{m * n, n, 1});
  if (key.bias) p.bias = memory::desc({1, 1, n}, f32, memory::dims{n, n, 1});
  dnnl::primitive_attr attr;
  if (key.relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  dnnl::matmul::desc desc = key.bias ? dnnl::matmul::desc(p.a, p.b, p.bias, p.c) : dnnl::matmul::desc(p.a, p.b, p.c);
  p.matmul = dnnl::matmul(dnnl::matmul::primitive_desc(desc, UserScratchpad(attr), Engine()));
  return p;
}

PrimitiveCache<Key, Primitive>& Cache() {
  static PrimitiveCache<Key, Primitive> cache;
  return cache;
}

}  // namespace

void BatchedMatmul(const BatchedGemms& g) {
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  int64_t a_size = g.m * g.k, b_size = g.k * g.n, c_size = g.m * g.n;
  // Below 2^20 multiply-adds on the calling thread alone (as the 2-D GEMMs).
  bool small = g.batch * g.m * g.n * g.k < (int64_t{1} << 20);
  BatchSplit split = small ? BatchSplit{g.batch, 1} : BatchSplit::Of(g.batch);
  ParallelParts(split.parts, [&](int64_t part) {
    auto [first, count] = split.Part(part);
    Key key{count, g.m, g.k, g.n, g.trans_a, g.trans_b, g.bias != nullptr, g.relu};
    std::shared_ptr<const Primitive> p = Cache().Get(key, [&] { return Create(key); });
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(p->a, Engine(), const_cast<float*>(g.a + first * a_size))},
        {DNNL_ARG_WEIGHTS, memory(p->b, Engine(), const_cast<float*>(g.b + first * b_size))},
        {DNNL_ARG_DST, memory(p->c, Engine(), g.c + first * c_size)}};
    if (g.bias != nullptr) args.emplace(DNNL_ARG_BIAS, memory(p->bias, Engine(), const_cast<float*>(g.bias)));
    Execute(p->matmul, std::move(args));
    ThreadStream().wait();
  });
}

}  // namespace rxt::lib_dnnl
