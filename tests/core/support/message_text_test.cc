#include "rxt/support/message_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rxt {
namespace {

TEST(MessageText, PrintableTextIsUnchanged) {
  EXPECT_EQ(MessageText("Tensor((2, 3), float32)"), "Tensor((2, 3), float32)");
  EXPECT_EQ(MessageText("größe ✓"), "größe ✓");  // valid UTF-8 stays
  EXPECT_EQ(Quoted("cpu"), "'cpu'");
}

TEST(MessageText, ControlsAndInvalidBytesAreEscaped) {
  EXPECT_EQ(MessageText(std::string("referen\xff\x01", 9)), "referen\\xff\\x01");
  EXPECT_EQ(MessageText("a\nb\tc\\d\r"), "a\\nb\\tc\\\\d\\r");
  EXPECT_EQ(MessageText(std::string("\xc3", 1)), "\\xc3");        // a cut UTF-8 sequence
  EXPECT_EQ(MessageText(std::string("\xc3(", 2)), "\\xc3(");
  EXPECT_EQ(MessageText(std::string("x\0y", 3)), "x\\x00y");
}

TEST(MessageText, LongTextKeepsHeadAndTailWithinTheBudget) {
  std::string text(60000, 'a');
  text.replace(0, 5, "START");
  text.replace(text.size() - 3, 3, "END");
  std::string shown = MessageText(text, 200);
  EXPECT_LT(shown.size(), 260u);
  EXPECT_EQ(shown.rfind("START", 0), 0u);
  EXPECT_EQ(shown.substr(shown.size() - 3), "END");
  EXPECT_NE(shown.find("(59800 more bytes)"), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\n'), std::string::npos);
}

TEST(MessageText, LongEscapedTextIsBoundedToo) {
  std::string text(10000, '\x01');
  std::string shown = MessageText(text, 100);
  EXPECT_LT(shown.size(), 100u * 4 + 40);
  EXPECT_NE(shown.find("more bytes"), std::string::npos);
}

TEST(MessageText, ExactlyTheBudgetIsNotCut) {
  std::string text(200, 'x');
  EXPECT_EQ(MessageText(text, 200), text);
  EXPECT_NE(MessageText(text + "y", 200), text + "y");
}

TEST(MessageText, TailNeverStartsInsideACharacter) {
  std::string text(1000, 'a');
  for (int i = 0; i < 100; ++i) text += "é";
  std::string shown = MessageText(text, 50);
  EXPECT_EQ(shown.find("\\x"), std::string::npos) << shown;
}

TEST(ShapeText, ShortAndLongShapes) {
  std::vector<int64_t> none, one = {3}, two = {2, 784};
  EXPECT_EQ(ShapeText(none.data(), 0), "()");
  EXPECT_EQ(ShapeText(one.data(), 1), "(3,)");
  EXPECT_EQ(ShapeText(two.data(), 2), "(2, 784)");
  std::vector<int64_t> many(20000, 1);
  many.back() = 7;
  std::string shown = ShapeText(many.data(), many.size());
  EXPECT_LT(shown.size(), 80u);
  EXPECT_NE(shown.find("(20000 dims)"), std::string::npos) << shown;
  EXPECT_EQ(shown.substr(shown.size() - 2), "7)");
}

}  // namespace
}  // namespace rxt

namespace rxt {
namespace {

TEST(IsPrintableText, NamesFromFiles) {
  EXPECT_TRUE(IsPrintableText("linear0"));
  EXPECT_TRUE(IsPrintableText("größe"));
  EXPECT_TRUE(IsPrintableText("a\\b"));
  EXPECT_TRUE(IsPrintableText(""));
  EXPECT_FALSE(IsPrintableText(std::string("referen\xff", 8)));
  EXPECT_FALSE(IsPrintableText("two\nlines"));
  EXPECT_FALSE(IsPrintableText(std::string("nul\0", 4)));
}

}  // namespace
}  // namespace rxt

namespace rxt {
namespace {

TEST(JoinForMessage, OneLineWithAtMostTheFirstItems) {
  EXPECT_EQ(JoinForMessage({}), "");
  EXPECT_EQ(JoinForMessage({"a", "b"}), "a; b");
  std::vector<std::string> many(1000, "x:1:2: bad");
  std::string text = JoinForMessage(many, 3);
  EXPECT_EQ(text, "x:1:2: bad; x:1:2: bad; x:1:2: bad; … and 997 more");
  EXPECT_EQ(JoinForMessage({"two\nlines"}), "two\\nlines");
}

}  // namespace
}  // namespace rxt
