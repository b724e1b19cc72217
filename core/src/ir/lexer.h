// The lexer of the IR text format: the whole input becomes a token vector up front, so the
// parser can look ahead freely (function headers, `output` lists, the metadata section).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rxt/support/error.h"

namespace rxt::text {

enum class TokenKind : uint8_t {
  kEnd,     // end of input (always the last token)
  kIdent,   // matmul, nn.relu, float32, n, for
  kLocal,   // %x (value = "x")
  kGlobal,  // @main or @"any name" (value = the name)
  kNumber,  // 3, 1.5, 1e-05, 3i32, 0f32 (a '-' is a separate token)
  kString,  // "text" (value = the decoded text)
  kPunct,   // ( ) { } [ ] , : = -> + - * / == != < <= > >= && || !
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;    // as written in the source
  std::string value;        // kLocal, kGlobal, kString: the name or decoded contents
  std::string_view digits;  // kNumber: the number without its suffix
  std::string_view suffix;  // kNumber: "i32", "f32", "bf16"... or ""
  bool is_float_text = false;  // kNumber: has a '.' or an exponent
  int line = 0;
  int column = 0;

  /// A punctuation token or identifier spelled |s|.
  bool Is(std::string_view s) const { return (kind == TokenKind::kPunct || kind == TokenKind::kIdent) && text == s; }
};

/// Splits |source| into tokens, skipping whitespace and `#` comments. The tokens' views
/// point into |source|. Throws rxt::Error (kInvalidArgument) on an unexpected character,
/// an unterminated string or a malformed number.
std::vector<Token> Tokenize(std::string_view source, const std::shared_ptr<const std::string>& file);

/// How an error message names a token: 'foo', '%x', ')', "end of input".
std::string Describe(const Token& token);

/// Throws rxt::Error(kInvalidArgument, "<file:line:col>: error: <message>").
[[noreturn]] void ThrowAt(const Span& span, const std::string& message);

}  // namespace rxt::text
