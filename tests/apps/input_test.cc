// FormatError (apps/rxt/input.cc): how every failure of the rxt command reaches the user.
#include <gtest/gtest.h>

#include <string>

#include "command.h"

namespace rxt::cli {
namespace {

TEST(FormatError, DiagnosticsLoseTheirErrorWord) {
  EXPECT_EQ(FormatError("m.rxt:2:39: error: expected ')'"), "rxt: error: m.rxt:2:39: expected ')'");
  EXPECT_EQ(FormatError("dir/my file.rxt:10:1: error: x"), "rxt: error: dir/my file.rxt:10:1: x");
  EXPECT_EQ(FormatError("cannot read 'x'"), "rxt: error: cannot read 'x'");
  EXPECT_EQ(FormatError("m.rxt: error: no position"), "rxt: error: m.rxt: error: no position");
  EXPECT_EQ(FormatError("m.rxt:x:1: error: y"), "rxt: error: m.rxt:x:1: error: y");
  EXPECT_EQ(FormatError(":1:2: error: y"), "rxt: error: :1:2: error: y");
}

// Issue 11, class 1: a regex over the message recursed once per character and overflowed the
// stack (SIGSEGV, empty stderr) on a first line over ~45 KB.
TEST(FormatError, LongMessagesNeitherCrashNorFlood) {
  std::string long_line(1 << 20, 'x');
  std::string shown = FormatError(long_line);
  EXPECT_EQ(shown.rfind("rxt: error: xxx", 0), 0u);
  EXPECT_LT(shown.size(), 17000u);
  EXPECT_NE(shown.find("more bytes"), std::string::npos);
  std::string diagnostic = "f.rxt:1:2: error: " + long_line;
  EXPECT_EQ(FormatError(diagnostic).rfind("rxt: error: f.rxt:1:2: xxx", 0), 0u);
  std::string late_marker = long_line + "f.rxt:1:2: error: x";
  EXPECT_EQ(FormatError(late_marker).rfind("rxt: error: xxx", 0), 0u);
}

}  // namespace
}  // namespace rxt::cli
