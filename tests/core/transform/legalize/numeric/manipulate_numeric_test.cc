// Shape manipulation: permute_dims, reshape, broadcast_to, collapse_sum_to, expand_dims,
// squeeze, flatten, concat, split, strided_slice, take, pad, one_hot.
#include <algorithm>

#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

constexpr DType kF32 = DType::kFloat32;

/// The element at row-major position |flat| of |a|.
double Flat(const Array& a, int64_t flat) { return a.data[flat]; }

TEST(ManipulateNumeric, PermuteDims) {
  Array x = Random({2, 3, 4}, kF32, 1);
  std::vector<Array> out = RunOp("%x: Tensor((n, 3, 4), float32)", "permute_dims(%x, axes=[2, 0, -2])", {x});
  EXPECT_TRUE(Near(out[0], Map({4, 2, 3}, kF32, [&](const Idx& i) { return x.at({i[1], i[2], i[0]}); })));
  out = RunOp("%x: Tensor((n, 3, 4), float32)", "permute_dims(%x)", {x});
  EXPECT_TRUE(Near(out[0], Map({4, 3, 2}, kF32, [&](const Idx& i) { return x.at({i[2], i[1], i[0]}); })));
}

TEST(ManipulateNumeric, ReshapeAndFlattenKeepRowMajorOrder) {
  Array x = Random({2, 6}, kF32, 2);
  for (const char* call : {"reshape(%x, shape(3, -1))", "reshape(%x, shape(3, 2, 2))"}) {
    SCOPED_TRACE(call);
    std::vector<Array> out = RunOp("%x: Tensor((2, 6), float32)", call, {x});
    EXPECT_EQ(out[0].data, x.data);
    EXPECT_EQ(out[0].shape[0], 3);
  }
  // The kernel reads x's (n * 2, 3) buffer with its own bare dim.
  std::vector<Array> out = RunOp("%s: Tensor((n,), float32), %x: Tensor((n * 2, 3), float32)", "reshape(%x, shape(n, 6))",
                                 {Random({2}, kF32, 3), Random({4, 3}, kF32, 3)});
  EXPECT_EQ(out[0].shape, (Shape{2, 6}));
  Array y = Random({2, 3, 2}, kF32, 4);
  out = RunOp("%y: Tensor((n, 3, 2), float32)", "flatten(%y)", {y});
  EXPECT_EQ(out[0].shape, (Shape{12}));
  EXPECT_EQ(out[0].data, y.data);
  // torch.flatten(y, 1): the batch dim stays.
  out = RunOp("%y: Tensor((n, 3, 2), float32)", "flatten(%y, start_dim=1)", {y});
  EXPECT_EQ(out[0].shape, (Shape{2, 6}));
  EXPECT_EQ(out[0].data, y.data);
}

// Static shapes are mapped group by group (dims of equal element count): merges, splits, dims
// of 1, groups that both merge and split, and to and from a scalar all keep row-major order.
TEST(ManipulateNumeric, ReshapeOfStaticShapesKeepsRowMajorOrder) {
  struct Case {
    const char* in;
    const char* shape;
    Shape out;
  };
  for (const Case& c : std::vector<Case>{{"(4, 16, 5, 5)", "shape(4, 400)", {4, 400}},        // LeNet's flatten
                                         {"(4, 400)", "shape(4, 16, 5, 5)", {4, 16, 5, 5}},   // its gradient
                                         {"(1, 6, 1, 4)", "shape(6, 4, 1)", {6, 4, 1}},       // dims of 1
                                         {"(6, 4)", "shape(4, 6)", {4, 6}},                   // merge and split at once
                                         {"(2, 3, 4)", "shape(3, 2, 2, 2)", {3, 2, 2, 2}},
                                         {"(1,)", "shape()", {}},
                                         {"()", "shape(1, 1)", {1, 1}}}) {
    SCOPED_TRACE(std::string(c.in) + " -> " + c.shape);
    std::string in = c.in;
    Shape in_shape;
    for (size_t pos = 1; pos < in.size() - 1;) {
      size_t end = in.find_first_of(",)", pos);
      std::string dim = in.substr(pos, end - pos);
      if (dim.find_first_not_of(' ') != std::string::npos) in_shape.push_back(std::stoll(dim));
      pos = end + 1;
    }
    Array x = Random(in_shape, kF32, 9);
    std::vector<Array> out = RunOp("%x: Tensor(" + in + ", float32)", std::string("reshape(%x, ") + c.shape + ")", {x});
    EXPECT_EQ(out[0].shape, c.out);
    EXPECT_EQ(out[0].data, x.data);
  }
}

TEST(ManipulateNumeric, BroadcastTo) {
  Array x = Random({3, 1}, kF32, 5);
  std::vector<Array> out = RunOp("%x: Tensor((3, 1), float32)", "broadcast_to(%x, shape(2, 3, 4))", {x});
  EXPECT_TRUE(Near(out[0], Map({2, 3, 4}, kF32, [&](const Idx& i) { return BroadcastAt(x, i); })));
}

TEST(ManipulateNumeric, CollapseSumToSumsTheBroadcastDims) {
  Array x = Random({2, 3, 4}, kF32, 6);
  auto expect = [&](const Shape& target) {
    return Map(target, kF32, [&](const Idx& t) {
      double sum = 0;
      ForEachIndex(x.shape, [&](const Idx& i) {
        size_t lead = x.shape.size() - target.size();
        for (size_t k = 0; k < target.size(); ++k) {
          if (target[k] != 1 && i[lead + k] != t[k]) return;
        }
        sum += x.at(i);
      });
      return sum;
    });
  };
  for (const Shape& target : {Shape{3, 1}, Shape{4}, Shape{1, 3, 4}, Shape{2, 1, 1}, Shape{}}) {
    std::string dims;
    for (int64_t d : target) dims += StrCat(dims.empty() ? "" : ", ", d);
    SCOPED_TRACE(dims);
    std::vector<Array> out =
        RunOp("%x: Tensor((n, 3, 4), float32)", StrCat("collapse_sum_to(%x, shape(", dims, "))"), {x});
    EXPECT_TRUE(Near(out[0], expect(target)));
  }
}

TEST(ManipulateNumeric, ExpandDimsAndSqueeze) {
  Array x = Random({2, 3}, kF32, 7);
  std::vector<Array> out = RunOp("%x: Tensor((n, 3), float32)", "expand_dims(%x, axis=[0, -1])", {x});
  EXPECT_EQ(out[0].shape, (Shape{1, 2, 3, 1}));
  EXPECT_EQ(out[0].data, x.data);
  Array y = Random({1, 3, 1, 2}, kF32, 8);
  out = RunOp("%y: Tensor((1, 3, 1, 2), float32)", "squeeze(%y)", {y});
  EXPECT_EQ(out[0].shape, (Shape{3, 2}));
  EXPECT_EQ(out[0].data, y.data);
  out = RunOp("%y: Tensor((1, n, 1, 2), float32)", "squeeze(%y, axis=[-2])", {y});
  EXPECT_EQ(out[0].shape, (Shape{1, 3, 2}));
  EXPECT_EQ(out[0].data, y.data);
}

TEST(ManipulateNumeric, ConcatAlongAnyAxis) {
  Array a = Random({2, 3}, kF32, 9), b = Random({2, 1}, kF32, 10), c = Random({2, 2}, kF32, 11);
  std::vector<Array> out = RunOp("%a: Tensor((n, 3), float32), %b: Tensor((n, 1), float32), %c: Tensor((n, m), float32)",
                                 "concat((%a, %b, %c), axis=-1)", {a, b, c});
  EXPECT_TRUE(Near(out[0], Map({2, 6}, kF32, [&](const Idx& i) {
    int64_t j = i[1];
    return j < 3 ? a.at({i[0], j}) : j < 4 ? b.at({i[0], j - 3}) : c.at({i[0], j - 4});
  })));
  // Along a symbolic axis, from a tuple variable.
  Array d = Random({3, 2}, kF32, 12);
  out = RunFunction("%a: Tensor((n, 3), float32), %d: Tensor((m, 3), float32)", "%t = (%a, %d)\n  %r = concat(%t)",
                    {a, Random({3, 3}, kF32, 13)});
  EXPECT_EQ(out[0].shape, (Shape{5, 3}));
  EXPECT_TRUE(std::equal(a.data.begin(), a.data.end(), out[0].data.begin()));
}

TEST(ManipulateNumeric, SplitBySectionsAndIndices) {
  Array x = Random({6, 2}, kF32, 20);
  auto rows = [&](int64_t begin, int64_t end) {
    return Map({end - begin, 2}, kF32, [&](const Idx& i) { return x.at({begin + i[0], i[1]}); });
  };
  std::vector<Array> out = RunOp("%x: Tensor((n, 2), float32)", "split(%x, sections=3)", {x});
  ASSERT_EQ(out.size(), 3u);
  for (int p = 0; p < 3; ++p) EXPECT_TRUE(Near(out[p], rows(2 * p, 2 * p + 2)));
  out = RunOp("%x: Tensor((6, 2), float32)", "split(%x, indices=[1, 4, 9])", {x});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(Near(out[0], rows(0, 1)));
  EXPECT_TRUE(Near(out[1], rows(1, 4)));
  EXPECT_TRUE(Near(out[2], rows(4, 6)));
  EXPECT_EQ(out[3].shape, (Shape{0, 2}));
  Array y = Random({2, 5}, kF32, 21);
  out = RunOp("%y: Tensor((m, 5), float32)", "split(%y, indices=[2], axis=-1)", {y});
  EXPECT_TRUE(Near(out[1], Map({2, 3}, kF32, [&](const Idx& i) { return y.at({i[0], i[1] + 2}); })));
  // One part (concat's adjoint of a single input): still a tuple, whose field is read.
  out = RunFunction("%y: Tensor((m, 5), float32)", "%t = split(%y, indices=[], axis=1)\n  %r = %t[0]", {y});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, y.data);
}

TEST(ManipulateNumeric, StridedSliceWithNegativeAndClampedBounds) {
  Array x = Random({5, 6}, kF32, 22);
  struct Case {
    const char* attrs;
    Shape shape;
    std::function<Idx(const Idx&)> source;
  };
  const Case cases[] = {
      {"axes=[1], begin=[1], end=[5], strides=[2]", {5, 2}, [](const Idx& i) { return Idx{i[0], 1 + 2 * i[1]}; }},
      {"axes=[0, 1], begin=[-2, 0], end=[100, -1]", {2, 5}, [](const Idx& i) { return Idx{3 + i[0], i[1]}; }},
      {"axes=[1], begin=[-1], end=[-100], strides=[-2]", {5, 3}, [](const Idx& i) { return Idx{i[0], 5 - 2 * i[1]}; }},
      {"axes=[-2], begin=[10], end=[0], strides=[-1]", {4, 6}, [](const Idx& i) { return Idx{4 - i[0], i[1]}; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    std::vector<Array> out = RunOp("%x: Tensor((5, 6), float32)", StrCat("strided_slice(%x, ", c.attrs, ")"), {x});
    EXPECT_TRUE(Near(out[0], Map(c.shape, kF32, [&](const Idx& i) { return x.at(c.source(i)); })));
  }
  // A symbolic dim, sliced to its end.
  std::vector<Array> out =
      RunOp("%x: Tensor((n, 6), float32)", "strided_slice(%x, axes=[0], begin=[1], end=[2147483647], strides=[2])", {x});
  EXPECT_TRUE(Near(out[0], Map({2, 6}, kF32, [&](const Idx& i) { return x.at({1 + 2 * i[0], i[1]}); })));
}

TEST(ManipulateNumeric, TakeWrapsNegativeAndClipsIndices) {
  Array x = Random({3, 4}, kF32, 23);
  Array indices{DType::kInt64, {2, 2}, {0, -1, 2, 7}};  // -1: the last; 7: clipped to the last
  auto clip = [](double i, int64_t n) {
    int64_t k = static_cast<int64_t>(i);
    if (k < 0) k += n;
    return std::clamp<int64_t>(k, 0, n - 1);
  };
  std::vector<Array> out =
      RunOp("%x: Tensor((n, 4), float32), %i: Tensor((2, 2), int64)", "take(%x, %i, axis=1)", {x, indices});
  EXPECT_TRUE(Near(out[0], Map({3, 2, 2}, kF32, [&](const Idx& i) {
    return x.at({i[0], clip(indices.at({i[1], i[2]}), 4)});
  })));
  Array flat_indices{DType::kInt32, {3}, {5, -2, 11}};
  out = RunOp("%x: Tensor((n, 4), float32), %i: Tensor((3,), int32)", "take(%x, %i)", {x, flat_indices});
  EXPECT_TRUE(Near(out[0], Map({3}, kF32, [&](const Idx& i) { return Flat(x, clip(flat_indices.at(i), 12)); })));
  out = RunOp("%x: Tensor((n, 4), float32), %i: Tensor((), int64)", "take(%x, %i, axis=0)",
              {x, Array{DType::kInt64, {}, {2}}});
  EXPECT_TRUE(Near(out[0], Map({4}, kF32, [&](const Idx& i) { return x.at({2, i[0]}); })));
}

TEST(ManipulateNumeric, PadWithAConstant) {
  Array x = Random({2, 3}, kF32, 24);
  std::vector<Array> out = RunOp("%x: Tensor((n, 3), float32)", "pad(%x, pad_width=[1, 0, 2, 1], pad_value=0.5)", {x});
  EXPECT_TRUE(Near(out[0], Map({3, 6}, kF32, [&](const Idx& i) {
    int64_t r = i[0] - 1, c = i[1] - 2;
    return r >= 0 && r < 2 && c >= 0 && c < 3 ? x.at({r, c}) : 0.5;
  })));
}

TEST(ManipulateNumeric, OneHotAtAnyAxis) {
  Array indices{DType::kInt32, {2, 2}, {0, 3, 2, -1}};
  std::vector<Array> out = RunOp("%i: Tensor((n, 2), int32)", "one_hot(%i, prim(2f32), prim(-1f32), depth=4)", {indices});
  EXPECT_TRUE(Near(out[0], Map({2, 2, 4}, kF32, [&](const Idx& i) {
    return indices.at({i[0], i[1]}) == static_cast<double>(i[2]) ? 2.0 : -1.0;
  })));
  out = RunOp("%i: Tensor((n, 2), int32)", "one_hot(%i, prim(1i64), prim(0i64), depth=3, axis=0)", {indices});
  EXPECT_TRUE(Near(out[0], Map({3, 2, 2}, DType::kInt64, [&](const Idx& i) {
    return indices.at({i[1], i[2]}) == static_cast<double>(i[0]) ? 1.0 : 0.0;
  })));
}

TEST(ManipulateNumeric, OneHotWithValuesKnownOnlyAtRunTime) {
  Array indices{DType::kInt64, {3}, {1, 0, 2}};
  std::vector<Array> out = RunOp("%i: Tensor((3,), int64), %on: Prim(float32), %off: Prim(float32)",
                                 "one_hot(%i, %on, %off, depth=2)",
                                 {indices, Array{kF32, {}, {4.5}}, Array{kF32, {}, {-0.5}}});
  EXPECT_TRUE(Near(out[0], Map({3, 2}, kF32, [&](const Idx& i) {
    return indices.at({i[0]}) == static_cast<double>(i[1]) ? 4.5 : -0.5;
  })));
}

}  // namespace
}  // namespace rxt::numeric
