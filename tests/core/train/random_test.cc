// The training generator (core/include/rxt/train/random.h): fixed sequences for a seed (the
// values below are SplitMix64's), uniform ranges and a shuffle that is a permutation.
#include "rxt/train/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace rxt {
namespace {

TEST(Random, SequenceIsSplitMix64) {
  Random rng(1234567);
  // Reference values of SplitMix64 seeded with 1234567.
  EXPECT_EQ(rng.NextU64(), 6457827717110365317ull);
  EXPECT_EQ(rng.NextU64(), 3203168211198807973ull);
  EXPECT_EQ(rng.NextU64(), 9817491932198370423ull);
}

TEST(Random, DoublesAreInTheUnitIntervalAndBelowIsInRange) {
  Random rng(5);
  double low = 1, high = 0;
  for (int i = 0; i < 10000; ++i) {
    double u = rng.NextDouble();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    low = std::min(low, u);
    high = std::max(high, u);
  }
  EXPECT_LT(low, 0.01);
  EXPECT_GT(high, 0.99);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 7000; ++i) ++counts[rng.NextBelow(7)];
  for (int c : counts) EXPECT_GT(c, 800);
}

TEST(Random, ShuffleIsASeededPermutation) {
  std::vector<int> a(100), b;
  std::iota(a.begin(), a.end(), 0);
  b = a;
  Random r1 = Random::Stream(9, 2), r2 = Random::Stream(9, 2), r3 = Random::Stream(9, 3);
  Shuffle(a, r1);
  Shuffle(b, r2);
  EXPECT_EQ(a, b);
  std::vector<int> c(100);
  std::iota(c.begin(), c.end(), 0);
  Shuffle(c, r3);
  EXPECT_NE(a, c);  // another stream, another order
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
}

}  // namespace
}  // namespace rxt
