#include "lexer.h"

#include <cctype>

namespace rxt::text {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string DescribeChar(char c) {
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    constexpr char kHex[] = "0123456789abcdef";
    return StrCat("'\\x", kHex[(static_cast<unsigned char>(c) >> 4) & 0xf], kHex[static_cast<unsigned char>(c) & 0xf],
                  "'");
  }
  return StrCat("'", c, "'");
}

class Lexer {
 public:
  Lexer(std::string_view source, std::shared_ptr<const std::string> file) : src_(source), file_(std::move(file)) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    tokens.reserve(src_.size() / 4 + 16);
    if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;  // a UTF-8 byte order mark
    for (;;) {
      SkipSpaceAndComments();
      Token token;
      token.line = line_;
      token.column = Column();
      const size_t start = pos_;
      if (pos_ >= src_.size()) {
        token.kind = TokenKind::kEnd;
        tokens.push_back(std::move(token));
        return tokens;
      }
      const char c = src_[pos_];
      if (IsIdentStart(c)) {
        LexIdent(token);
      } else if (IsDigit(c)) {
        LexNumber(token);
      } else if (c == '"') {
        token.kind = TokenKind::kString;
        token.value = LexString();
      } else if (c == '%') {
        ++pos_;
        token.kind = TokenKind::kLocal;
        if (pos_ < src_.size() && src_[pos_] == '"') {  // %"conv1.weight": any name, quoted
          token.value = LexString();
          if (token.value.empty()) Fail(token, "a variable name must not be empty");
        } else {
          while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
          if (pos_ == start + 1) Fail(token, "expected a variable name after '%'");
          token.value = std::string(src_.substr(start + 1, pos_ - start - 1));
        }
      } else if (c == '@') {
        ++pos_;
        token.kind = TokenKind::kGlobal;
        if (pos_ < src_.size() && src_[pos_] == '"') {
          token.value = LexString();
          if (token.value.empty()) Fail(token, "a function name must not be empty");
        } else {
          while (pos_ < src_.size() && (IsIdentChar(src_[pos_]) || src_[pos_] == '.')) ++pos_;
          if (pos_ == start + 1) Fail(token, "expected a function name after '@'");
          token.value = std::string(src_.substr(start + 1, pos_ - start - 1));
        }
      } else {
        LexPunct(token);
      }
      token.text = src_.substr(start, pos_ - start);
      tokens.push_back(std::move(token));
    }
  }

 private:
  int Column() const { return static_cast<int>(pos_ - line_start_) + 1; }

  [[noreturn]] void Fail(const Token& at, const std::string& message) const {
    ThrowAt(Span{file_, at.line, at.column}, message);
  }
  [[noreturn]] void FailHere(const std::string& message) const {
    ThrowAt(Span{file_, line_, Column()}, message);
  }

  void SkipSpaceAndComments() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  // Identifiers may contain dots between parts (nn.relu).
  void LexIdent(Token& token) {
    token.kind = TokenKind::kIdent;
    for (;;) {
      while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
      if (pos_ + 1 < src_.size() && src_[pos_] == '.' && IsIdentStart(src_[pos_ + 1])) {
        ++pos_;
        continue;
      }
      return;
    }
  }

  void LexNumber(Token& token) {
    token.kind = TokenKind::kNumber;
    const size_t start = pos_;
    while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
    if (pos_ < src_.size() && src_[pos_] == '.') {
      ++pos_;
      if (pos_ >= src_.size() || !IsDigit(src_[pos_])) FailHere("expected a digit after '.' in a number");
      while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
      token.is_float_text = true;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < src_.size() && IsDigit(src_[p])) {
        pos_ = p;
        while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
        token.is_float_text = true;
      }
    }
    token.digits = src_.substr(start, pos_ - start);
    const size_t suffix_start = pos_;
    while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
    token.suffix = src_.substr(suffix_start, pos_ - suffix_start);
  }

  // Reads a "..." literal starting at the quote; returns the decoded text.
  std::string LexString() {
    const int line = line_;
    const int column = Column();
    ++pos_;  // opening quote
    std::string value;
    for (;;) {
      if (pos_ >= src_.size() || src_[pos_] == '\n') {
        ThrowAt(Span{file_, line, column}, "unterminated string");
      }
      const char c = src_[pos_];
      if (c == '"') {
        ++pos_;
        return value;
      }
      if (c != '\\') {
        value += c;
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= src_.size()) ThrowAt(Span{file_, line, column}, "unterminated string");
      const char e = src_[pos_ + 1];
      switch (e) {
        case '"': value += '"'; break;
        case '\\': value += '\\'; break;
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case 'x': {
          auto hex = [&](size_t p) -> int {
            if (p >= src_.size() || !std::isxdigit(static_cast<unsigned char>(src_[p]))) return -1;
            const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(src_[p])));
            return h <= '9' ? h - '0' : h - 'a' + 10;
          };
          const int hi = hex(pos_ + 2), lo = hex(pos_ + 3);
          if (hi < 0 || lo < 0) FailHere("expected two hex digits after '\\x' in a string");
          value += static_cast<char>(hi * 16 + lo);
          pos_ += 2;
          break;
        }
        default: FailHere(StrCat("unknown escape '\\", e, "' in a string"));
      }
      pos_ += 2;
    }
  }

  void LexPunct(Token& token) {
    token.kind = TokenKind::kPunct;
    static constexpr std::string_view kTwoChar[] = {"->", "==", "!=", "<=", ">=", "&&", "||"};
    const std::string_view rest = src_.substr(pos_);
    for (std::string_view p : kTwoChar) {
      if (rest.substr(0, 2) == p) {
        pos_ += 2;
        return;
      }
    }
    static constexpr std::string_view kOneChar = "(){}[],:=+-*/<>!";
    if (kOneChar.find(src_[pos_]) == std::string_view::npos) {
      Fail(token, StrCat("unexpected character ", DescribeChar(src_[pos_])));
    }
    ++pos_;
  }

  std::string_view src_;
  std::shared_ptr<const std::string> file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view source, const std::shared_ptr<const std::string>& file) {
  return Lexer(source, file).Run();
}

std::string Describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of input";
  std::string_view text = token.text;
  constexpr size_t kMax = 32;
  std::string shown(text.substr(0, kMax));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (text.size() > kMax) shown += "...";
  return StrCat("'", shown, "'");
}

void ThrowAt(const Span& span, const std::string& message) {
  Throw(ErrorCode::kInvalidArgument, span.ToString(), ": error: ", message);
}

}  // namespace rxt::text
