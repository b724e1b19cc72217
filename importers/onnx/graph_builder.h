// An ONNX graph as an rxt backbone in the text format (docs/ir.md, docs/onnx.md):
//   - the graph's inputs that are not initializers, then the trainable parameters (the float
//     initializers some op uses as a tensor; param_num), then the states (running statistics of
//     BatchNormalization in training; state_num), each keeping its ONNX name (%"conv1.weight");
//   - the nodes, each converted by the converter of its op (converters.h) into op calls in one
//     dataflow block, or folded at import time when its inputs are known (folding.h);
//   - the result: the graph's outputs, then the updated states.
// Every node whose op has no converter is reported at once (op, count, first node).
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "constant.h"

namespace rxt::import_onnx {

/// What the importer takes (the text after the model in `rxt import m.onnx --options ...`).
struct ImportOptions {
  /// Training mode (the default): BatchNormalization with initializer statistics uses batch
  /// statistics and returns its updated running statistics as states. false: inference only.
  bool training = true;
  /// Dropout in a training import drops at random with a per-step seed (as PyTorch's train()).
  /// false: Dropout is the identity in training too.
  bool dropout = true;
  /// Initializers whose names match one of these (ECMAScript regular expressions, the whole
  /// name) stay constants: no parameters, no states (fine-tuning a head on a frozen body).
  std::vector<std::string> freeze;
  /// Graph inputs given a value at import (bind=NAME:V;V;...): they become constants, for
  /// inputs rxt needs at compile time (a ReduceSum's axes, a Reshape's shape given as inputs).
  std::vector<std::pair<std::string, std::vector<double>>> bind;
};

/// Parses "training=false, freeze=conv.*, bind=axes:0;2" (comma-separated key=value pairs;
/// freeze and bind may repeat); throws ImportError.
ImportOptions ParseImportOptions(const std::string& text);

/// A dim of a value's shape: a number, a symbol (a dim_param), or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when static
  std::string symbol;  // a prim expression when symbolic
  bool is_static() const { return value >= 0; }
  bool is_known() const { return value >= 0 || !symbol.empty(); }
  std::string text() const { return value >= 0 ? std::to_string(value) : symbol; }
};

/// The dtype and (when known) shape of a value, from ONNX's shape inference.
struct TypeInfo {
  int dtype = 0;  // ONNX element type; 0 when unknown
  bool has_shape = false;
  std::vector<Dim> dims;
  int rank() const { return static_cast<int>(dims.size()); }
};

struct Value {
  std::string expr;  // how the function refers to it (a local); empty for a constant not yet used as a tensor
  TypeInfo type;
  std::optional<Constant> constant;                 // known at import time
  const onnx::TensorProto* initializer = nullptr;   // its data, decoded on first use as a constant
  bool is_param_candidate = false;                  // a float initializer: a parameter once used as a tensor
  bool used_as_tensor = false;
  bool bound_in_block = false;  // a local of the dataflow block (what `output` may name)
  bool unavailable = false;     // an output of a node that could not be converted
};

/// The result of a conversion.
struct ImportedGraph {
  std::string text;
  std::vector<const onnx::TensorProto*> params;  // the parameters' and states' initial values, in order
  std::shared_ptr<onnx::TensorProto> step_value;  // the step counter's initial value, when there is one
};

class GraphBuilder;

/// What a converter sees of its node and how it emits the node's results.
class NodeContext {
 public:
  NodeContext(GraphBuilder& graph, const onnx::NodeProto& node, int index) : graph_(graph), node_(node), index_(index) {}

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op() const { return node_.op_type(); }
  const ImportOptions& options() const;

  // ---- Inputs
  /// Whether input i is given (ONNX leaves optional inputs out or names them "").
  bool has_input(int i) const;
  int num_inputs() const { return node_.input_size(); }
  const Value& input(int i) const;
  /// Input i as an expression of the function: a local, or a constant written out.
  std::string expr(int i);
  /// The value of graph name |name| as an expression (ONNX's Gradient names its y by attribute).
  std::string named_expr(const std::string& name);
  /// Input i's value when known at import time (nullptr otherwise).
  const Constant* constant(int i);
  /// Input i's value when known at import time, float initializers included: for inputs that
  /// configure the op (Clip's bounds, Dropout's ratio), not for operands that may be trained.
  const Constant* known(int i);
  /// Input i's value, float initializers included, or an unsupported-node failure naming |what|
  /// and the input ("... computed at run time (input 2 'scales')").
  const Constant& required(int i, const std::string& what);
  /// Input i as static integers, or a failure naming |what| (e.g. "shape").
  std::vector<int64_t> ints(int i, const std::string& what);
  /// Input i as integers that may be symbolic (shape(n, 64) takes them), as prim expressions.
  std::vector<std::string> dims_input(int i, const std::string& what);
  /// Input i as one number (a 0-d or 1-element constant), or a failure naming |what|.
  double scalar(int i, const std::string& what);
  /// Input i's type (known even when its value is not: Shape needs no more).
  const TypeInfo& type(int i) const;
  /// Input i's rank, or a failure when ONNX's shape inference left it unknown.
  int rank(int i) const;
  /// Input i's dtype as rxt names it ("float32").
  std::string dtype(int i) const;
  const TypeInfo& output_type(int k) const;
  int num_outputs() const { return node_.output_size(); }
  bool has_output(int k) const { return k < node_.output_size() && !node_.output(k).empty(); }

  // ---- Attributes
  bool has_attr(const std::string& name) const { return find_attr(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback) const;
  const onnx::AttributeProto* find_attr(const std::string& name) const;

  // ---- Results
  /// Binds output k to |expr| (a local named after the ONNX value).
  void set_output(int k, const std::string& expr);
  /// Output k's dims as the converter knows them, where ONNX's inference made one up (unk__N:
  /// Resize of a symbolic batch by a scale of 1).
  void set_output_dims(int k, std::vector<Dim> dims);
  /// Output k is known at import time: no binding until some op uses it as a tensor.
  void set_output_constant(int k, Constant value);
  /// Binds |expr| to a fresh local and returns it (for lowerings of several steps).
  std::string bind(const std::string& expr);
  /// |value| as an expression: inline when small, else an entry of the metadata section.
  std::string constant_expr(const Constant& value);
  /// A 0-d constant of input i's dtype: "const(0.5, float32)".
  std::string scalar_const(double value, const std::string& dtype) const;
  /// A fresh int64 seed for a random op of this step (Dropout in training): the backbone gets a
  /// step-counter state (rxt_step, starting at 0, plus one per update) on first use, and each
  /// use takes step * 2^20 + its index, so that every op of every step draws another mask.
  std::string step_seed();
  /// Records that |name| (an initializer used as running statistics) is a state, updated to |expr|.
  /// Only for inputs that are trainable initializers (is_initializer).
  void update_state(const std::string& name, const std::string& expr);
  /// Whether input i is a float initializer that may train (not frozen): a parameter or state candidate.
  bool is_initializer(int i) const;

  /// "node 3 'conv1' (Conv)".
  std::string where() const;
  [[noreturn]] void fail(const std::string& what) const;
  /// An attribute or input combination the importer has no mapping for; counted like an op.
  [[noreturn]] void unsupported(const std::string& what) const;

 private:
  GraphBuilder& graph_;
  const onnx::NodeProto& node_;
  int index_;
};

/// Thrown by NodeContext::unsupported: the builder collects these like unknown ops.
struct UnsupportedNode {
  std::string what;
};

/// Thrown when a node reads an output of a node that could not be converted: it is skipped (the
/// first node is reported), its outputs unavailable in turn.
struct DependsOnUnsupported {};

class GraphBuilder {
 public:
  GraphBuilder(const onnx::ModelProto& model, ImportOptions options, std::string model_dir);
  /// Throws ImportError for what cannot be imported.
  ImportedGraph Build();
  /// Folding alone: the values of node outputs that fold to static integers (shape arithmetic),
  /// by name. Nothing is converted and nothing is refused.
  std::map<std::string, Constant> FoldStaticIntegers();

 private:
  friend class NodeContext;

  TypeInfo TypeOf(const onnx::TypeProto& type) const;
  std::string Signature(const std::string& name, const Value& value, const onnx::TensorProto* initializer) const;
  std::string Fresh();
  void Bind(const std::string& local, const std::string& expr);
  Value& Lookup(const std::string& name, const std::string& where);
  std::string Materialize(Value& value, const std::string& name);
  std::string ConstantExpr(const Constant& c, const std::string& name);
  const Constant* ConstantOf(Value& value);

  const onnx::ModelProto& model_;
  const onnx::GraphProto& graph_;
  ImportOptions options_;
  std::string model_dir_;
  std::map<std::string, Value> values_;
  /// ONNX's inferred type of |name| with the made-up dims converters pinned replaced; null if none.
  const TypeInfo* Inferred(const std::string& name);

  std::map<std::string, TypeInfo> inferred_;  // ONNX's shape inference, by value name
  std::map<std::string, Dim> made_up_;        // unk__N -> the dim a converter knows it is
  std::set<std::string> input_symbols_;       // the symbolic dims of the graph's inputs
  std::set<std::string> names_;  // every value name of the graph: fresh locals avoid them
  int next_temp_ = 0;
  std::vector<std::string> body_;
  std::vector<std::string> states_;                  // initializer names, in order of first use
  std::map<std::string, std::string> state_updates_;  // state -> its updated value
  std::vector<std::string> metadata_;                // entries of the metadata section
  std::string step_state_;                           // the step counter's name, once used
  std::shared_ptr<onnx::TensorProto> step_value_;    // its initial value (0)
  int seeds_taken_ = 0;
};

/// After an elementwise op's conversion: its output's dims that ONNX's inference made up, as the
/// broadcast of its inputs' dims.
void PinBroadcastDims(NodeContext& ctx);

/// The local of an ONNX name: %name, quoted unless it is [A-Za-z0-9_]+.
std::string Local(const std::string& name);
/// "[1, 2, 3]".
std::string IntList(const std::vector<int64_t>& values);
/// "a, b, c".
std::string Join(const std::vector<std::string>& parts);

}  // namespace rxt::import_onnx
