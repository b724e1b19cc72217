// The dnnl calls the builds of the benchmarked workloads make (bench/: the seed MLP and LeNet-5
// training steps at batch 64, their inference at batch 1 and 64): every call_extern of the
// lowered entry points, with its arguments (parameters by name, other values by shape, integers
// by value) and result. What the benchmarks measure is mostly these calls, so a change to the
// library's patterns, to grad_std's rules or to the passes before LegalizeLibraryCalls that
// changes one shows here.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "rxt/exec/build.h"
#include "rxt/exec/build_trainer.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/visitor.h"
#include "rxt/plugin/plugin_host.h"
#include "test_util/training_plugins.h"

namespace rxt {
namespace {

std::string Example(const std::string& name, int batch) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  // The examples have batch 64.
  for (const std::string from : {"Tensor((64, ", "shape(64, "}) {
    std::string replaced = from.substr(0, from.size() - 4) + std::to_string(batch) + ", ";
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + replaced.size())) {
      text.replace(at, from.size(), replaced);
    }
  }
  return text;
}

std::string ShapeText(const Expr& e) {
  const auto* t = e->struct_info ? e->struct_info->As<TensorSINode>() : nullptr;
  if (t == nullptr) return ToString(e->struct_info);
  std::string dims;
  for (int64_t d : t->StaticShape()) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  return "(" + dims + ")";
}

/// Every call_extern in a function, one line each: name(args) -> results.
class ExternCalls : public ExprVisitor {
 public:
  explicit ExternCalls(const FunctionNode& f) {
    for (const Var& p : f.params) params_.insert(p.get());
    VisitFunction(f);
  }
  void VisitCall(const CallNode& call) override {
    const auto* op = call.callee->As<OpNode>();
    if (op != nullptr && op->name() == "call_extern") {
      std::string line = call.args[0]->As<StringImmNode>()->value + "(";
      const auto& args = call.args[1]->As<TupleNode>()->fields;
      for (size_t i = 0; i < args.size(); ++i) {
        line += i ? ", " : "";
        if (const auto* prim = args[i]->As<PrimValueNode>()) {
          line += ToString(prim->value);
        } else if (const auto* var = args[i]->As<VarNode>(); var != nullptr && params_.count(var)) {
          line += "%" + var->name;
        } else {
          line += ShapeText(args[i]);
        }
      }
      line += ") ->";
      for (const StructInfo& out : call.sinfo_args) {
        const auto* t = out->As<TensorSINode>();
        std::string dims;
        for (int64_t d : t->StaticShape()) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
        line += " (" + dims + ")";
      }
      lines.push_back(line);
    }
    ExprVisitor::VisitCall(call);
  }
  std::vector<std::string> lines;

 private:
  std::set<const VarNode*> params_;
};

std::vector<std::string> Calls(const IRModule& lowered, const std::string& function) {
  Function f = lowered.FindFunction(function);
  EXPECT_NE(f, nullptr) << function;
  return f ? ExternCalls(*f).lines : std::vector<std::string>{};
}

/// The build bench/ makes: the cpu backend with the libraries it prefers (dnnl).
BuildOptions CpuWithDnnl() {
  PluginHost::Global().Load(RXT_BACKEND_CPU_PLUGIN);
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  BuildOptions options{.backend = "cpu", .opt_level = 2, .libraries = ChooseLibraries("cpu")};
  EXPECT_EQ(options.libraries, std::vector<std::string>{"dnnl"});
  return options;
}

/// The lowered trainer module of the training benchmark's workload (bench/train_bench.cc),
/// checking that the executable built from it calls the extern functions its entry points call.
IRModule LoweredTrainer(const std::string& example, const LossSpec& loss, const OptimizerSpec& optimizer) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  IRModule backbone = ParseModule(Example(example, 64), example);
  TrainerSetup setup{.loss = loss, .optimizer = optimizer, .legalize = false, .plugins = &test::TrainingPlugins()};
  IRModule lowered = LowerForBuild(SetupTrainer(backbone, setup), CpuWithDnnl());
  std::set<std::string> called;
  for (const char* entry : {"train_step", "predict", "backbone_loss"}) {
    for (const std::string& line : Calls(lowered, entry)) called.insert(line.substr(0, line.find('(')));
  }
  std::vector<std::string> externs = BuildTrainerProgram(backbone, setup, CpuWithDnnl()).executable.externs;
  EXPECT_EQ(std::set<std::string>(externs.begin(), externs.end()), called);
  return lowered;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

// The forward pass, then the gradients: weight gradients read the activations transposed (bit
// 0), data gradients the weights (bit 1).
TEST(SeedExterns, MlpTrainStep) {
  IRModule lowered = LoweredTrainer("mlp.rxt", {"cross_entropy", "reduction=\"sum\""},
                                    {"sgd", "lr=0.01, weight_decay=0.01"});
  EXPECT_EQ(Joined(Calls(lowered, "train_step")),
            "dnnl.matmul_bias(%x, %w0, %b0, 4) -> (64, 128)\n"
            "dnnl.matmul_bias((64, 128), %w1, %b1, 4) -> (64, 128)\n"
            "dnnl.matmul_bias((64, 128), %w2, %b2, 0) -> (64, 10)\n"
            "dnnl.matmul((64, 10), %w2, 2) -> (64, 128)\n"
            "dnnl.matmul((64, 128), (64, 10), 1) -> (128, 10)\n"
            "dnnl.matmul((64, 128), %w1, 2) -> (64, 128)\n"
            "dnnl.matmul((64, 128), (64, 128), 1) -> (128, 128)\n"
            "dnnl.matmul(%x, (64, 128), 1) -> (784, 128)\n");
}

// In training the pooling gradient reads the convolution's output, so the convolutions keep
// their bias and ReLU but not the pooling; each pooling gradient takes the ReLU gradient, each
// weight gradient the bias gradient. The first convolution's data gradient is not needed.
TEST(SeedExterns, LeNetTrainStep) {
  IRModule lowered = LoweredTrainer("lenet.rxt", {"cross_entropy", "reduction=\"mean\""},
                                    {"momentum", "lr=0.01, momentum=0.9"});
  EXPECT_EQ(Joined(Calls(lowered, "train_step")),
            "dnnl.conv2d_bias(%x, %c1w, %c1b, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1) -> (64, 6, 28, 28)\n"
            "dnnl.max_pool2d((64, 6, 28, 28), 2, 2) -> (64, 6, 14, 14)\n"
            "dnnl.conv2d_bias((64, 6, 14, 14), %c2w, %c2b, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1) -> (64, 16, 10, 10)\n"
            "dnnl.max_pool2d((64, 16, 10, 10), 2, 2) -> (64, 16, 5, 5)\n"
            "dnnl.matmul_bias((64, 400), %f1w, %f1b, 4) -> (64, 120)\n"
            "dnnl.matmul_bias((64, 120), %f2w, %f2b, 4) -> (64, 84)\n"
            "dnnl.matmul_bias((64, 84), %f3w, %f3b, 0) -> (64, 10)\n"
            "dnnl.matmul((64, 10), %f3w, 2) -> (64, 84)\n"
            "dnnl.matmul((64, 84), (64, 10), 1) -> (84, 10)\n"
            "dnnl.matmul((64, 84), %f2w, 2) -> (64, 120)\n"
            "dnnl.matmul((64, 120), (64, 84), 1) -> (120, 84)\n"
            "dnnl.matmul((64, 120), %f1w, 2) -> (64, 400)\n"
            "dnnl.matmul((64, 400), (64, 120), 1) -> (400, 120)\n"
            "dnnl.max_pool2d_backward((64, 16, 5, 5), (64, 16, 10, 10), 2, 2, 1) -> (64, 16, 10, 10)\n"
            "dnnl.conv2d_backward_weights_bias((64, 6, 14, 14), (64, 16, 10, 10), 1, 1, 0, 0, 0, 0, 1, 1, 1) -> "
            "(16, 6, 5, 5) (1, 16, 1, 1)\n"
            "dnnl.conv2d_backward_data((64, 16, 10, 10), %c2w, 1, 1, 0, 0, 0, 0, 1, 1, 1) -> (64, 6, 14, 14)\n"
            "dnnl.max_pool2d_backward((64, 6, 14, 14), (64, 6, 28, 28), 2, 2, 1) -> (64, 6, 28, 28)\n"
            "dnnl.conv2d_backward_weights_bias(%x, (64, 6, 28, 28), 1, 1, 2, 2, 2, 2, 1, 1, 1) -> (6, 1, 5, 5) "
            "(1, 6, 1, 1)\n");
}

// Inference: every layer one call, the poolings inside the convolutions'.
TEST(SeedExterns, Inference) {
  PluginHost::Global().Load(RXT_LIB_DNNL_PLUGIN);
  for (int batch : {1, 64}) {
    std::string b = std::to_string(batch);
    IRModule lowered = LowerForBuild(ParseModule(Example("mlp.rxt", batch), "mlp.rxt"), CpuWithDnnl());
    EXPECT_EQ(Joined(Calls(lowered, "backbone")),
              "dnnl.matmul_bias(%x, %w0, %b0, 4) -> (" + b + ", 128)\n"
              "dnnl.matmul_bias((" + b + ", 128), %w1, %b1, 4) -> (" + b + ", 128)\n"
              "dnnl.matmul_bias((" + b + ", 128), %w2, %b2, 0) -> (" + b + ", 10)\n");
  }
  IRModule lowered = LowerForBuild(ParseModule(Example("lenet.rxt", 64), "lenet.rxt"), CpuWithDnnl());
  EXPECT_EQ(Joined(Calls(lowered, "backbone")),
            "dnnl.conv2d_bias_pool(%x, %c1w, %c1b, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0) -> "
            "(64, 6, 14, 14)\n"
            "dnnl.conv2d_bias_pool((64, 6, 14, 14), %c2w, %c2b, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0) "
            "-> (64, 16, 5, 5)\n"
            "dnnl.matmul_bias((64, 400), %f1w, %f1b, 4) -> (64, 120)\n"
            "dnnl.matmul_bias((64, 120), %f2w, %f2b, 4) -> (64, 84)\n"
            "dnnl.matmul_bias((64, 84), %f3w, %f3b, 0) -> (64, 10)\n");
}

}  // namespace
}  // namespace rxt
