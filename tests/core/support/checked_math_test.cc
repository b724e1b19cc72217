#include "rxt/support/checked_math.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace rxt {
namespace {

TEST(CheckedMath, AddAndMultiplyReportOverflow) {
  int32_t i = 0;
  EXPECT_TRUE(CheckedAdd(2147483646, 1, &i));
  EXPECT_EQ(i, 2147483647);
  EXPECT_FALSE(CheckedAdd(2147483647, 1, &i));  // the checkpoint epoch of issue 11
  uint64_t u = 0;
  EXPECT_FALSE(CheckedMul(uint64_t{1} << 40, uint64_t{1} << 40, &u));
  EXPECT_TRUE(CheckedMul(uint64_t{1} << 20, uint64_t{1} << 20, &u));
  EXPECT_EQ(u, uint64_t{1} << 40);
}

TEST(CheckedMath, ByteSize) {
  int64_t bytes = 0;
  std::vector<int64_t> dims = {2, 3};
  ASSERT_TRUE(CheckedByteSize(dims.data(), dims.size(), 4, 1000, &bytes));
  EXPECT_EQ(bytes, 24);
  EXPECT_FALSE(CheckedByteSize(dims.data(), dims.size(), 4, 23, &bytes));  // over the limit
  std::vector<int64_t> huge = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_FALSE(CheckedByteSize(huge.data(), huge.size(), 4, std::numeric_limits<int64_t>::max(), &bytes));
  std::vector<int64_t> empty = {int64_t{1} << 40, int64_t{1} << 40, 0};
  ASSERT_TRUE(CheckedByteSize(empty.data(), empty.size(), 4, 10, &bytes));
  EXPECT_EQ(bytes, 0);
  std::vector<int64_t> negative = {2, -1};
  EXPECT_FALSE(CheckedByteSize(negative.data(), negative.size(), 4, 1000, &bytes));
}

}  // namespace
}  // namespace rxt
