// Parser diagnostics: the malformed-input corpus (tests/data/malformed/<name>.rxt, each with
// the expected diagnostic in <name>.expected), robustness against mutated and truncated
// input, and nesting limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "test_util/test_files.h"

namespace rxt {
namespace {

using test::FilesWithExtension;
using test::ReadFile;

namespace fs = std::filesystem;

// The error ParseModule throws for |text|, or "" if it parses.
std::string ParseError(const std::string& text, const std::string& file = "test.rxt") {
  try {
    ParseModule(text, file);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

// ---- The corpus

class MalformedInput : public testing::TestWithParam<fs::path> {};

TEST_P(MalformedInput, ReportsTheExpectedDiagnostic) {
  const fs::path& path = GetParam();
  fs::path expected_path = path;
  expected_path.replace_extension(".expected");
  ASSERT_TRUE(fs::exists(expected_path)) << "missing " << expected_path;
  std::string expected = ReadFile(expected_path);
  while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r')) expected.pop_back();
  ASSERT_FALSE(expected.empty());
  const std::string file = path.filename().string();
  const std::string message = ParseError(ReadFile(path), file);
  ASSERT_NE(message, "") << file << " parsed without error";
  EXPECT_NE(message.find(expected), std::string::npos) << "message: " << message << "\nexpected: " << expected;
  EXPECT_EQ(message.rfind(file + ":", 0), 0u) << "the message starts with the position: " << message;
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedInput,
                         testing::ValuesIn(FilesWithExtension(fs::path(RXT_TEST_DATA_DIR) / "malformed", ".rxt")),
                         [](const testing::TestParamInfo<fs::path>& info) { return info.param.stem().string(); });

TEST(MalformedCorpus, HasAtLeastFortyCasesEachWithAnExpectation) {
  const fs::path dir = fs::path(RXT_TEST_DATA_DIR) / "malformed";
  EXPECT_GE(FilesWithExtension(dir, ".rxt").size(), 40u);
  EXPECT_EQ(FilesWithExtension(dir, ".rxt").size(), FilesWithExtension(dir, ".expected").size());
}

// ---- Specific diagnostics

TEST(ParserErrors, PositionUsesTheGivenFileNameOrInput) {
  EXPECT_EQ(ParseError("junk", "model.rxt"), "model.rxt:1:1: error: expected 'def', 'kernel', 'attributes' or "
                                              "'metadata' but found 'junk'");
  EXPECT_EQ(ParseError("\n\n   @", ""), "<input>:3:4: error: expected a function name after '@'");
}

TEST(ParserErrors, EndOfInputIsNamed) {
  EXPECT_NE(ParseError("def @f(%x: Tensor").find("expected ')' but found end of input"), std::string::npos);
}

TEST(ParserErrors, LongTokensAreShortenedInMessages) {
  const std::string message = ParseError("attributes {a = " + std::string(200, 'a') + "}");
  EXPECT_NE(message.find("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"), std::string::npos) << message;
}

// Deeply nested input of every recursive form is an error, never a stack overflow.
TEST(ParserErrors, DeepNestingOfEveryFormIsReported) {
  const int n = 1000;
  auto repeat = [](const std::string& s, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += s;
    return out;
  };
  const std::string head = "def @f(%x: Tensor((2,), float32)) -> Object {\n  %a = ";
  const std::string tail = "\n  return %x\n}\n";
  std::string loops;
  for (int i = 0; i < n; ++i) loops += StrCat("for i", i, " in range(4) {\n");
  const std::vector<std::string> inputs = {
      head + repeat("(", n) + "%x" + repeat(")", n) + tail,
      head + repeat("(", n) + "%x" + repeat(",)", n) + tail,
      head + "prim(" + repeat("-", n) + "1)" + tail,
      head + "prim(" + repeat("!", n) + "true)" + tail,
      head + "prim(" + repeat("min(1, ", n) + "1" + repeat(")", n) + ")" + tail,
      head + "const(" + repeat("[", n) + "1" + repeat("]", n) + ", float32)" + tail,
      head + "sum(%x, axis=" + repeat("[", n) + repeat("]", n) + ")" + tail,
      head + repeat("if %x { %b = ", n) + "%x" + tail,
      "attributes {a = " + repeat("[", n) + repeat("]", n) + "}",
      "def @f(%x: " + repeat("Tuple(", n) + repeat(")", n) + ") -> Object {\n  return %x\n}\n",
      "def @f(%x: Func((" + repeat("Func((", n) + repeat(") -> Object)", n) + ") -> Object)) -> Object {}",
      "kernel @k(A: Buffer((4,), float32)) {\n" + loops + repeat("}\n", n) + "}\n",
      "kernel @k(A: Buffer((4,), float32)) {\n" + repeat("{", n) + repeat("}", n) + "}\n",
      "kernel @k(A: Buffer((4,), float32)) {\n  A[0] = " + repeat("(", n) + "1f32" + repeat(")", n) + "\n}\n",
  };
  for (const std::string& input : inputs) {
    const std::string message = ParseError(input);
    EXPECT_NE(message.find("nesting is too deep"), std::string::npos) << message << "\n" << input.substr(0, 120);
  }
}

// Left-associative chains nest the IR without nesting the text; they are bounded too, so
// that recursive walks of the IR (printing, destruction) cannot overflow the stack.
TEST(ParserErrors, OverlongChainsAreReported) {
  const int n = 5000;
  auto join = [](const std::string& item, const std::string& separator, int times) {
    std::string out = item;
    for (int i = 1; i < times; ++i) out += separator + item;
    return out;
  };
  const std::string kernel_head = "kernel @k(A: Buffer((1,), float32), b: bool) {\n";
  std::string allocs;
  for (int i = 0; i < n; ++i) allocs += StrCat("  alloc T", i, ": Buffer((1,), float32)\n");
  const std::vector<std::string> inputs = {
      kernel_head + "  A[0] = " + join("1f32", " + ", n) + "\n}\n",
      kernel_head + "  A[0] = " + join("1f32", " * ", n) + "\n}\n",
      kernel_head + "  if " + join("b", " && ", n) + " {\n  }\n}\n",
      kernel_head + "  if " + join("b", " || ", n) + " {\n  }\n}\n",
      kernel_head + "  if " + join("b", " == ", n) + " {\n  }\n}\n",
      kernel_head + allocs + "}\n",
      "def @f(%t: Object) -> Object {\n  %a = %t" + join("[0]", "", n) + "\n  return %a\n}\n",
  };
  for (const std::string& input : inputs) {
    const std::string message = ParseError(input);
    EXPECT_NE(message.find("expression chain is too long"), std::string::npos) << message << "\n"
                                                                               << input.substr(0, 120);
  }
  // A long chain within the limit parses and prints back.
  const std::string long_sum = kernel_head + "  A[0] = " + join("1f32", " + ", 1000) + "\n}\n";
  IRModule module = ParseModule(long_sum);
  EXPECT_EQ(PrintModule(ParseModule(PrintModule(module))), PrintModule(module));
}

TEST(ParserErrors, NestingJustBelowTheLimitParses) {
  std::string expr = "1";
  for (int i = 0; i < 100; ++i) expr = "(" + expr + ")";
  EXPECT_EQ(ParseError("def @f() -> Object {\n  %a = prim(" + expr + ")\n  return %a\n}\n"), "");
}

// ---- Robustness: truncated and mutated examples parse or fail with an rxt::Error

// Splits |text| into tokens (offset, length) the way the lexer sees them, roughly: that is
// enough to cut and splice at plausible places.
std::vector<std::pair<size_t, size_t>> RoughTokens(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> tokens;
  size_t i = 0;
  auto word = [&](size_t j) {
    return j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_' || text[j] == '.');
  };
  while (i < text.size()) {
    const char c = text[i];
    size_t j = i + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '"') {
      while (j < text.size() && text[j] != '"' && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
    } else if (c == '%' || c == '@' || word(i)) {
      while (word(j)) ++j;
    } else {
      for (const char* two : {"->", "==", "!=", "<=", ">=", "&&", "||"}) {
        if (text.compare(i, 2, two) == 0) j = i + 2;
      }
    }
    tokens.emplace_back(i, j - i);
    i = j;
  }
  return tokens;
}

// Parses |text|; on success, also checks that printing is stable for whatever it gave.
void ExpectParsesOrFailsCleanly(const std::string& text, const std::string& what) {
  try {
    IRModule module = ParseModule(text, "mutant.rxt");
    const std::string printed = PrintModule(module);
    IRModule reparsed = ParseModule(printed, "printed.rxt");
    EXPECT_EQ(PrintModule(reparsed), printed) << what << "\n" << text;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << what << ": " << message << "\n" << text;
    EXPECT_TRUE(message.rfind("mutant.rxt:", 0) == 0 && message.find(": error: ") != std::string::npos)
        << what << ": " << message << "\n" << text;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": a non-rxt exception: " << e.what() << "\n" << text;
  } catch (...) {
    ADD_FAILURE() << what << ": an unknown exception\n" << text;
  }
}

std::vector<fs::path> RobustnessInputs() {
  std::vector<fs::path> files = FilesWithExtension(fs::path(RXT_SOURCE_DIR) / "examples", ".rxt");
  for (const char* name : {"kernel_stmts.rxt", "if_else.rxt", "attributes.rxt", "match_cast.rxt", "calls.rxt"}) {
    files.push_back(fs::path(RXT_TEST_DATA_DIR) / "roundtrip" / name);
  }
  return files;
}

TEST(ParserRobustness, TruncatedAtEveryTokenBoundary) {
  for (const fs::path& path : RobustnessInputs()) {
    const std::string text = ReadFile(path);
    const auto tokens = RoughTokens(text);
    ASSERT_GT(tokens.size(), 20u) << path;
    const bool example = path.parent_path().filename() == "examples";
    for (const auto& [offset, length] : tokens) {
      ExpectParsesOrFailsCleanly(text.substr(0, offset), StrCat(path.filename().string(), " cut at ", offset));
      if (example && length > 1) {  // inside a token too
        ExpectParsesOrFailsCleanly(text.substr(0, offset + length / 2),
                                   StrCat(path.filename().string(), " cut at ", offset + length / 2));
      }
    }
  }
}

TEST(ParserRobustness, RandomTokenDeletionsDuplicationsAndSwaps) {
  std::mt19937 rng(20240601);
  for (const fs::path& path : RobustnessInputs()) {
    const std::string text = ReadFile(path);
    const auto tokens = RoughTokens(text);
    std::uniform_int_distribution<size_t> pick(0, tokens.size() - 1);
    for (int trial = 0; trial < 150; ++trial) {
      std::vector<std::string> pieces;
      for (const auto& [offset, length] : tokens) pieces.push_back(text.substr(offset, length));
      const int edits = 1 + trial % 3;
      for (int e = 0; e < edits; ++e) {
        const size_t at = pick(rng) % pieces.size();
        switch (rng() % 3) {
          case 0: pieces.erase(pieces.begin() + static_cast<long>(at)); break;
          case 1: pieces.insert(pieces.begin() + static_cast<long>(at), pieces[at]); break;
          default: pieces[at] = pieces[pick(rng) % pieces.size()]; break;
        }
        if (pieces.empty()) pieces.push_back("x");
      }
      std::string mutant;
      for (const auto& piece : pieces) mutant += piece + (piece == "}" || piece == "{" ? "\n" : " ");
      ExpectParsesOrFailsCleanly(mutant, StrCat(path.filename().string(), " trial ", trial));
    }
  }
}

TEST(ParserRobustness, RandomBytes) {
  std::mt19937 rng(7);
  const std::string alphabet = "%@#\"\\()[]{},:=-+*/<>!&|.0123456789abcdefxyz_ \n\tTensorforifdefkernel\x01\xff";
  for (int trial = 0; trial < 300; ++trial) {
    std::string text;
    const size_t length = rng() % 80;
    for (size_t i = 0; i < length; ++i) text += alphabet[rng() % alphabet.size()];
    ExpectParsesOrFailsCleanly(text, StrCat("random bytes trial ", trial));
  }
}

}  // namespace
}  // namespace rxt
