// The parser: tokens, errors and the module level.
//
// The module is read in two passes over the token vector. The first reads the metadata
// section (wherever it is), module attributes, kernels and the headers of Relax functions,
// adding each function with an empty body so that calls resolve whatever their order in the
// file. The second parses the function bodies with the BlockBuilder.
#include "rxt/ir/parser.h"

#include "parser_impl.h"
#include "text_syntax.h"

namespace rxt {
namespace text {
namespace {

constexpr int kMaxDepth = 256;
constexpr int kMaxChainDepth = 4096;

bool IsOpener(const Token& t) {
  return t.kind == TokenKind::kPunct && t.text.size() == 1 && (t.text[0] == '(' || t.text[0] == '[' || t.text[0] == '{');
}
bool IsCloser(const Token& t) {
  return t.kind == TokenKind::kPunct && t.text.size() == 1 && (t.text[0] == ')' || t.text[0] == ']' || t.text[0] == '}');
}

}  // namespace

Parser::DepthGuard::DepthGuard(Parser& parser) : parser_(parser) {
  if (++parser_.depth_ > kMaxDepth) {
    --parser_.depth_;
    parser_.Fail(parser_.Peek(), StrCat("nesting is too deep (more than ", kMaxDepth, " levels)"));
  }
}

void Parser::ChainGuard::Extend(const Token& at) {
  if (++parser_.chain_depth_ > kMaxChainDepth) {
    parser_.Fail(at, StrCat("expression chain is too long (more than ", kMaxChainDepth, " operators deep)"));
  }
}

Parser::Parser(std::string_view text, const std::string& file_name)
    : file_(std::make_shared<const std::string>(file_name.empty() ? "<input>" : file_name)), source_(text) {}

// ---- Tokens and errors

const Token& Parser::Peek(size_t ahead) const {
  const size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

const Token& Parser::Next() {
  const Token& token = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;  // the end token stays current
  return token;
}

bool Parser::Accept(std::string_view text) {
  if (!Peek().Is(text)) return false;
  Next();
  return true;
}

const Token& Parser::Expect(std::string_view text) {
  if (!Peek().Is(text)) FailExpected(StrCat("'", text, "'"));
  return Next();
}

const Token& Parser::ExpectKind(TokenKind kind, const char* what) {
  if (Peek().kind != kind) FailExpected(what);
  return Next();
}

void Parser::Fail(const Token& at, const std::string& message) const { ThrowAt(SpanOf(at), message); }

void Parser::FailExpected(const std::string& what) const {
  Fail(Peek(), StrCat("expected ", what, " but found ", Describe(Peek())));
}

void Parser::Reposition(const Error& error, const Token& at) const {
  if (error.code() == ErrorCode::kInternal) throw error;  // a bug of rxt, not of the input
  std::string message = error.what();
  // Messages of the IR layer may already start with a position ("f.rxt:3:5: matmul: ...").
  const std::string prefix = *file_ + ":";
  if (message.compare(0, prefix.size(), prefix) == 0) {
    const size_t colon = message.find(": ", prefix.size());
    if (colon != std::string::npos) {
      if (message.compare(colon + 2, 7, "error: ") != 0) message.insert(colon + 2, "error: ");
      Throw(ErrorCode::kInvalidArgument, message);
    }
  }
  Fail(at, message);
}

size_t Parser::MatchingClose(size_t open) const {
  int depth = 0;
  for (size_t i = open; i < tokens_.size(); ++i) {
    if (IsOpener(tokens_[i])) ++depth;
    if (IsCloser(tokens_[i]) && --depth == 0) return i;
  }
  return tokens_.size() - 1;
}

void Parser::CheckNewName(const Token& name) const {
  if (IsReservedWord(name.text)) Fail(name, StrCat("'", name.text, "' is a reserved word and cannot name a variable"));
  if (name.text.find('.') != std::string_view::npos) {
    Fail(name, StrCat("expected a name without '.' but found ", Describe(name)));
  }
}

// ---- Module level

IRModule Parser::Run() {
  tokens_ = Tokenize(source_, file_);
  ScanMetadata();
  pos_ = 0;
  ParseTopLevel();
  for (const PendingFunction& pending : pending_) ParseFunctionBody(pending);
  return std::move(module_);
}

// The metadata section may follow the functions that refer to it, so it is read first.
void Parser::ScanMetadata() {
  int depth = 0;
  for (size_t i = 0; i + 1 < tokens_.size(); ++i) {
    const Token& token = tokens_[i];
    if (IsOpener(token)) ++depth;
    if (IsCloser(token) && depth > 0) --depth;
    if (depth != 0 || !token.Is("metadata") || !tokens_[i + 1].Is("{")) continue;
    if (metadata_begin_ != SIZE_MAX) Fail(token, "duplicate metadata section");
    pos_ = i;
    ParseMetadataSection();
    metadata_begin_ = i;
    metadata_end_ = pos_;
    i = pos_ - 1;
  }
}

void Parser::ParseTopLevel() {
  while (Peek().kind != TokenKind::kEnd) {
    const Token& token = Peek();
    if (token.Is("attributes")) {
      if (seen_module_attrs_) Fail(token, "duplicate module attributes");
      seen_module_attrs_ = true;
      Next();
      module_.attrs = ParseAttrsBlock();
    } else if (token.Is("def")) {
      ParseFunctionHeader();
    } else if (token.Is("kernel")) {
      ParseKernel();
    } else if (token.Is("metadata") && pos_ == metadata_begin_) {
      pos_ = metadata_end_;
    } else if (token.Is("metadata")) {
      Fail(token, "duplicate metadata section");
    } else {
      FailExpected("'def', 'kernel', 'attributes' or 'metadata'");
    }
  }
}

void Parser::ParseFunctionHeader() {
  const Token& def = Next();
  const Token& name = ExpectKind(TokenKind::kGlobal, "a function name");
  if (module_.Contains(name.value)) Fail(name, StrCat("redefinition of @", name.value));
  PendingFunction pending;
  pending.name = name.value;
  pending.span = SpanOf(def);
  prim_vars_.Reset();
  implicit_var_dtype_ = DType::kInt64;
  in_kernel_ = false;
  std::unordered_map<std::string, const Token*> param_tokens;
  Expect("(");
  while (!Peek().Is(")")) {
    const Token& param = ExpectKind(TokenKind::kLocal, "a parameter name");
    if (param_tokens.count(param.value)) {
      const Token& first = *param_tokens[param.value];
      Fail(param, StrCat("redefinition of %", param.value, " (first defined at ", first.line, ":", first.column, ")"));
    }
    param_tokens[param.value] = &param;
    Expect(":");
    StructInfo sinfo = ParseStructInfo();
    pending.params.push_back(MakeVar(param.value, sinfo, SpanOf(param)));
    if (!Accept(",")) break;
  }
  Expect(")");
  Expect("->");
  pending.ret_token = pos_;
  pending.ret = ParseStructInfo();
  for (bool seen_attrs = false, seen_impure = false;;) {
    if (Peek().Is("attributes") && !seen_attrs) {
      Next();
      pending.attrs = ParseAttrsBlock();
      seen_attrs = true;
    } else if (Peek().Is("impure") && !seen_impure) {
      Next();
      pending.is_pure = false;
      seen_impure = true;
    } else {
      break;
    }
  }
  if (!Peek().Is("{")) FailExpected("'{'");
  const size_t open = pos_;
  pending.body_token = open + 1;
  pending.symbols = prim_vars_.Outer();
  // A placeholder with the real signature, so that calls to it resolve in the second pass.
  module_.Add(pending.name, MakeFunction(pending.params, MakeSeqExpr({}, MakeTuple({})), pending.ret, pending.attrs,
                                         pending.is_pure, pending.span));
  pending_.push_back(std::move(pending));
  pos_ = std::min(MatchingClose(open) + 1, tokens_.size() - 1);
}

void Parser::ParseFunctionBody(const PendingFunction& pending) {
  pos_ = pending.body_token;
  prim_vars_.Reset();
  prim_vars_.Outer() = pending.symbols;
  implicit_var_dtype_ = DType::kInt64;
  in_kernel_ = false;
  vars_.Reset();
  ended_dataflow_.clear();
  for (const Var& param : pending.params) vars_.Define(param->name, param);
  builder_ = std::make_unique<BlockBuilder>(&module_);
  SeqExpr body = ParseSeq("return");
  Expect("}");
  const StructInfo& body_sinfo = GetStructInfo(body->body);
  if (!IsBaseOf(pending.ret, body_sinfo, /*assume_unknown_equal=*/true)) {
    Fail(tokens_[pending.ret_token], StrCat("type error: @", pending.name, " is declared to return ",
                                            ToString(pending.ret), " but its body returns ", ToString(body_sinfo)));
  }
  module_.Add(pending.name,
              MakeFunction(pending.params, body, pending.ret, pending.attrs, pending.is_pure, pending.span));
  builder_.reset();
}

}  // namespace text

IRModule ParseModule(std::string_view text, const std::string& file_name) {
  return text::Parser(text, file_name).Run();
}

}  // namespace rxt
