// Helpers for the op tests: variables with given struct info, calls built through the
// registry, and their inferred struct info (or error) as text.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "rxt/ir/builder.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/op.h"

namespace rxt::op_test {

constexpr DType f32 = DType::kFloat32;
constexpr DType f16 = DType::kFloat16;
constexpr DType i64 = DType::kInt64;
constexpr DType i32 = DType::kInt32;
constexpr DType boolean = DType::kBool;

inline PrimExpr I(int64_t v) { return IntImm(v); }

/// A tensor variable with a static shape.
inline Expr T(const std::string& name, const std::vector<int64_t>& shape, DType dtype = f32) {
  return MakeVar(name, TensorSI(shape, dtype));
}
/// A tensor variable with (possibly symbolic) dims.
inline Expr S(const std::string& name, std::vector<PrimExpr> shape, DType dtype = f32) {
  return MakeVar(name, TensorSI(std::move(shape), dtype));
}
/// A tensor variable of known ndim (-1: unknown) and unknown shape.
inline Expr N(const std::string& name, int ndim, DType dtype = f32) { return MakeVar(name, TensorSI(dtype, ndim)); }
inline Expr Shape(std::vector<PrimExpr> dims) { return MakeShapeExpr(std::move(dims)); }
inline Expr StaticShape(const std::vector<int64_t>& dims) {
  std::vector<PrimExpr> v;
  for (int64_t d : dims) v.push_back(IntImm(d));
  return MakeShapeExpr(v);
}
/// A tuple expression with its struct info inferred.
inline Expr Tup(std::vector<Expr> fields) {
  Expr t = MakeTuple(std::move(fields));
  InferStructInfo(t, nullptr);
  return t;
}

inline Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  Attrs attrs;
  for (const auto& [name, value] : entries) attrs.Set(name, value);
  return attrs;
}
inline AttrValue Ints(const std::vector<int64_t>& v) { return AttrValue::IntList(v); }

/// The struct info inferred for op(args; attrs), as text.
inline std::string Infer(const std::string& op, std::vector<Expr> args, Attrs attrs = {},
                         std::vector<StructInfo> sinfo_args = {}) {
  Expr call = MakeOpCall(op, std::move(args), std::move(attrs), std::move(sinfo_args));
  return ToString(InferStructInfo(call, nullptr));
}

/// The message of the error that building or inferring op(args; attrs) throws; "" (and a
/// test failure) if it throws none.
inline std::string InferError(const std::string& op, std::vector<Expr> args, Attrs attrs = {},
                              std::vector<StructInfo> sinfo_args = {}) {
  try {
    Expr call = MakeOpCall(op, std::move(args), std::move(attrs), std::move(sinfo_args));
    StructInfo sinfo = InferStructInfo(call, nullptr);
    ADD_FAILURE() << op << ": expected an error, got " << ToString(sinfo);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

}  // namespace rxt::op_test
