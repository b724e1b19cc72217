// Normalization (batch_norm in training and inference, layer_norm) and the losses
// (nll_loss with weights, ignore_index and every reduction; cross_entropy_with_logits).
#include <cmath>

#include "core/transform/legalize/numeric/numeric_test_util.h"
#include "rxt/support/error.h"

namespace rxt::numeric {
namespace {

constexpr DType kF32 = DType::kFloat32;

/// Mean and population variance of the elements of |x| whose index satisfies |select|.
std::pair<double, double> Moments(const Array& x, const std::function<bool(const Idx&)>& select) {
  double sum = 0, count = 0;
  ForEachIndex(x.shape, [&](const Idx& i) {
    if (select(i)) sum += x.at(i), ++count;
  });
  double mean = sum / count, squares = 0;
  ForEachIndex(x.shape, [&](const Idx& i) {
    if (select(i)) squares += (x.at(i) - mean) * (x.at(i) - mean);
  });
  return {mean, squares / count};
}

TEST(NormNumeric, BatchNormTrainingAndInference) {
  struct Case {
    std::string params;
    Shape shape;
    int axis;
  };
  const Case cases[] = {{"%x: Tensor((n, 3, 2, 2), float32)", {2, 3, 2, 2}, 1},
                        {"%x: Tensor((n, 3), float32)", {4, 3}, -1}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    int axis = c.axis < 0 ? c.axis + static_cast<int>(c.shape.size()) : c.axis;
    int64_t channels = c.shape[axis];
    Array x = Random(c.shape, kF32, seed++, -3, 3);
    Array gamma = Random({channels}, kF32, seed++, 0.5, 2), beta = Random({channels}, kF32, seed++);
    Array mean = Random({channels}, kF32, seed++), var = Random({channels}, kF32, seed++, 0.5, 2);
    std::string params = c.params + StrCat(", %g: Tensor((", channels, ",), float32), %b: Tensor((", channels,
                                           ",), float32), %m: Tensor((", channels, ",), float32), %v: Tensor((",
                                           channels, ",), float32)");
    int64_t per_channel = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) per_channel *= static_cast<int>(d) == axis ? 1 : c.shape[d];
    for (auto [training, unbiased] : {std::pair{true, true}, {true, false}, {false, true}}) {
      std::string call = StrCat("nn.batch_norm(%x, %g, %b, %m, %v, axis=", c.axis,
                                ", epsilon=0.001, momentum=0.2, training=", training ? "true" : "false",
                                ", unbiased_running_var=", unbiased ? "true" : "false", ")");
      SCOPED_TRACE(call);
      std::vector<Array> out = RunOp(params, call, {x, gamma, beta, mean, var});
      ASSERT_EQ(out.size(), 3u);
      std::vector<double> m(channels), v(channels);
      for (int64_t ch = 0; ch < channels; ++ch) {
        if (training) {
          std::tie(m[ch], v[ch]) = Moments(x, [&](const Idx& i) { return i[axis] == ch; });
        } else {
          m[ch] = mean.data[ch], v[ch] = var.data[ch];
        }
      }
      EXPECT_TRUE(Near(out[0], Map(x.shape, kF32, [&](const Idx& i) {
        int64_t ch = i[axis];
        return (x.at(i) - m[ch]) / std::sqrt(v[ch] + 0.001) * gamma.data[ch] + beta.data[ch];
      }), 1e-4, 1e-5));
      EXPECT_TRUE(Near(out[1], Map({channels}, kF32, [&](const Idx& i) {
        return training ? 0.8 * mean.at(i) + 0.2 * m[i[0]] : mean.at(i);
      }), 1e-5, 1e-6));
      EXPECT_TRUE(Near(out[2], Map({channels}, kF32, [&](const Idx& i) {
        // The moving variance takes the unbiased batch variance (PyTorch), or the population one (ONNX).
        double batch = unbiased ? v[i[0]] * per_channel / (per_channel - 1) : v[i[0]];
        return training ? 0.8 * var.at(i) + 0.2 * batch : var.at(i);
      }), 1e-5, 1e-6));
    }
  }
}

// Channel means large next to their spread: the statistics and x - mean are computed in
// float64 (rounded once into the result), so the result is as accurate as float32 holds it.
TEST(NormNumeric, BatchNormIsAccurateWhereChannelMeansAreLarge) {
  Shape shape = {64, 2, 4, 4};
  Array x = Map(shape, kF32, [&](const Idx& i) { return (i[1] == 0 ? 300 : -40) + std::sin(0.37 * (i[0] * 16 + i[2] * 4 + i[3])); });
  Array gamma{kF32, {2}, {1.5, 0.75}}, beta{kF32, {2}, {0.25, -1}}, zeros{kF32, {2}, {0, 0}}, ones{kF32, {2}, {1, 1}};
  std::vector<Array> out = RunOp(
      "%x: Tensor((64, 2, 4, 4), float32), %g: Tensor((2,), float32), %b: Tensor((2,), float32), "
      "%m: Tensor((2,), float32), %v: Tensor((2,), float32)",
      "nn.batch_norm(%x, %g, %b, %m, %v, axis=1, epsilon=1e-05, training=true)", {x, gamma, beta, zeros, ones});
  double m[2], v[2];
  for (int64_t ch = 0; ch < 2; ++ch) std::tie(m[ch], v[ch]) = Moments(x, [&](const Idx& i) { return i[1] == ch; });
  Array expected = Map(shape, kF32, [&](const Idx& i) {
    int64_t ch = i[1];
    return (x.at(i) - m[ch]) / std::sqrt(v[ch] + 1e-5) * gamma.data[ch] + beta.data[ch];
  });
  // One float32 rounding (6e-8 relative) and an ulp of the tiniest results, no more.
  EXPECT_TRUE(Near(out[0], expected, 2e-7, 1e-7));
}

TEST(NormNumeric, LayerNormOverTrailingAndInnerAxes) {
  Array x = Random({2, 3, 4}, kF32, 10, -3, 3);
  Array g1 = Random({4}, kF32, 11, 0.5, 2), b1 = Random({4}, kF32, 12);
  std::vector<Array> out = RunOp("%x: Tensor((n, 3, 4), float32), %g: Tensor((4,), float32), %b: Tensor((4,), float32)",
                                 "nn.layer_norm(%x, %g, %b, axes=[-1])", {x, g1, b1});
  EXPECT_TRUE(Near(out[0], Map(x.shape, kF32, [&](const Idx& i) {
    auto [m, v] = Moments(x, [&](const Idx& j) { return j[0] == i[0] && j[1] == i[1]; });
    return (x.at(i) - m) / std::sqrt(v + 1e-5) * g1.at({i[2]}) + b1.at({i[2]});
  }), 1e-4, 1e-5));
  // Two axes, listed out of order: gamma and beta follow the listed order (4, 3).
  Array g2 = Random({4, 3}, kF32, 13, 0.5, 2), b2 = Random({4, 3}, kF32, 14);
  out = RunOp("%x: Tensor((n, 3, 4), float32), %g: Tensor((4, 3), float32), %b: Tensor((4, 3), float32)",
              "nn.layer_norm(%x, %g, %b, axes=[2, 1], epsilon=0.01)", {x, g2, b2});
  EXPECT_TRUE(Near(out[0], Map(x.shape, kF32, [&](const Idx& i) {
    auto [m, v] = Moments(x, [&](const Idx& j) { return j[0] == i[0]; });
    return (x.at(i) - m) / std::sqrt(v + 0.01) * g2.at({i[2], i[1]}) + b2.at({i[2], i[1]});
  }), 1e-4, 1e-5));
}

/// PyTorch's nll_loss.
Array ReferenceNllLoss(const Array& pred, const Array& targets, const Array* weights, const std::string& reduction,
                       int64_t ignore_index) {
  double total = 0, total_weight = 0;
  Array none = Map(targets.shape, kF32, [&](const Idx& j) {
    int64_t c = static_cast<int64_t>(targets.at(j));
    if (c == ignore_index) return 0.0;
    double w = weights ? weights->data[c] : 1.0;
    Idx p = {c};
    if (pred.shape.size() > 1) {
      p = {j[0], c};
      p.insert(p.end(), j.begin() + 1, j.end());
    }
    total += -w * pred.at(p);
    total_weight += w;
    return -w * pred.at(p);
  });
  if (reduction == "none") return none;
  return Array{kF32, {}, {static_cast<double>(static_cast<float>(reduction == "sum" ? total : total / total_weight))}};
}

TEST(LossNumeric, NllLossWeightsIgnoreIndexAndReductions) {
  Array pred2 = Random({4, 3}, kF32, 20, -3, 0);
  Array targets2{DType::kInt64, {4}, {0, 2, -100, 1}};
  Array pred3 = Random({2, 3, 2}, kF32, 21, -3, 0);
  Array targets3{DType::kInt32, {2, 2}, {2, 5, 0, 1}};  // 5 is ignore_index here
  Array pred1 = Random({3}, kF32, 22, -3, 0);
  Array target1{DType::kInt64, {}, {1}};
  Array weights = Random({3}, kF32, 23, 0.5, 2);
  for (const char* reduction : {"none", "sum", "mean"}) {
    SCOPED_TRACE(reduction);
    std::string r = StrCat("reduction=\"", reduction, "\"");
    EXPECT_TRUE(Near(RunOp("%p: Tensor((n, 3), float32), %t: Tensor((n,), int64)", StrCat("nn.nll_loss(%p, %t, ", r, ")"),
                           {pred2, targets2})[0],
                     ReferenceNllLoss(pred2, targets2, nullptr, reduction, -100), 1e-5, 1e-6));
    EXPECT_TRUE(Near(RunOp("%p: Tensor((n, 3), float32), %t: Tensor((n,), int64), %w: Tensor((3,), float32)",
                           StrCat("nn.nll_loss(%p, %t, %w, ", r, ")"), {pred2, targets2, weights})[0],
                     ReferenceNllLoss(pred2, targets2, &weights, reduction, -100), 1e-5, 1e-6));
    EXPECT_TRUE(Near(RunOp("%p: Tensor((2, 3, d), float32), %t: Tensor((2, d), int32), %w: Tensor((3,), float32)",
                           StrCat("nn.nll_loss(%p, %t, %w, ", r, ", ignore_index=5)"), {pred3, targets3, weights})[0],
                     ReferenceNllLoss(pred3, targets3, &weights, reduction, 5), 1e-5, 1e-6));
    EXPECT_TRUE(Near(RunOp("%p: Tensor((3,), float32), %t: Tensor((), int64)", StrCat("nn.nll_loss(%p, %t, ", r, ")"),
                           {pred1, target1})[0],
                     ReferenceNllLoss(pred1, target1, nullptr, reduction, -100), 1e-5, 1e-6));
  }
}

TEST(LossNumeric, CrossEntropyWithLogitsDividesByTheBatch) {
  Array pred = Random({3, 4}, kF32, 30, -3, 0), labels = Random({3, 4}, kF32, 31, 0, 1);
  double sum = 0;
  for (size_t i = 0; i < pred.data.size(); ++i) sum += pred.data[i] * labels.data[i];
  EXPECT_TRUE(Near(RunOp("%p: Tensor((n, 4), float32), %l: Tensor((n, 4), float32)",
                         "nn.cross_entropy_with_logits(%p, %l)", {pred, labels})[0],
                   Array{kF32, {}, {RoundTo(kF32, -sum / 3)}}, 1e-5, 1e-6));
  Array p1 = Random({4}, kF32, 32, -3, 0), l1 = Random({4}, kF32, 33, 0, 1);
  double sum1 = 0;
  for (size_t i = 0; i < 4; ++i) sum1 += p1.data[i] * l1.data[i];
  EXPECT_TRUE(Near(RunOp("%p: Tensor((4,), float32), %l: Tensor((4,), float32)", "nn.cross_entropy_with_logits(%p, %l)",
                         {p1, l1})[0],
                   Array{kF32, {}, {RoundTo(kF32, -sum1)}}, 1e-5, 1e-6));
}

}  // namespace
}  // namespace rxt::numeric
