// The operator registry. Each op is declared once, with its inputs, its typed attribute
// schema and typed "op attributes" (struct-info inference now; legalization and gradient
// rules registered later by the compiler and by plugins):
//
//   r.Def("matmul").Describe("Matrix product with NumPy semantics.")
//    .Input("x1", "Tensor").Input("x2", "Tensor")
//    .Set<FInferStructInfo>(InferMatmul);
//
// Passes look op attributes up by type and never special-case an op by name.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "rxt/ir/expr.h"

namespace rxt {

class IRModule;

/// The kind of value an attribute holds; checked when a call is built or parsed.
enum class AttrKind : uint8_t {
  kBool, kInt, kFloat, kString, kDType,
  kIntList,          // [1, 2]
  kOptionalInt,      // none or int
  kOptionalIntList,  // none or [ints] (e.g. axis=None: reduce over all axes)
};
const char* AttrKindName(AttrKind k);

struct AttrSpec {
  std::string name;
  AttrKind kind;
  AttrValue default_value;  // none for a required attribute of a non-optional kind
  bool required = false;
  std::string doc;
};

struct InputSpec {
  std::string name;
  std::string type;  // "Tensor", "Shape", "Prim", "Tuple", "Any": documentation and errors
};

/// Computes the struct info of a call whose arguments are normalized. Throws rxt::Error
/// (kInvalidArgument) naming the op, the argument and the types on a bad call; use
/// OpError() below for a uniform message.
using FInferStructInfo = std::function<StructInfo(const CallNode& call)>;

/// Whether calling the op has side effects (print, assert). Ops are pure by default.
struct FPurity { bool pure = true; };

class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  OpDef& Describe(std::string doc) { doc_ = std::move(doc); return *this; }
  /// Declares the next positional input.
  OpDef& Input(std::string name, std::string type = "Tensor");
  /// Ops with a variable number of inputs (none known in advance): inputs are documentation.
  OpDef& Variadic() { variadic_ = true; return *this; }
  OpDef& Attr(std::string name, AttrKind kind, AttrValue default_value, std::string doc = "");
  OpDef& RequiredAttr(std::string name, AttrKind kind, std::string doc = "");

  /// Typed op attributes: Set<FInferStructInfo>(f), Get<FLegalize>() ...
  template <typename T>
  OpDef& Set(T value) { slots_[std::type_index(typeid(T))] = std::move(value); return *this; }
  template <typename T>
  const T* Get() const {
    auto it = slots_.find(std::type_index(typeid(T)));
    return it == slots_.end() ? nullptr : std::any_cast<T>(&it->second);
  }
  template <typename T>
  bool Has() const { return Get<T>() != nullptr; }

  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }
  const std::vector<InputSpec>& inputs() const { return inputs_; }
  bool variadic() const { return variadic_; }
  const std::vector<AttrSpec>& attrs() const { return attrs_; }
  const AttrSpec* FindAttr(const std::string& name) const;
  bool pure() const { auto* p = Get<FPurity>(); return p == nullptr || p->pure; }
  /// The op as a callee expression (one shared node per op).
  const Expr& AsExpr() const { return expr_; }

  /// Checks |attrs| against the schema (unknown names, wrong kinds, missing required ones)
  /// and returns them complete with defaults, in schema order. Throws kInvalidArgument.
  Attrs CompleteAttrs(const Attrs& attrs) const;

 private:
  friend class OpRegistry;
  std::string name_, doc_;
  std::vector<InputSpec> inputs_;
  bool variadic_ = false;
  std::vector<AttrSpec> attrs_;
  std::map<std::type_index, std::any> slots_;
  Expr expr_;
};

class OpRegistry {
 public:
  /// The process-wide registry, with every core op registered (see op_list.h).
  static OpRegistry& Global();

  /// Declares a new op; throws kAlreadyExists if |name| is taken.
  OpDef& Def(const std::string& name);
  const OpDef* Find(const std::string& name) const;
  /// Throws kNotFound with a "did you mean" hint.
  const OpDef& Get(const std::string& name) const;
  /// For plugins and passes that add op attributes after declaration.
  OpDef* FindMutable(const std::string& name);
  /// Every op, sorted by name.
  std::vector<const OpDef*> List() const;

 private:
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

/// Shorthand: the callee expression of a registered op.
const Expr& GetOp(const std::string& name);
/// Builds a call to a registered op; attributes are completed with defaults and checked.
Expr MakeOpCall(const std::string& op, std::vector<Expr> args, Attrs attrs = {},
                std::vector<StructInfo> sinfo_args = {}, Span span = {});

/// If |callee| is a registered op, the op; else nullptr.
const OpDef* AsOp(const Expr& callee);

/// The uniform error of a bad call: "<span>: <op>: <message>".
[[noreturn]] void OpError(const CallNode& call, const std::string& message);
/// "argument x1 (%x: Tensor((2, 3), float32))": how errors name an argument.
std::string DescribeArg(const CallNode& call, int index);

}  // namespace rxt
