// The parser's machinery. One class, its methods split by topic:
//   parser.cc       tokens, errors, the module level (pre-scans, headers, two passes)
//   parse_value.cc  struct info, dtypes, attribute values, constants, the metadata section
//   parse_prim.cc   scalar expressions (shapes, prim values, kernel arithmetic)
//   parse_relax.cc  Relax function bodies and expressions (built with the BlockBuilder)
//   parse_kernel.cc kernel functions and statements
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lexer.h"
#include "rxt/ir/builder.h"
#include "rxt/ir/module.h"
#include "rxt/ir/op.h"

namespace rxt::text {

/// Nested name -> value scopes; level 0 is the function scope.
template <typename T>
class Scopes {
 public:
  void Reset() { levels_.assign(1, {}); }
  void Push() { levels_.emplace_back(); }
  void Pop() { levels_.pop_back(); }
  const T* Find(const std::string& name) const {
    for (auto level = levels_.rbegin(); level != levels_.rend(); ++level) {
      auto it = level->find(name);
      if (it != level->end()) return &it->second;
    }
    return nullptr;
  }
  void Define(const std::string& name, T value) { levels_.back()[name] = std::move(value); }
  void DefineOuter(const std::string& name, T value) { levels_.front()[name] = std::move(value); }
  std::unordered_map<std::string, T>& Top() { return levels_.back(); }
  std::unordered_map<std::string, T>& Outer() { return levels_.front(); }

 private:
  std::vector<std::unordered_map<std::string, T>> levels_ = std::vector<std::unordered_map<std::string, T>>(1);
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file_name);
  IRModule Run();

  // ---- Fragments (parse_fragment.cc): the whole text is one list or one struct info.
  /// `name = value, ...` (attribute syntax, an optional trailing comma), to the end of input.
  Attrs RunAttrList();
  /// One struct info. Symbolic dims resolve against |symbols| first; new names become new
  /// variables, added to |symbols|.
  StructInfo RunStructInfo(std::map<std::string, PrimVar>* symbols);

 private:
  /// A Relax function whose header is parsed and whose body waits for the second pass.
  struct PendingFunction {
    std::string name;
    Span span;
    std::vector<Var> params;
    StructInfo ret;
    size_t ret_token;
    Attrs attrs;
    bool is_pure = true;
    std::unordered_map<std::string, PrimVar> symbols;  // symbolic dims of the signature
    size_t body_token;                                   // the first token after '{'
  };

  /// The data of an inline constant, converted once its dtype (written after it) is known.
  struct ConstData {
    struct Element {
      const Token* token;
      bool negative;
    };
    std::vector<Element> elements;
    std::vector<std::optional<int64_t>> dims;  // list length at each depth
    int rank = -1;                              // the depth of the numbers, once one is seen
    size_t first_token = 0;
  };

  /// Limits recursion: deeply nested input is an error, never a stack overflow.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& parser);
    ~DepthGuard() { --parser_.depth_; }

   private:
    Parser& parser_;
  };

  /// Left-associative chains (a + b + c, %t[0][1], flat allocs) nest the IR as deeply as
  /// parentheses do without recursing in the parser; this bounds that depth too, so that
  /// code walking the IR recursively (printing, destruction) stays within the stack.
  class ChainGuard {
   public:
    explicit ChainGuard(Parser& parser) : parser_(parser), saved_(parser.chain_depth_) {}
    ~ChainGuard() { parser_.chain_depth_ = saved_; }
    /// One more level of the chain; |at| is where an error would point.
    void Extend(const Token& at);

   private:
    Parser& parser_;
    int saved_;
  };

  // ---- tokens and errors (parser.cc)
  const Token& Peek(size_t ahead = 0) const;
  const Token& Next();
  bool Accept(std::string_view text);
  const Token& Expect(std::string_view text);
  const Token& ExpectKind(TokenKind kind, const char* what);
  Span SpanOf(const Token& token) const { return Span{file_, token.line, token.column}; }
  [[noreturn]] void Fail(const Token& at, const std::string& message) const;
  [[noreturn]] void FailExpected(const std::string& what) const;
  /// Re-throws an error of the IR layer (inference, constructors) positioned at |at|.
  [[noreturn]] void Reposition(const Error& error, const Token& at) const;
  /// The index of the bracket closing the one at |open|, or of the end token.
  size_t MatchingClose(size_t open) const;
  /// Rejects reserved words as names of new variables and buffers.
  void CheckNewName(const Token& name) const;

  // ---- module level (parser.cc)
  void ScanMetadata();
  void ParseTopLevel();
  void ParseFunctionHeader();
  void ParseFunctionBody(const PendingFunction& pending);

  // ---- values (parse_value.cc)
  StructInfo ParseStructInfo();
  std::vector<PrimExpr> ParseShapeTuple();
  DType ParseDTypeName(bool allow_unknown);
  int64_t ParseIndex(const char* what, int64_t max);
  AttrValue ParseAttrValue();
  Attrs ParseAttrsBlock();
  Tensor ParseInlineConstant();
  void ParseConstData(int depth, ConstData* data);
  Tensor ParseMetaReference();
  void ParseMetadataSection();

  // ---- scalar expressions (parse_prim.cc)
  PrimExpr ParsePrimExpr();
  PrimExpr ParseOr();
  PrimExpr ParseAnd();
  PrimExpr ParseCompare();
  PrimExpr ParseAdd();
  PrimExpr ParseMul();
  PrimExpr ParseUnary();
  PrimExpr ParsePrimAtom();
  PrimExpr ParseNumberLiteral(const Token& token, bool negative);
  PrimExpr ParsePrimCall(const Token& name);
  PrimExpr ResolvePrimVar(const Token& name);
  PrimExpr Binary(BinaryOp op, PrimExpr a, PrimExpr b, const Token& at) const;

  // ---- Relax bodies and expressions (parse_relax.cc)
  SeqExpr ParseSeq(const char* terminator);
  BindingBlock ParseDataflowBlock();
  void ParseBinding(const std::unordered_set<std::string>* outputs);
  Expr ParseExpr();
  Expr ParseExprAtom();
  Expr ParseTupleExpr();
  Expr ParseCall(Expr callee, const Token& callee_token);
  Expr ParseIf();
  Expr Normalize(const Expr& expr, const Token& at);
  std::unordered_set<std::string> ScanOutputs(size_t open) const;

  // ---- kernels (parse_kernel.cc)
  void ParseKernel();
  Buffer ParseBufferDecl(const std::string& name);
  Stmt ParseStmtList();
  void ParseStmt(std::vector<Stmt>* stmts, std::vector<Buffer>* flat_allocs, ChainGuard* chain);
  Stmt ParseFor();
  Stmt ParseIfStmt();
  Stmt ParseBlock();
  Stmt ParseStore();
  Buffer LookupBuffer(const Token& name) const;
  void DefinePrimVar(const Token& name, const PrimVar& var);

  std::shared_ptr<const std::string> file_;
  std::string_view source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int chain_depth_ = 0;

  IRModule module_;
  std::vector<PendingFunction> pending_;
  bool seen_module_attrs_ = false;
  std::map<int64_t, Tensor> metadata_;
  size_t metadata_begin_ = SIZE_MAX, metadata_end_ = SIZE_MAX;  // token range of the section

  // Function state.
  std::unique_ptr<BlockBuilder> builder_;
  Scopes<Var> vars_;                                      // %x
  std::unordered_map<std::string, Span> ended_dataflow_;  // dataflow vars of closed blocks
  Scopes<PrimVar> prim_vars_;                             // n, i, vi
  DType implicit_var_dtype_ = DType::kInt64;              // of symbolic vars created on first use
  bool in_kernel_ = false;
  Scopes<Buffer> buffers_;
  std::unordered_set<const PrimVarNode*> declared_vars_;  // kernel params, loop and block vars
};

}  // namespace rxt::text
