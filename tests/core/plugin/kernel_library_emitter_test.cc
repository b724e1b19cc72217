// The machine a kernel library is for (AotTarget, kernel_library_emitter.cc): how it is named in
// messages, and whether it is another architecture (then the build takes no kernel library of
// this machine by default). Emitting libraries: tests/plugins/backend_cpu/aot_library_emitter_test.cc.
#include "rxt/plugin/kernel_library_emitter.h"

#include <gtest/gtest.h>

namespace rxt {
namespace {

TEST(AotTarget, DescribesItself) {
  EXPECT_EQ(AotTarget{}.Describe(), "this machine");
  EXPECT_TRUE(AotTarget{}.IsThisMachine());
  EXPECT_EQ((AotTarget{.triple = "aarch64-linux-gnu"}).Describe(), "aarch64-linux-gnu");
  EXPECT_EQ((AotTarget{.triple = "aarch64-linux-gnu", .cpu = "cortex-a72", .features = "+crc"}).Describe(),
            "aarch64-linux-gnu (cortex-a72, +crc)");
  EXPECT_EQ((AotTarget{.cpu = "x86-64"}).Describe(), "this machine's architecture (x86-64)");
  EXPECT_FALSE((AotTarget{.features = "-avx512f"}).IsThisMachine());
}

TEST(AotTarget, KnowsAnotherArchitecture) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the cases below are an x86_64 machine's";
#endif
  EXPECT_TRUE((AotTarget{.triple = "aarch64-linux-gnu"}).IsOtherArchitecture());
  EXPECT_TRUE((AotTarget{.triple = "arm64-apple-darwin"}).IsOtherArchitecture());
  EXPECT_TRUE((AotTarget{.triple = "riscv64-unknown-linux-gnu"}).IsOtherArchitecture());
  EXPECT_FALSE((AotTarget{.triple = "x86_64-linux-gnu"}).IsOtherArchitecture());
  EXPECT_FALSE((AotTarget{.triple = "amd64-pc-linux"}).IsOtherArchitecture());
  EXPECT_FALSE((AotTarget{.cpu = "x86-64-v2"}).IsOtherArchitecture());
}

}  // namespace
}  // namespace rxt
