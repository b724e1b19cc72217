// The backbone being written (docs/torchscript.md): the function @backbone in the text format,
// its inputs, parameters (the module's named_parameters() in order, not frozen), states (the
// buffers a batch_norm updates in training, then the step counter of dropout's seeds), body
// and result. Knows nothing of libtorch: the graph walk (torchscript_graph.cc) feeds it.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "options.h"
#include "value.h"

namespace rxt::import_torchscript {

/// A parameter or buffer of the module (named as named_parameters() / named_buffers() name it).
struct Attribute {
  std::string name;
  Dims dims;
  std::string dtype;
  bool is_parameter = false;
  bool frozen = false;
};

/// A value handed to the host with add_value: an attribute by name, or the step counter.
struct ValueSlot {
  std::string name;
  bool is_step = false;  // rxt_step: an int64 0
};

class Backbone {
 public:
  /// |attribute_bytes| gives an attribute's data (row-major, little-endian) for constants.
  Backbone(ImportOptions options, std::function<std::string(const std::string&)> attribute_bytes);

  const ImportOptions& options() const { return options_; }

  /// A name of the graph that fresh locals must avoid.
  void ReserveName(const std::string& name) { used_.insert(name); }
  /// A fresh local, named after |hint| when free ("%\"input.4\""; a hint that starts with a
  /// digit gets a "v" before it).
  std::string FreshLocal(const std::string& hint);
  /// Binds |expr| to a fresh local (annotated with |sinfo| when given) and returns the local.
  std::string Bind(const std::string& expr, const std::string& hint = "", const std::string& sinfo = "");

  /// A data input of the function, in order.
  Value AddInput(const std::string& name, Dims dims, const std::string& dtype);
  /// A parameter or buffer, in named_parameters() then named_buffers() order.
  void AddAttribute(Attribute attribute);
  /// The tensor value of attribute |name| (its expression is decided on use).
  Value AttributeValue(const std::string& name) const;
  bool HasAttribute(const std::string& name) const { return attributes_.count(name) != 0; }
  /// Attribute |name|'s data (row-major, little-endian), as the module holds it at import.
  std::string AttributeBytes(const std::string& name) const { return attribute_bytes_(name); }

  /// Attribute |name| used as a tensor: a trainable parameter's local, a state's local, else a
  /// constant (frozen parameters, buffers no op updates) bound from the metadata section.
  std::string AttributeExpr(const std::string& name);
  /// Whether |name| is a parameter that trains (not frozen).
  bool IsTrainable(const std::string& name) const {
    auto it = attributes_.find(name);
    return it != attributes_.end() && it->second.is_parameter && !it->second.frozen;
  }
  /// Whether buffer |name| may become a state (a float buffer, not frozen, training import).
  bool IsStateCandidate(const std::string& name) const;
  /// Buffer |name| is a state, updated to |expr|; returns its local.
  std::string State(const std::string& name);
  void UpdateState(const std::string& name, const std::string& expr);
  /// A fresh int64 seed for a random op of this step: rxt_step * 2^20 + k, as the onnx importer.
  std::string StepSeed();
  /// |bytes| of |dims| and |dtype| as a constant: "meta[i]".
  std::string ConstantTensor(const std::string& bytes, const Dims& dims, const std::string& dtype);

  /// The module's text, returning |outputs| (tensors) then the updated states.
  std::string Finish(const std::vector<Value>& outputs);
  /// The values of the parameters and states, in the function's order (after Finish).
  const std::vector<ValueSlot>& value_slots() const { return slots_; }

 private:
  ImportOptions options_;
  std::function<std::string(const std::string&)> attribute_bytes_;
  std::set<std::string> used_;
  std::vector<std::string> inputs_;  // "%x: Tensor(...)"
  std::vector<Attribute> attribute_order_;
  std::map<std::string, Attribute> attributes_;
  std::map<std::string, std::string> constants_;  // attribute -> its local, once bound
  std::vector<std::string> state_order_;
  std::map<std::string, std::string> state_updates_;
  std::string step_local_;
  int seeds_taken_ = 0;
  std::vector<std::string> body_;
  std::set<std::string> block_locals_;
  std::vector<std::string> metadata_;
  std::vector<ValueSlot> slots_;
};

}  // namespace rxt::import_torchscript
