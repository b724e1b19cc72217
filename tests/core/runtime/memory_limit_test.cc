// The memory limit (issue 11, class 5): sizes asked for by files are checked before anything
// is allocated.
#include "rxt/runtime/memory_limit.h"

#include <gtest/gtest.h>

#include <string>

#include "rxt/runtime/tensor.h"
#include "rxt/support/error.h"

namespace rxt {
namespace {

// Sets a limit for one test and restores the default after it.
class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(int64_t bytes) { SetMemoryLimit(bytes); }
  ~ScopedMemoryLimit() { SetMemoryLimit(0); }
};

TEST(MemoryLimit, ParsesSizesWithUnits) {
  EXPECT_EQ(ParseByteSize("1048576"), 1048576);
  EXPECT_EQ(ParseByteSize("512K"), 512 << 10);
  EXPECT_EQ(ParseByteSize("64M"), int64_t{64} << 20);
  EXPECT_EQ(ParseByteSize("4G"), int64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("4GiB"), int64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("4gb"), int64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("1T"), int64_t{1} << 40);
  EXPECT_EQ(ParseByteSize("100B"), 100);
  for (const char* bad : {"", "G", "-1", "0", "1.5G", "4X", "4GG", "99999999999999999999", "9999999T", " 4G"}) {
    EXPECT_FALSE(ParseByteSize(bad).has_value()) << bad;
  }
}

TEST(MemoryLimit, SizesPrintReadably) {
  EXPECT_EQ(ByteSizeText(100), "100 bytes");
  EXPECT_EQ(ByteSizeText(1536), "1.5 KiB");
  EXPECT_EQ(ByteSizeText(int64_t{21500} << 20), "21 GiB");
  EXPECT_EQ(ByteSizeText(int64_t{512} << 20), "512 MiB");
}

TEST(MemoryLimit, DefaultIsSaneAndSettable) {
  EXPECT_GE(DefaultMemoryLimit(), int64_t{1} << 30);
  {
    ScopedMemoryLimit limit(12345);
    EXPECT_EQ(MemoryLimit(), 12345);
  }
  EXPECT_EQ(MemoryLimit(), DefaultMemoryLimit());
  EXPECT_THROW(SetMemoryLimit(-1), Error);
}

TEST(MemoryLimit, TensorsOverTheLimitAreRefusedBeforeAllocating) {
  ScopedMemoryLimit limit(int64_t{1} << 20);
  EXPECT_NO_THROW(Tensor::Empty({256, 1024}, DType::kFloat32));  // exactly 1 MiB
  try {
    Tensor::Empty({5370, 1000, 1000}, DType::kFloat32);  // the 21.5 GB tensor of issue 11
    FAIL() << "allocated over the limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted);
    std::string m = e.what();
    EXPECT_NE(m.find("float32 tensor of shape (5370, 1000, 1000) needs 20 GiB (21480000000 bytes)"), std::string::npos) << m;
    EXPECT_NE(m.find("memory limit of 1.0 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("--max-memory"), std::string::npos) << m;
  }
}

TEST(MemoryLimit, ShapesWhoseSizeOverflowsAreRefused) {
  try {
    Tensor::Empty({int64_t{1} << 40, int64_t{1} << 40}, DType::kFloat32);
    FAIL() << "a wrapping size was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("more than 2^62 bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Tensor::Empty({int64_t{1} << 40, int64_t{1} << 40, 0}, DType::kFloat32).nbytes(), 0u);
}

}  // namespace
}  // namespace rxt
