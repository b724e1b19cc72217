// Helpers shared by the rules of several op families: broadcasting adjoints reduced back to an
// operand's shape, reduction axes, element counts that may be symbolic, and small arithmetic.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <rxt/plugin_support/rule.h>

namespace rxt::grad_std {

using plugin_support::Expr;
using plugin_support::FloatText;
using plugin_support::IntsText;
using plugin_support::Quoted;
using plugin_support::Rule;

/// |grad| summed down to the shape of |like| (the gradient of NumPy broadcasting): a
/// collapse_sum_to, left out when the struct infos already agree.
Expr CollapseTo(Rule& r, Expr grad, Expr like);

inline Expr Neg(Rule& r, Expr x) { return r.Op("negative", {x}); }
inline Expr Add(Rule& r, Expr a, Expr b) { return r.Op("add", {a, b}); }
inline Expr Sub(Rule& r, Expr a, Expr b) { return r.Op("subtract", {a, b}); }
inline Expr Mul(Rule& r, Expr a, Expr b) { return r.Op("multiply", {a, b}); }
inline Expr Div(Rule& r, Expr a, Expr b) { return r.Op("divide", {a, b}); }
/// |x| * |value| (a constant of x's dtype).
inline Expr Scale(Rule& r, Expr x, double value) { return Mul(r, x, r.ScalarLike(value, x)); }
/// where(condition, x, 0).
inline Expr KeepWhere(Rule& r, Expr condition, Expr x) { return r.Op("where", {condition, x, r.ScalarLike(0, x)}); }

/// |axis| made non-negative for |ndim| dims (fails the rule when out of range).
int NormalizeAxis(Rule& r, int64_t axis, int ndim);
/// The sorted, non-negative axes of optional list attribute |name| (none: every axis).
std::vector<int> ReducedAxes(Rule& r, const char* name, int ndim);
std::string AxesText(const std::vector<int>& axes);

/// The adjoint |grad| of a reduction of |axes| brought back to the reduced input's ndim
/// (size-1 dims where the axes were), ready to broadcast against the input.
Expr KeepReducedDims(Rule& r, Expr grad, const std::vector<int>& axes, bool keepdims);

/// The number of elements of |x| along |axes|, as a 0-d tensor of x's dtype: a constant when
/// those dims are static, else counted at run time.
Expr CountAlong(Rule& r, Expr x, const std::vector<int>& axes);

/// A constant 0, 1, ..., n-1 of |dtype| shaped |shape| (n elements: one non-1 dim).
Expr Arange(Rule& r, int64_t n, const std::string& dtype, const std::vector<int64_t>& shape);

/// permute_dims swapping the last two dims.
Expr TransposeLast2(Rule& r, Expr x);

/// A shape for reshape: |dims| where a nullopt dim (symbolic) becomes -1; fails when more
/// than one dim is symbolic (|why| names what needs it).
Expr ReshapeTarget(Rule& r, const std::vector<std::optional<int64_t>>& dims, const char* why);
/// The dims of |x| (nullopt where symbolic).
std::vector<std::optional<int64_t>> DimsOf(Rule& r, Expr x, const char* what);

/// The call's attributes |names| as they are, in the text format ("strides=[2, 2], ..."),
/// for passing them on to another op; absent ones are left out.
std::string CopyAttrs(Rule& r, std::initializer_list<const char*> names);

}  // namespace rxt::grad_std
