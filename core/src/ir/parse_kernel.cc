// The parser: kernel functions and their statements.
#include <algorithm>

#include "parser_impl.h"
#include "text_syntax.h"

namespace rxt::text {

Buffer Parser::LookupBuffer(const Token& name) const {
  if (!in_kernel_) Fail(name, StrCat("buffer loads like ", name.text, "[...] are only allowed in kernels"));
  const Buffer* buffer = buffers_.Find(std::string(name.text));
  if (!buffer) Fail(name, StrCat("undefined buffer '", name.text, "'"));
  return *buffer;
}

// Loop, block and scalar-parameter variables: a new name in the innermost scope.
void Parser::DefinePrimVar(const Token& name, const PrimVar& var) {
  CheckNewName(name);
  if (prim_vars_.Find(var->name)) Fail(name, StrCat("redefinition of ", name.text));
  prim_vars_.Define(var->name, var);
  declared_vars_.insert(var.get());
}

// kernel @name(params) [attributes {...}] { stmts }
void Parser::ParseKernel() {
  Next();
  const Token& name = ExpectKind(TokenKind::kGlobal, "a kernel name");
  if (module_.Contains(name.value)) Fail(name, StrCat("redefinition of @", name.value));
  prim_vars_.Reset();
  buffers_.Reset();
  declared_vars_.clear();
  implicit_var_dtype_ = DType::kInt64;
  in_kernel_ = true;
  std::vector<KernelParam> params;
  Expect("(");
  while (!Peek().Is(")")) {
    const Token& param = ExpectKind(TokenKind::kIdent, "a parameter name");
    CheckNewName(param);
    const std::string param_name(param.text);
    Expect(":");
    if (Peek().Is("Buffer")) {
      if (buffers_.Find(param_name)) Fail(param, StrCat("redefinition of buffer ", param_name));
      Buffer buffer = ParseBufferDecl(param_name);
      buffers_.Define(param_name, buffer);
      params.push_back({buffer, nullptr});
    } else {
      const Token& dtype_token = Peek();
      DType dtype = ParseDTypeName(false);
      // The parameter may already be in use as a symbolic dim of an earlier buffer.
      PrimVar var;
      if (const PrimVar* existing = prim_vars_.Find(param_name)) {
        if (declared_vars_.count(existing->get())) Fail(param, StrCat("redefinition of ", param_name));
        if ((*existing)->dtype != dtype) {
          Fail(dtype_token, StrCat(param_name, " is used as ", DTypeName((*existing)->dtype),
                                   " in an earlier shape, so its parameter must be ", DTypeName((*existing)->dtype)));
        }
        var = *existing;
        declared_vars_.insert(var.get());
      } else {
        var = MakePrimVar(param_name, dtype);
        DefinePrimVar(param, var);
      }
      params.push_back({nullptr, var});
    }
    if (!Accept(",")) break;
  }
  Expect(")");
  Attrs attrs;
  if (Accept("attributes")) attrs = ParseAttrsBlock();
  Expect("{");
  Stmt body = ParseStmtList();
  Expect("}");
  in_kernel_ = false;
  module_.AddKernel(name.value, MakeKernelFunction(std::move(params), std::move(body), std::move(attrs)));
}

// Buffer((dims), dtype[, strides=(s...)])
Buffer Parser::ParseBufferDecl(const std::string& name) {
  Expect("Buffer");
  Expect("(");
  std::vector<PrimExpr> shape = ParseShapeTuple();
  Expect(",");
  DType dtype = ParseDTypeName(false);
  std::vector<PrimExpr> strides;
  if (Accept(",")) {
    Expect("strides");
    Expect("=");
    const Token& at = Peek();
    strides = ParseShapeTuple();
    if (strides.size() != shape.size()) {
      Fail(at, StrCat("expected ", shape.size(), " strides (one per dimension) but found ", strides.size()));
    }
  }
  Expect(")");
  return MakeBuffer(name, dtype, std::move(shape), std::move(strides));
}

// Statements up to the closing '}' (not consumed). A flat `alloc` owns the rest of the list.
Stmt Parser::ParseStmtList() {
  DepthGuard guard(*this);
  ChainGuard chain(*this);  // each flat alloc nests the rest of the list
  buffers_.Push();
  std::vector<Stmt> stmts;
  std::vector<Buffer> flat_allocs;  // parallel to stmts: set where a flat alloc starts
  while (!Peek().Is("}") && Peek().kind != TokenKind::kEnd) ParseStmt(&stmts, &flat_allocs, &chain);
  buffers_.Pop();
  std::vector<Stmt> tail;  // built from the end, reversed: each flat alloc wraps what follows it
  for (size_t i = stmts.size(); i-- > 0;) {
    if (flat_allocs[i]) {
      std::reverse(tail.begin(), tail.end());
      tail = {MakeAllocate(flat_allocs[i], MakeSeq(std::move(tail)))};
    } else {
      tail.push_back(stmts[i]);
    }
  }
  std::reverse(tail.begin(), tail.end());
  return MakeSeq(std::move(tail));
}

void Parser::ParseStmt(std::vector<Stmt>* stmts, std::vector<Buffer>* flat_allocs, ChainGuard* chain) {
  const Token& token = Peek();
  Stmt stmt;
  Buffer flat_alloc;
  if (token.Is("{")) {
    Next();
    stmt = ParseStmtList();
    Expect("}");
  } else if (token.Is("for")) {
    stmt = ParseFor();
  } else if (token.Is("if")) {
    stmt = ParseIfStmt();
  } else if (token.Is("block")) {
    stmt = ParseBlock();
  } else if (token.Is("alloc")) {
    Next();
    const Token& name = ExpectKind(TokenKind::kIdent, "a buffer name");
    CheckNewName(name);
    const std::string buffer_name(name.text);
    if (buffers_.Find(buffer_name)) Fail(name, StrCat("redefinition of buffer ", buffer_name));
    Expect(":");
    Buffer buffer = ParseBufferDecl(buffer_name);
    if (Accept("{")) {  // the braced form: the buffer lives inside the braces
      buffers_.Push();
      buffers_.Define(buffer_name, buffer);
      Stmt body = ParseStmtList();
      Expect("}");
      buffers_.Pop();
      stmt = MakeAllocate(buffer, body);
    } else {
      chain->Extend(token);
      buffers_.Define(buffer_name, buffer);
      flat_alloc = buffer;
    }
  } else if (token.kind == TokenKind::kIdent && Peek(1).Is("[")) {
    stmt = ParseStore();
  } else {
    FailExpected("a statement (for, if, block, alloc or a store)");
  }
  stmts->push_back(std::move(stmt));
  flat_allocs->push_back(std::move(flat_alloc));
}

// for i in range(extent) [parallel|vectorized|unrolled] { ... }
Stmt Parser::ParseFor() {
  Next();
  const Token& var_token = ExpectKind(TokenKind::kIdent, "a loop variable");
  Expect("in");
  Expect("range");
  Expect("(");
  const Token& extent_token = Peek();
  PrimExpr extent = ParsePrimExpr();
  if (!IsInt(extent->dtype)) {
    Fail(extent_token, StrCat("expected an integer loop extent but found one of type ", DTypeName(extent->dtype)));
  }
  Expect(")");
  LoopKind kind = LoopKind::kSerial;
  for (LoopKind k : {LoopKind::kSerial, LoopKind::kParallel, LoopKind::kVectorized, LoopKind::kUnrolled}) {
    if (Accept(LoopKindName(k))) {
      kind = k;
      break;
    }
  }
  Expect("{");
  prim_vars_.Push();
  PrimVar var = MakePrimVar(std::string(var_token.text), extent->dtype);
  DefinePrimVar(var_token, var);
  Stmt body = ParseStmtList();
  Expect("}");
  prim_vars_.Pop();
  return MakeFor(var, extent, body, kind);
}

// if cond { ... } [else { ... }]
Stmt Parser::ParseIfStmt() {
  Next();
  const Token& cond_token = Peek();
  PrimExpr cond = ParsePrimExpr();
  if (cond->dtype != DType::kBool) {
    Fail(cond_token, StrCat("expected a bool condition but found one of type ", DTypeName(cond->dtype)));
  }
  Expect("{");
  Stmt then_case = ParseStmtList();
  Expect("}");
  Stmt else_case;
  if (Accept("else")) {
    Expect("{");
    else_case = ParseStmtList();
    Expect("}");
  }
  return MakeIfStmt(cond, then_case, else_case);
}

// block name([reduce] v = value, ...) { [init { ... }] ... }
Stmt Parser::ParseBlock() {
  Next();
  const Token& name = Peek();
  if (name.kind != TokenKind::kIdent && name.kind != TokenKind::kString) FailExpected("a block name");
  Next();
  const std::string block_name = name.kind == TokenKind::kString ? name.value : std::string(name.text);
  Expect("(");
  struct Iter {
    const Token* name;
    PrimExpr value;
    IterKind kind;
  };
  std::vector<Iter> iters;
  while (!Peek().Is(")")) {
    IterKind kind = Accept("reduce") ? IterKind::kReduce : IterKind::kSpatial;
    const Token& var_name = ExpectKind(TokenKind::kIdent, "a block variable");
    Expect("=");
    const Token& value_token = Peek();
    PrimExpr value = ParsePrimExpr();
    if (!IsInt(value->dtype)) {
      Fail(value_token, StrCat("expected an integer block binding but found one of type ", DTypeName(value->dtype)));
    }
    iters.push_back({&var_name, value, kind});
    if (!Accept(",")) break;
  }
  Expect(")");
  Expect("{");
  prim_vars_.Push();  // block variables are visible in init and body only
  std::vector<IterVar> iter_vars;
  for (const Iter& iter : iters) {
    PrimVar var = MakePrimVar(std::string(iter.name->text), iter.value->dtype);
    DefinePrimVar(*iter.name, var);
    iter_vars.push_back({var, iter.value, iter.kind});
  }
  Stmt init;
  if (Peek().Is("init") && Peek(1).Is("{")) {
    Next();
    Next();
    init = ParseStmtList();
    Expect("}");
  }
  Stmt body = ParseStmtList();
  Expect("}");
  prim_vars_.Pop();
  return MakeBlock(block_name, std::move(iter_vars), init, body);
}

// Buf[i, j] = value
Stmt Parser::ParseStore() {
  const Token& name = Next();
  Buffer buffer = LookupBuffer(name);
  Next();
  std::vector<PrimExpr> indices;
  while (!Peek().Is("]")) {
    indices.push_back(ParsePrimExpr());
    if (!Accept(",")) break;
  }
  Expect("]");
  const Token& assign = Expect("=");
  PrimExpr value = ParsePrimExpr();
  try {
    return MakeStore(buffer, std::move(indices), value);
  } catch (const Error& e) {
    Reposition(e, assign);
  }
}

}  // namespace rxt::text
