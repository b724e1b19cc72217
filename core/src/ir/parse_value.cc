// The parser: struct info, dtypes, attribute values, constants and the metadata section.
#include <charconv>
#include <limits>
#include <optional>

#include "parser_impl.h"
#include "text_syntax.h"

namespace rxt::text {

// ---- Struct info

StructInfo Parser::ParseStructInfo() {
  DepthGuard guard(*this);
  const Token& token = Peek();
  if (token.kind != TokenKind::kIdent) FailExpected("a struct info");
  if (token.Is("Object")) {
    Next();
    return ObjectSI();
  }
  if (token.Is("Tensor") || token.Is("Shape")) {
    const bool is_tensor = token.Is("Tensor");
    Next();
    std::optional<std::vector<PrimExpr>> dims;
    int ndim = -1;
    DType dtype = DType::kUnknown;
    if (Accept("(")) {
      bool need_comma = false;
      if (Peek().Is("(")) {
        dims = ParseShapeTuple();
        need_comma = true;
      } else if (Peek().Is("ndim") && Peek(1).Is("=")) {
        Next();
        Next();
        ndim = static_cast<int>(ParseIndex("the number of dimensions", 1 << 20));
        need_comma = true;
      }
      if (is_tensor && (!need_comma || Accept(",")) && !Peek().Is(")")) dtype = ParseDTypeName(false);
      Expect(")");
    }
    if (!is_tensor) return dims ? ShapeSI(std::move(*dims)) : ShapeSI(ndim);
    if (dims) return TensorSI(std::move(*dims), dtype);
    return TensorSI(dtype, ndim);
  }
  if (token.Is("Prim")) {
    Next();
    DType dtype = DType::kUnknown;
    PrimExpr value;
    if (Accept("(")) {
      if (!Peek().Is("value")) dtype = ParseDTypeName(false);
      if ((dtype == DType::kUnknown || Accept(",")) && Peek().Is("value")) {
        Next();
        Expect("=");
        const Token& at = Peek();
        const DType saved = implicit_var_dtype_;
        implicit_var_dtype_ = dtype == DType::kUnknown ? DType::kInt64 : dtype;
        value = ParsePrimExpr();
        implicit_var_dtype_ = saved;
        if (dtype != DType::kUnknown && value->dtype != dtype) {
          Fail(at, StrCat("expected a value of type ", DTypeName(dtype), " but found one of type ",
                          DTypeName(value->dtype)));
        }
      }
      Expect(")");
    }
    return PrimSI(dtype, value);
  }
  if (token.Is("Tuple")) {
    Next();
    Expect("(");
    std::vector<StructInfo> fields;
    while (!Peek().Is(")")) {
      fields.push_back(ParseStructInfo());
      if (!Accept(",")) break;
    }
    Expect(")");
    return TupleSI(std::move(fields));
  }
  if (token.Is("Func")) {
    Next();
    Expect("(");
    Expect("(");
    std::vector<StructInfo> params;
    while (!Peek().Is(")")) {
      params.push_back(ParseStructInfo());
      if (!Accept(",")) break;
    }
    Expect(")");
    Expect("->");
    StructInfo ret = ParseStructInfo();
    bool is_pure = true;
    if (Accept(",")) {
      Expect("impure");
      is_pure = false;
    }
    Expect(")");
    return FuncSI(std::move(params), std::move(ret), is_pure);
  }
  Fail(token, StrCat("expected a struct info (Tensor, Tuple, Shape, Prim, Object or Func) but found ",
                     Describe(token)));
}

std::vector<PrimExpr> Parser::ParseShapeTuple() {
  Expect("(");
  std::vector<PrimExpr> dims;
  while (!Peek().Is(")")) {
    const Token& at = Peek();
    PrimExpr dim = ParsePrimExpr();
    if (!IsInt(dim->dtype)) {
      Fail(at, StrCat("expected an integer dimension but found one of type ", DTypeName(dim->dtype)));
    }
    dims.push_back(std::move(dim));
    if (!Accept(",")) break;
  }
  Expect(")");
  return dims;
}

DType Parser::ParseDTypeName(bool allow_unknown) {
  const Token& token = Peek();
  if (token.kind != TokenKind::kIdent) FailExpected("a dtype");
  if (allow_unknown && token.Is("unknown")) {
    Next();
    return DType::kUnknown;
  }
  std::optional<DType> dtype = rxt::ParseDType(token.text);
  if (!dtype) {
    std::vector<std::string> names;
    for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16,
                    DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}) {
      names.push_back(DTypeName(t));
    }
    Fail(token, StrCat("unknown dtype '", token.text, "'", SuggestName(std::string(token.text), names, "")));
  }
  Next();
  return *dtype;
}

int64_t Parser::ParseIndex(const char* what, int64_t max) {
  const Token& token = Peek();
  if (token.kind != TokenKind::kNumber || token.is_float_text || !token.suffix.empty()) FailExpected(what);
  int64_t value = 0;
  auto result = std::from_chars(token.digits.data(), token.digits.data() + token.digits.size(), value);
  if (result.ec != std::errc() || value > max) Fail(token, StrCat(token.text, " is out of range for ", what));
  Next();
  return value;
}

// ---- Attribute values

AttrValue Parser::ParseAttrValue() {
  DepthGuard guard(*this);
  const Token& token = Peek();
  const bool negative = token.Is("-");
  const Token& body = negative ? Peek(1) : token;
  if (body.kind == TokenKind::kNumber) {
    if (negative) Next();
    Next();
    if (!body.suffix.empty()) Fail(body, StrCat("attribute numbers take no type suffix; found ", Describe(body)));
    if (body.is_float_text) {
      std::optional<double> value = ParseFloatText(body.digits, DType::kFloat64, negative);
      if (!value) Fail(body, StrCat(Describe(body), " is out of range for a float"));
      return *value;
    }
    int64_t value = 0;
    std::string error = ParseIntText(body.digits, negative, DType::kInt64, &value);
    if (!error.empty()) Fail(body, error);
    return value;
  }
  if (body.Is("inf") || body.Is("nan")) {
    if (negative) Next();
    Next();
    return *ParseFloatText(body.text, DType::kFloat64, negative);
  }
  if (negative) FailExpected("an attribute value");
  if (token.kind == TokenKind::kString) return AttrValue(Next().value);
  if (token.Is("[")) {
    Next();
    AttrArray items;
    while (!Peek().Is("]")) {
      items.push_back(ParseAttrValue());
      if (!Accept(",")) break;
    }
    Expect("]");
    return AttrValue(std::move(items));
  }
  if (token.kind == TokenKind::kIdent) {
    if (token.Is("true") || token.Is("false")) return AttrValue(Next().Is("true"));
    if (token.Is("none")) {
      Next();
      return AttrValue();
    }
    if (token.Is("const") && Peek(1).Is("(")) return AttrValue(ParseInlineConstant());
    if (token.Is("meta") && Peek(1).Is("[")) return AttrValue(ParseMetaReference());
    if (token.Is("unknown") || rxt::ParseDType(token.text)) return AttrValue(ParseDTypeName(true));
  }
  FailExpected("an attribute value");
}

Attrs Parser::ParseAttrsBlock() {
  Expect("{");
  Attrs attrs;
  while (!Peek().Is("}")) {
    const Token& key = Peek();
    if (key.kind != TokenKind::kIdent && key.kind != TokenKind::kString) FailExpected("an attribute name");
    Next();
    const std::string name = key.kind == TokenKind::kString ? key.value : std::string(key.text);
    if (attrs.Find(name)) Fail(key, StrCat("duplicate attribute '", name, "'"));
    Expect("=");
    attrs.Set(name, ParseAttrValue());
    if (!Accept(",")) break;
  }
  Expect("}");
  return attrs;
}

// ---- Constants

// const(<data>, <dtype>): data is a number or nested lists; the shape follows the nesting.
Tensor Parser::ParseInlineConstant() {
  Expect("const");
  Expect("(");
  ConstData data;
  ParseConstData(0, &data);
  const int rank = data.rank >= 0 ? data.rank : static_cast<int>(data.dims.size());
  std::vector<int64_t> shape;
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d) {
    shape.push_back(d < static_cast<int>(data.dims.size()) && data.dims[d] ? *data.dims[d] : 0);
    numel *= shape.back();  // each count is bounded by the number of tokens: no overflow
    if (numel > static_cast<int64_t>(tokens_.size())) numel = static_cast<int64_t>(tokens_.size()) + 1;
  }
  Expect(",");
  DType dtype = ParseDTypeName(false);
  Expect(")");
  if (numel != static_cast<int64_t>(data.elements.size())) Fail(tokens_[data.first_token], "constant data is ragged");
  Tensor tensor = Tensor::Empty(shape, dtype);
  for (size_t i = 0; i < data.elements.size(); ++i) {
    const Token& token = *data.elements[i].token;
    std::string_view text = token.kind == TokenKind::kNumber ? token.digits : token.text;
    std::string error =
        StoreElement(tensor, static_cast<int64_t>(i), text, token.is_float_text, data.elements[i].negative);
    if (!error.empty()) Fail(token, error);
  }
  return tensor;
}

void Parser::ParseConstData(int depth, ConstData* data) {
  DepthGuard guard(*this);
  const Token& token = Peek();
  if (depth == 0) data->first_token = pos_;
  if (token.Is("[")) {
    if (data->rank >= 0 && depth >= data->rank) Fail(token, "constant data is ragged: expected a number but found '['");
    Next();
    int64_t count = 0;
    while (!Peek().Is("]")) {
      ParseConstData(depth + 1, data);
      ++count;
      if (!Accept(",")) break;
    }
    Expect("]");
    if (static_cast<int>(data->dims.size()) <= depth) data->dims.resize(depth + 1);
    std::optional<int64_t>& dim = data->dims[depth];
    if (!dim) {
      dim = count;
    } else if (*dim != count) {
      Fail(token, StrCat("constant data is ragged: expected a list of ", *dim, " elements but this one has ", count));
    }
    return;
  }
  const bool negative = token.Is("-");
  const Token& body = negative ? Peek(1) : token;
  const bool is_number = body.kind == TokenKind::kNumber;
  if (!is_number && !body.Is("true") && !body.Is("false") && !body.Is("inf") && !body.Is("nan")) {
    if (negative) Next();
    FailExpected(depth == 0 ? "constant data (a number or a list)" : "a number or a list");
  }
  if ((data->rank >= 0 && depth != data->rank) || static_cast<int>(data->dims.size()) > depth) {
    Fail(body, "constant data is ragged: expected a list but found a number");
  }
  if (is_number && !body.suffix.empty()) {
    Fail(body, StrCat("constant elements take no type suffix (the dtype follows the data); found ", Describe(body)));
  }
  data->rank = depth;
  if (negative) Next();
  Next();
  data->elements.push_back({&body, negative});
}

Tensor Parser::ParseMetaReference() {
  Expect("meta");
  Expect("[");
  const Token& index_token = Peek();
  const int64_t index = ParseIndex("a metadata index", std::numeric_limits<int64_t>::max());
  Expect("]");
  auto it = metadata_.find(index);
  if (it == metadata_.end()) {
    Fail(index_token, metadata_begin_ == SIZE_MAX
                          ? StrCat("meta[", index, "] refers to a metadata section, but the file has none")
                          : StrCat("meta[", index, "] is not in the metadata section"));
  }
  return it->second;
}

// metadata { <index>: Tensor((dims), dtype) = base64"..." ... }
void Parser::ParseMetadataSection() {
  Expect("metadata");
  Expect("{");
  prim_vars_.Reset();
  while (!Peek().Is("}")) {
    const Token& index_token = Peek();
    const int64_t index = ParseIndex("a metadata index", std::numeric_limits<int64_t>::max());
    if (metadata_.count(index)) Fail(index_token, StrCat("duplicate metadata entry ", index));
    Expect(":");
    const Token& sinfo_token = Peek();
    StructInfo sinfo = ParseStructInfo();
    const auto* tensor_sinfo = sinfo->As<TensorSINode>();
    if (!tensor_sinfo || !tensor_sinfo->shape || !tensor_sinfo->IsStatic() || tensor_sinfo->dtype == DType::kUnknown) {
      Fail(sinfo_token, StrCat("expected a tensor type with a static shape and a dtype but found ", ToString(sinfo)));
    }
    std::vector<int64_t> shape = tensor_sinfo->StaticShape();
    int64_t numel = 1;
    for (int64_t dim : shape) {
      if (dim < 0) Fail(sinfo_token, StrCat("negative dimension ", dim, " in ", ToString(sinfo)));
      if (dim != 0 && numel > std::numeric_limits<int64_t>::max() / 16 / dim) {
        Fail(sinfo_token, StrCat(ToString(sinfo), " is too large"));
      }
      numel *= dim;
    }
    Expect("=");
    if (!Peek().Is("base64") || Peek(1).kind != TokenKind::kString) FailExpected("base64\"...\" data");
    Next();
    const Token& data_token = Next();
    size_t error_offset = 0;
    std::optional<std::string> bytes = DecodeBase64(data_token.value, &error_offset);
    if (!bytes) {
      Fail(data_token, StrCat("bad base64 data at character ", error_offset + 1, " of metadata entry ", index));
    }
    const int64_t expected = numel * DTypeBytes(tensor_sinfo->dtype);
    if (static_cast<int64_t>(bytes->size()) != expected) {
      Fail(data_token, StrCat("metadata entry ", index, ": ", ToString(sinfo), " needs ", expected,
                              " bytes but the data has ", bytes->size()));
    }
    metadata_[index] = Tensor::FromBytes(shape, tensor_sinfo->dtype, bytes->data(), bytes->size());
  }
  Expect("}");
}

}  // namespace rxt::text
