// Fragments of the text format on their own: an attribute list (the attributes of a call, the
// options of a loss or an optimizer) and one struct info. Plugins' IR generators write both
// as text (rxt/ir_builder.h); these entry points read them with the module parser's rules.
#include "parser_impl.h"
#include "rxt/ir/parser.h"
#include "text_syntax.h"

namespace rxt {
namespace text {

Attrs Parser::RunAttrList() {
  tokens_ = Tokenize(source_, file_);
  pos_ = 0;
  Attrs attrs;
  while (Peek().kind != TokenKind::kEnd) {
    const Token& key = Peek();
    if (key.kind != TokenKind::kIdent && key.kind != TokenKind::kString) FailExpected("an attribute name");
    Next();
    const std::string name = key.kind == TokenKind::kString ? key.value : std::string(key.text);
    if (attrs.Find(name)) Fail(key, StrCat("duplicate attribute '", name, "'"));
    Expect("=");
    attrs.Set(name, ParseAttrValue());
    if (!Accept(",")) break;
  }
  if (Peek().kind != TokenKind::kEnd) FailExpected("',' or the end of the attributes");
  return attrs;
}

StructInfo Parser::RunStructInfo(std::map<std::string, PrimVar>* symbols) {
  tokens_ = Tokenize(source_, file_);
  pos_ = 0;
  prim_vars_.Reset();
  if (symbols != nullptr) {
    for (const auto& [name, var] : *symbols) prim_vars_.DefineOuter(name, var);
  }
  StructInfo sinfo = ParseStructInfo();
  if (Peek().kind != TokenKind::kEnd) FailExpected("the end of the struct info");
  if (symbols != nullptr) {
    for (const auto& [name, var] : prim_vars_.Outer()) symbols->emplace(name, var);
  }
  return sinfo;
}

}  // namespace text

Attrs ParseAttrList(std::string_view text, const std::string& what) {
  return text::Parser(text, what).RunAttrList();
}

Attrs ParseOpAttrs(const OpDef& op, std::string_view text) {
  Attrs attrs = ParseAttrList(text, StrCat("attributes of ", op.name()));
  for (const auto& [key, value] : attrs.entries()) {
    if (!op.FindAttr(key)) Throw(ErrorCode::kInvalidArgument, text::UnknownAttributeMessage(op, key));
  }
  return op.CompleteAttrs(attrs);
}

StructInfo ParseStructInfo(std::string_view text, std::map<std::string, PrimVar>* symbols, const std::string& what) {
  return text::Parser(text, what).RunStructInfo(symbols);
}

}  // namespace rxt
