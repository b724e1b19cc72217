// The operator registry (as TVM keeps Op in ir/). Each op is declared once, with its inputs,
// its typed attribute schema and typed "op attributes": struct-info inference (op/), its
// legalization (transform/legalize/), its gradient rules (set by the plugins that provide
// them, transform/training/gradient.h):
//
//   r.Def("matmul").Describe("Matrix product with NumPy semantics.")
//    .Input("x1", "Tensor").Input("x2", "Tensor")
//    .Set<FInferStructInfo>(InferMatmul);
//
// Passes look op attributes up by type and never special-case an op by name.
//
// Life cycle: the first use of OpRegistry::Global() runs the compiler's one initialisation
// (core/src/transform/compiler_init.cc): every core op, every legalization, then Freeze().
// A frozen registry only grows through Extend(), under its write lock (plugin loading is the
// one user), so any thread may read it at any time.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <typeindex>
#include <vector>

#include "rxt/ir/expr.h"

namespace rxt {

class IRModule;
class OpRegistry;

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
  bool optional = false;  // a call may leave it out (and every optional input after it)
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
  /// Declares the next positional input as one a call may leave out (inputs after it must be
  /// optional too): linear's bias, nll_loss's weights.
  OpDef& OptionalInput(std::string name, std::string type = "Tensor");
  /// Ops with a variable number of inputs (none known in advance): inputs are documentation.
  OpDef& Variadic() { variadic_ = true; return *this; }
  OpDef& Attr(std::string name, AttrKind kind, AttrValue default_value, std::string doc = "");
  OpDef& RequiredAttr(std::string name, AttrKind kind, std::string doc = "");

  /// Typed op attributes: Set<FInferStructInfo>(f), Get<FLegalize>() ... Once the registry is
  /// frozen, Set only adds an attribute the op does not have, inside OpRegistry::Extend
  /// (kFailedPrecondition otherwise), so a pointer Get returned stays valid.
  template <typename T>
  OpDef& Set(T value) { SetSlot(std::type_index(typeid(T)), std::any(std::move(value))); return *this; }
  template <typename T>
  const T* Get() const { return std::any_cast<T>(FindSlot(std::type_index(typeid(T)))); }
  template <typename T>
  bool Has() const { return Get<T>() != nullptr; }

  /// Attributes owned by a plugin host (one value per owner, e.g. the gradient rule each host
  /// loaded for the op): set and dropped inside OpRegistry::Extend, read as a copy.
  template <typename T>
  void SetOwned(const void* owner, T value) {
    SetOwnedSlot(std::type_index(typeid(T)), owner, std::any(std::move(value)));
  }
  template <typename T>
  void DropOwned(const void* owner) {
    SetOwnedSlot(std::type_index(typeid(T)), owner, std::any());
  }
  template <typename T>
  std::optional<T> GetOwned(const void* owner) const {
    std::any value = FindOwnedSlot(std::type_index(typeid(T)), owner);
    if (const T* typed = std::any_cast<T>(&value)) return *typed;
    return std::nullopt;
  }

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
  void SetSlot(std::type_index type, std::any value);
  const std::any* FindSlot(std::type_index type) const;
  void SetOwnedSlot(std::type_index type, const void* owner, std::any value);
  std::any FindOwnedSlot(std::type_index type, const void* owner) const;

  OpRegistry* registry_ = nullptr;
  std::string name_, doc_;
  std::vector<InputSpec> inputs_;
  bool variadic_ = false;
  std::vector<AttrSpec> attrs_;
  std::map<std::type_index, std::any> slots_;
  std::map<std::pair<std::type_index, const void*>, std::any> owned_slots_;
  Expr expr_;
};

class OpRegistry {
 public:
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  /// The process-wide registry: every core op with its legalization, frozen. Defined by the
  /// compiler's initialisation (core/src/transform/compiler_init.cc), which runs once, on
  /// first use, whichever thread gets here first.
  static OpRegistry& Global();

  /// Declares a new op; throws kAlreadyExists if |name| is taken, kFailedPrecondition if the
  /// registry is frozen and the caller is not inside Extend.
  OpDef& Def(const std::string& name);
  const OpDef* Find(const std::string& name) const;
  /// Throws kNotFound with a "did you mean" hint.
  const OpDef& Get(const std::string& name) const;
  /// For adding op attributes during initialisation or inside Extend (kFailedPrecondition
  /// otherwise once frozen). Null if there is no such op.
  OpDef* FindMutable(const std::string& name);
  /// Every op, sorted by name.
  std::vector<const OpDef*> List() const;

  /// Ends initialisation: from now on the registry changes only inside Extend.
  void Freeze();
  bool frozen() const;
  /// Runs |change| holding the registry's write lock: the one way to change a frozen registry
  /// (plugin loading). Readers on other threads wait; |change| may read the registry too.
  /// If |change| throws, what it did stays (it should check before it changes anything).
  void Extend(const std::function<void(OpRegistry&)>& change);

 private:
  friend class OpDef;
  /// Throws kFailedPrecondition if the registry is frozen and this thread is not in Extend.
  void CheckWritable(const std::string& what) const;
  bool WriterIsThisThread() const;
  /// Shared lock for a read; already held (so not taken) on the thread inside Extend.
  std::shared_lock<std::shared_mutex> ReadLock() const;

  std::map<std::string, std::unique_ptr<OpDef>> ops_;
  bool frozen_ = false;
  mutable std::shared_mutex mutex_;  // exclusive inside Extend; shared for reads once frozen
};

/// Shorthand: the callee expression of a registered op.
const Expr& GetOp(const std::string& name);
/// Builds a call to a registered op; attributes are completed with defaults and checked.
Expr MakeOpCall(const std::string& op, std::vector<Expr> args, Attrs attrs = {},
                std::vector<StructInfo> sinfo_args = {}, Span span = {});

/// If |callee| is a registered op, the op; else nullptr.
const OpDef* AsOp(const Expr& callee);

/// The arguments of an op call as plugins see them (rxt_ir_api_t's num_args/arg) and as a
/// gradient rule returns their adjoints: the call's arguments, except for call_kernel and
/// call_extern, whose arguments are the fields of their argument tuple.
const std::vector<Expr>& IRCallArgs(const CallNode& call);

/// The uniform error of a bad call: "<span>: <op>: <message>".
[[noreturn]] void OpError(const CallNode& call, const std::string& message);
/// "argument x1 (%x: Tensor((2, 3), float32))": how errors name an argument.
std::string DescribeArg(const CallNode& call, int index);

}  // namespace rxt
