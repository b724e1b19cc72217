// What a converter sees of its node (its aten or prim kind, its inputs as Values) and how it
// writes the node's results into the backbone. Knows nothing of libtorch.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backbone.h"
#include "value.h"

namespace rxt::import_torchscript {

/// Thrown by NodeContext::unsupported: the graph walk collects these like unknown ops.
struct UnsupportedNode {
  std::string what;
};

class NodeContext {
 public:
  NodeContext(Backbone& backbone, std::string kind, std::vector<const Value*> inputs,
              std::vector<std::string> output_names, std::vector<bool> output_used, std::function<std::string()> where)
      : backbone_(backbone),
        kind_(std::move(kind)),
        inputs_(std::move(inputs)),
        output_names_(std::move(output_names)),
        output_used_(std::move(output_used)),
        where_(std::move(where)),
        outputs_(output_names_.size()) {}

  /// "aten::relu" (an in-place op's kind without its '_': aten::relu_ converts as aten::relu).
  const std::string& kind() const { return kind_; }
  const ImportOptions& options() const { return backbone_.options(); }

  // ---- Inputs
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Value& input(int i) const;
  bool is_none(int i) const { return i >= num_inputs() || input(i).kind == Kind::kNone; }
  /// Input i as a tensor expression: a tensor, or a number known at import time as a 0-d
  /// constant of |scalar_dtype| (default: float32 for floats, int64 for ints).
  std::string tensor(int i, const std::string& scalar_dtype = "");
  /// Input i is a tensor (or an unsupported-node failure).
  const Value& tensor_value(int i) const;
  const Dims& dims(int i) const { return tensor_value(i).dims; }
  int rank(int i) const { return tensor_value(i).rank(); }
  const std::string& dtype(int i) const { return tensor_value(i).dtype; }
  /// Input i's dims, all static, or an unsupported-node failure naming |what|.
  std::vector<int64_t> static_dims(int i, const std::string& what) const;
  /// Input i as a number known at import time (int, float, bool, a 0-d constant tensor).
  double number(int i, const std::string& what) const;
  int64_t integer(int i, const std::string& what) const;
  bool boolean(int i, const std::string& what) const { return number(i, what) != 0; }
  /// Input i as ints known at import time (a list, or one int for all).
  std::vector<int64_t> ints(int i, const std::string& what) const;
  /// Input i as a list of dims (known or symbolic ints).
  Dims dim_list(int i, const std::string& what) const;
  /// |axis| (negative: from the end) in [0, rank), or a failure.
  int64_t axis(int64_t axis, int64_t rank) const;

  // ---- Results
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  bool output_used(int k) const { return output_used_.at(k); }
  void set_output(int k, Value value) { outputs_.at(k) = std::move(value); }
  /// Binds |expr| (a tensor of |dims| and |dtype|) to a local named after output k, annotated.
  void set_tensor(int k, const std::string& expr, Dims dims, std::string dtype);
  /// Binds |expr| to a fresh local (for lowerings of several steps; a tuple, unannotated).
  std::string bind(const std::string& expr) { return backbone_.Bind(expr, "t"); }
  /// Binds a tensor to a fresh local and returns it as a Value.
  Value bind_tensor(const std::string& expr, Dims dims, std::string dtype);
  const std::vector<Value>& outputs() const { return outputs_; }

  /// "const(0.5, float32)".
  static std::string scalar_const(double value, const std::string& dtype);

  // ---- States and randomness
  /// Whether input i is a module buffer that may become a state (training import, not frozen).
  bool is_state_candidate(int i) const;
  /// Input i (a state candidate) as a state: its local; update it with update_state.
  std::string state(int i);
  void update_state(int i, const std::string& expr);
  /// A fresh per-step seed (Backbone::StepSeed).
  std::string step_seed() { return backbone_.StepSeed(); }
  Backbone& backbone() { return backbone_; }

  /// "aten::relu (%\"input.4\", at functional.py:1457:0)".
  std::string where() const { return where_(); }
  [[noreturn]] void fail(const std::string& what) const;
  /// An input or attribute combination the importer has no mapping for; counted like an op.
  [[noreturn]] void unsupported(const std::string& what) const;

 private:
  Backbone& backbone_;
  std::string kind_;
  std::vector<const Value*> inputs_;
  std::vector<std::string> output_names_;
  std::vector<bool> output_used_;
  std::function<std::string()> where_;  // computed only for a message: it decodes debug info
  std::vector<Value> outputs_;
};

}  // namespace rxt::import_torchscript
