// gradient_of as ONNX's Gradient (domain ai.onnx.preview.training, which BuildModel imports when
// a node uses it): y by name, xs the differentiated values, which ONNX requires to be the
// graph's inputs or initializers (values computed in the graph cannot be xs).
#include <set>

#include "converters.h"

namespace rxt::export_onnx {
namespace {

void GradientOf(OpContext& c) {
  const std::string y = c.input(0);
  const std::vector<std::string> xs = c.w.Tuple(c.arg(1));
  std::set<std::string> leaves;
  for (const onnx::ValueInfoProto& input : c.w.graph.input()) leaves.insert(input.name());
  for (const onnx::TensorProto& initializer : c.w.graph.initializer()) leaves.insert(initializer.name());
  std::set<std::string> seen;
  for (const std::string& x : xs) {
    if (!leaves.count(x)) {
      c.Fail("'" + x + "' is computed in the function: ONNX's Gradient differentiates for graph inputs and initializers only");
    }
    if (!seen.insert(x).second) c.Fail("'" + x + "' is differentiated for twice: ONNX's Gradient takes each once");
  }
  std::vector<std::string> outputs;
  for (const std::string& x : xs) outputs.push_back(c.w.Unique(c.hint() + "_" + x));
  onnx::NodeProto& node = c.w.Node("Gradient", xs, outputs);
  node.set_domain(kTrainingDomain);
  *node.add_attribute() = MakeAttribute("xs", xs);
  *node.add_attribute() = MakeAttribute("y", y);
  c.OutputTuple(outputs);
}

}  // namespace

void AddTrainingConverters(ConverterTable& table) { table["gradient_of"] = &GradientOf; }

}  // namespace rxt::export_onnx
