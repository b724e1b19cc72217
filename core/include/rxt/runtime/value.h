// Runtime values: what VM registers hold and what functions take and return.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "rxt/runtime/tensor.h"

namespace rxt {

/// None | tensor | tuple | shape | int | float | string. Copies are cheap: a tensor, a tuple,
/// a shape and a string are shared, immutable-by-convention nodes (a copy is a reference-count
/// increment), so moving values between VM registers never allocates.
class Value {
 public:
  enum class Kind : uint8_t { kNone, kTensor, kTuple, kShape, kInt, kFloat, kString };

  Value() = default;
  Value(Tensor t);  // NOLINT: implicit, a tensor is a value
  static Value Tuple(std::vector<Value> fields);
  static Value Shape(std::vector<int64_t> dims);
  static Value Int(int64_t v);
  static Value Float(double v);
  static Value String(std::string s);

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_tensor() const { return kind() == Kind::kTensor; }
  bool is_tuple() const { return kind() == Kind::kTuple; }
  bool is_shape() const { return kind() == Kind::kShape; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_float() const { return kind() == Kind::kFloat; }
  bool is_string() const { return kind() == Kind::kString; }

  // Accessors throw kInvalidArgument naming both kinds when the value is of another kind.
  const Tensor& tensor() const;
  /// The tensor, mutable: kernels write outputs in place.
  Tensor& mutable_tensor();
  const std::vector<Value>& tuple() const;
  const std::vector<int64_t>& shape() const;
  int64_t int_value() const;
  double float_value() const;
  const std::string& string() const;

  /// True when this value is a tensor that nothing else refers to: no other value holds it and
  /// no other tensor shares its storage (so its memory may be written again).
  bool is_sole_tensor_owner() const {
    const auto* held = std::get_if<std::shared_ptr<Tensor>>(&data_);
    return held != nullptr && held->use_count() == 1 && (*held)->storage_use_count() == 1;
  }

  /// "tensor", "tuple", ...
  static const char* KindName(Kind k);
  /// A short description for messages: "float32 (2, 784)", "(float32 (3,), 4)", "shape(2, 3)", "7".
  std::string Describe() const;

 private:
  using Data = std::variant<std::monostate, std::shared_ptr<Tensor>, std::shared_ptr<const std::vector<Value>>,
                            std::shared_ptr<const std::vector<int64_t>>, int64_t, double,
                            std::shared_ptr<const std::string>>;
  Data data_;
};

/// Same kind and contents (tensors compared bitwise).
bool BitwiseEqual(const Value& a, const Value& b);

}  // namespace rxt
