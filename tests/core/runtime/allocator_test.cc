#include "rxt/runtime/allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace rxt {
namespace {

/// This process's resident anonymous memory in KiB (RssAnon of /proc/self/status), or -1 where
/// there is no such file.
int64_t ResidentAnonKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stoll(line.substr(8));
  }
  return -1;
}

bool AllZero(const std::byte* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != std::byte{0}) return false;
  }
  return true;
}

TEST(Allocator, SmallAndLargeBlocksAreZeroedAndAligned) {
  for (size_t nbytes : {size_t{1}, size_t{1000}, size_t{1} << 20, (size_t{3} << 20) + 7}) {
    std::shared_ptr<std::byte> block = AllocateZeroed(nbytes, 64, "a test block");
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block.get()) % 64, 0u) << nbytes;
    EXPECT_TRUE(AllZero(block.get(), nbytes)) << nbytes;
    std::memset(block.get(), 0xab, nbytes);  // all of it is writable
  }
}

// A large block goes back to the OS when it dies: a freed copy of a model's weights must not
// stay resident (malloc keeps such blocks on its heap once its mmap threshold has grown).
TEST(Allocator, FreedLargeBlocksLeaveMemory) {
  if (ResidentAnonKb() < 0) GTEST_SKIP() << "no /proc/self/status RssAnon on this system";
  constexpr size_t kBlock = size_t{8} << 20;
  // Grow glibc's mmap threshold the way a program's first large frees do.
  for (int i = 0; i < 2; ++i) {
    std::shared_ptr<std::byte> warm = AllocateZeroed(kBlock, 64, "a test block");
    std::memset(warm.get(), 1, kBlock);
  }
  int64_t before = ResidentAnonKb();
  {
    std::shared_ptr<std::byte> blocks[4];
    for (auto& b : blocks) {
      b = AllocateZeroed(kBlock, 64, "a test block");
      std::memset(b.get(), 1, kBlock);
    }
    EXPECT_GE(ResidentAnonKb() - before, 4 * 8 * 1024 * 9 / 10);
  }
  EXPECT_LT(ResidentAnonKb() - before, 8 * 1024) << "freed blocks stayed resident";
}

// Zero storage nobody writes costs no memory (parameters a checkpoint will replace, buffers of
// an optimizer that has not run).
TEST(Allocator, UntouchedLargeBlocksAreNotResident) {
  if (ResidentAnonKb() < 0) GTEST_SKIP() << "no /proc/self/status RssAnon on this system";
  int64_t before = ResidentAnonKb();
  std::shared_ptr<std::byte> block = AllocateZeroed(size_t{64} << 20, 64, "a test block");
  EXPECT_LT(ResidentAnonKb() - before, 8 * 1024);
}

TEST(Allocator, ScopedAllocatorGetsLargeBlocksToo) {
  struct Counts {
    int allocations = 0, deallocations = 0;
  } counts;
  Allocator counting{
      .allocate = [](void* user, size_t size, size_t alignment) {
        ++static_cast<Counts*>(user)->allocations;
        return std::aligned_alloc(alignment, size);
      },
      .deallocate = [](void* user, void* p, size_t, size_t) {
        ++static_cast<Counts*>(user)->deallocations;
        std::free(p);
      },
      .user_data = &counts};
  {
    Allocator::Scope use(&counting);
    std::shared_ptr<std::byte> block = AllocateZeroed(size_t{4} << 20, 64, "a test block");
    EXPECT_TRUE(AllZero(block.get(), size_t{4} << 20));  // a context's allocator's memory is zeroed by rxt
  }
  EXPECT_EQ(counts.allocations, 1);
  EXPECT_EQ(counts.deallocations, 1);
}

}  // namespace
}  // namespace rxt
