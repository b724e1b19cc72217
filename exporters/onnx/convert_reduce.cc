// Reductions, cumsum, softmax, argmax.
#include "converters.h"

namespace rxt::export_onnx {
namespace {

/// The reduced axes: the attribute's, or nullopt for every axis.
std::optional<std::vector<int64_t>> Axes(OpContext& c) { return c.Ints("axis"); }

/// ReduceMean, ReduceMax, ReduceMin, ReduceProd (axes an attribute in opset 17).
std::string ReduceWithAttr(OpContext& c, const std::string& op_type, const std::string& input,
                           const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  if (axes && axes->empty()) return c.Op("Identity", {input});  // no axis: nothing reduced
  std::vector<onnx::AttributeProto> attrs = {MakeAttribute("keepdims", int64_t{keepdims})};
  if (axes) attrs.push_back(MakeAttribute("axes", *axes));
  return c.Op(op_type, {input}, attrs);
}

template <const char* kOnnxOp>
void Reduce(OpContext& c) {
  c.Output(ReduceWithAttr(c, kOnnxOp, c.input(0), Axes(c), c.Bool("keepdims", false)));
}
constexpr char kReduceMean[] = "ReduceMean";
constexpr char kReduceMax[] = "ReduceMax";
constexpr char kReduceMin[] = "ReduceMin";
constexpr char kReduceProd[] = "ReduceProd";

/// ReduceSum takes its axes as an input (opset 13 on).
void Sum(OpContext& c) {
  std::vector<std::string> inputs = {c.input(0)};
  if (std::optional<std::vector<int64_t>> axes = Axes(c); axes && axes->empty()) {
    c.Output(c.Op("Identity", inputs));
    return;
  }
  if (std::optional<std::vector<int64_t>> axes = Axes(c)) inputs.push_back(c.w.Int64s(*axes, c.hint() + "_axes"));
  c.Output(c.Op("ReduceSum", inputs, {MakeAttribute("keepdims", int64_t{c.Bool("keepdims", false)})}));
}

/// Population variance: mean((x - mean(x))^2).
void Variance(OpContext& c) {
  std::optional<std::vector<int64_t>> axes = Axes(c);
  std::string mean = ReduceWithAttr(c, "ReduceMean", c.input(0), axes, true);
  std::string centered = c.Op("Sub", {c.input(0), mean});
  std::string squared = c.Op("Mul", {centered, centered});
  c.Output(ReduceWithAttr(c, "ReduceMean", squared, axes, c.Bool("keepdims", false)));
}

/// CumSum takes its axis as an input: a 0-d int64 constant.
void Cumsum(OpContext& c) {
  std::string axis = c.w.Scalar(static_cast<double>(c.Int("axis", 0)), onnx::TensorProto::INT64, c.hint() + "_axis");
  c.Output(c.Op("CumSum", {c.input(0), axis},
                {MakeAttribute("exclusive", int64_t{c.Bool("exclusive", false)}),
                 MakeAttribute("reverse", int64_t{c.Bool("reverse", false)})}));
}

void Softmax(OpContext& c) { c.Output(c.Op("Softmax", {c.input(0)}, {MakeAttribute("axis", c.Int("axis", -1))})); }

void LogSoftmax(OpContext& c) {
  c.Output(c.Op("LogSoftmax", {c.input(0)}, {MakeAttribute("axis", c.Int("axis", -1))}));
}

/// ArgMax; without an axis, of x flattened.
void Argmax(OpContext& c) {
  bool keepdims = c.Bool("keepdims", false);
  if (std::optional<int64_t> axis = c.Int("axis")) {
    c.Output(c.Op("ArgMax", {c.input(0)}, {MakeAttribute("axis", *axis), MakeAttribute("keepdims", int64_t{keepdims})}));
    return;
  }
  std::string flat = c.Op("Reshape", {c.input(0), c.w.Int64s({-1}, c.hint() + "_flat")});
  std::string index = c.Op("ArgMax", {flat}, {MakeAttribute("axis", int64_t{0}), MakeAttribute("keepdims", int64_t{0})});
  if (keepdims) {
    std::vector<int64_t> ones(c.NDim(c.arg(0)), 1);
    index = c.Op("Reshape", {index, c.w.Int64s(ones, c.hint() + "_shape")});
  }
  c.Output(index);
}

}  // namespace

void AddReduceConverters(ConverterTable& t) {
  t["sum"] = &Sum;
  t["mean"] = &Reduce<kReduceMean>;
  t["max"] = &Reduce<kReduceMax>;
  t["min"] = &Reduce<kReduceMin>;
  t["prod"] = &Reduce<kReduceProd>;
  t["variance"] = &Variance;
  t["softmax"] = &Softmax;
  t["log_softmax"] = &LogSoftmax;
  t["argmax"] = &Argmax;
  t["cumsum"] = &Cumsum;
}

}  // namespace rxt::export_onnx
