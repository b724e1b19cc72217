// bench/onnx.sh, rxt's side: an ONNX model imported (importers/onnx), its symbolic batch bound,
// compiled into a Trainer (mean cross entropy over 10 classes, SGD with momentum 0.9), then
// timed on random data — a training step (Trainer::Update) or inference (Trainer::Predict, the
// backbone at inference) — the way bench/peers/libtorch/script_main.cc times libtorch on the
// same module. A process of its own: its peak RSS is rxt's alone.
//
//   rxt_onnx_bench --model M.onnx --mode train|infer [--batch 32] [--threads 1] [--steps 30]
//                  [--warmup 5] [--lr 0.01] [--seed 0] [--save-trainer T.rxtt]
//   rxt_onnx_bench --trainer T.rxtt --mode train|infer [--threads 1] [--steps 30] ...
//   rxt_onnx_bench --model M.onnx --mode infer-bound ...
//
// Prints one line "RESULT {json}": import_s (reading, checking, converting), compile_s
// (SetupTrainer, legalization, code generation, kernel libraries), step_ms_median, peak_rss_mb.
// --save-trainer writes the compiled trainer with the model's weights as a trainer file (its
// kernels compiled ahead of time) and stops; --trainer times one instead of compiling: the
// deployed process, which loads no compiler and no LLVM (load_s, llvm_mapped). infer-bound
// times the backbone imported for inference with its weights bound as constants, the way an
// inference-only deployment (and ONNX Runtime) runs it. RXT_BENCH_PROFILE=1 adds the profile of one
// more call (infer-bound) or training step (train) on stderr.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench_util.h"
#include "imported_model.h"
#include "rxt/exec/session.h"
#include "rxt/ir/op.h"
#include "rxt/train/random.h"
#include "rxt/train/trainer_file.h"
#include "rxt/transform/passes.h"

namespace rxt::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string model, mode = "train", save_trainer, trainer;
  int batch = 32, threads = 1, steps = 30, warmup = 5;
  double lr = 0.01;
  uint64_t seed = 0;
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--model") o.model = v;
    else if (k == "--mode") o.mode = v;
    else if (k == "--batch") o.batch = std::stoi(v);
    else if (k == "--threads") o.threads = std::stoi(v);
    else if (k == "--steps") o.steps = std::stoi(v);
    else if (k == "--warmup") o.warmup = std::stoi(v);
    else if (k == "--lr") o.lr = std::stod(v);
    else if (k == "--seed") o.seed = std::stoull(v);
    else if (k == "--save-trainer") o.save_trainer = v;
    else if (k == "--trainer") o.trainer = v;
    else throw std::runtime_error("unknown option " + k);
  }
  if (o.model.empty() == o.trainer.empty()) throw std::runtime_error("one of --model M.onnx and --trainer T.rxtt is required");
  if (o.mode != "train" && o.mode != "infer" && o.mode != "infer-bound") {
    throw std::runtime_error("--mode is train, infer or infer-bound");
  }
  return o;
}

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The FLOPs of one forward pass of |backbone| (static shapes): 2 per multiply-add of its
/// matmul, linear and convolutions, the ops that bound a step's time from below.
double ForwardFlops(const Function& backbone) {
  auto dims = [](const Expr& e) {
    std::vector<double> out;
    const auto* t = GetStructInfo(e)->As<TensorSINode>();
    if (t != nullptr && t->shape) {
      for (const PrimExpr& d : *t->shape) out.push_back(d->As<IntImmNode>() ? d->As<IntImmNode>()->value : 0);
    }
    return out;
  };
  auto product = [](const std::vector<double>& v) {
    double p = 1;
    for (double d : v) p *= d;
    return p;
  };
  double total = 0;
  for (const BindingBlock& block : backbone->body->blocks) {
    for (const Binding& binding : block.bindings) {
      const auto* call = binding.value->As<CallNode>();
      const OpDef* op = call != nullptr ? AsOp(call->callee) : nullptr;
      if (op == nullptr) continue;
      std::vector<double> out = dims(binding.var);
      if (op->name() == "matmul" || op->name() == "linear") {
        std::vector<double> a = dims(call->args[0]);
        if (!a.empty() && !out.empty()) total += 2 * product(out) * a.back();
      } else if (op->name() == "nn.conv2d") {
        std::vector<double> w = dims(call->args[1]);  // OIHW: each output sums I * H * W products
        if (w.size() == 4) total += 2 * product(out) * w[1] * w[2] * w[3];
      } else if (op->name() == "nn.conv2d_transpose") {
        std::vector<double> in = dims(call->args[0]), w = dims(call->args[1]);  // IOHW: each input feeds O*H*W
        if (w.size() == 4) total += 2 * product(in) * w[1] * w[2] * w[3];
      }
    }
  }
  return total;
}

/// Whether a library of LLVM is mapped into this process.
bool LlvmMapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libLLVM") != std::string::npos) return true;
  }
  return false;
}

/// Times |o.steps| training steps or predictions of |trainer| on random data.
void TimeSteps(const Options& o, Trainer& trainer, const std::string& fields) {
  Random rng = Random::Stream(o.seed, 1);
  Tensor x = RandomNormal(trainer.program().inputs.at(0).shape, rng);
  const int64_t batch = x.shape().at(0);
  Tensor y = Tensor::Empty({batch}, DType::kInt64);
  for (int64_t i = 0; i < batch; ++i) y.data_as<int64_t>()[i] = static_cast<int64_t>(rng.NextBelow(10));

  std::vector<double> step_ms;
  double final_loss = 0;
  for (int i = 0; i < o.warmup + o.steps; ++i) {
    auto ts = Clock::now();
    if (o.mode == "train") {
      final_loss = trainer.Update({x}, {y}).GetAsDouble(0);
    } else {
      trainer.Predict({x});
    }
    if (i >= o.warmup) step_ms.push_back(Since(ts) * 1e3);
  }
  if (o.mode == "train" && getenv("RXT_BENCH_PROFILE") != nullptr) {  // the time per kernel of one more step, on stderr
    std::fprintf(stderr, "%s", trainer.ProfileStep({x}, {y}).Format().c_str());
  }
  std::ostringstream times;
  for (size_t i = 0; i < step_ms.size(); ++i) times << (i ? ", " : "") << step_ms[i];
  std::printf(
      "RESULT {\"impl\": \"rxt\", \"mode\": \"%s\", \"threads\": %d, %s, \"final_loss\": %.6f, "
      "\"step_ms_median\": %.4f, \"step_ms\": [%s], \"peak_rss_mb\": %.1f}\n",
      o.mode.c_str(), o.threads, fields.c_str(), final_loss, Median(step_ms), times.str().c_str(), PeakRssMb());
}

int Main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  setenv("RXT_NUM_THREADS", std::to_string(o.threads).c_str(), 1);  // before the pool or a plugin starts
  Session session;
  if (!o.trainer.empty()) {
    auto t0 = Clock::now();
    std::unique_ptr<Trainer> trainer = session.LoadTrainer(o.trainer);
    std::ostringstream fields;
    fields << "\"deployed\": true, \"load_s\": " << Since(t0) << ", \"llvm_mapped\": " << (LlvmMapped() ? "true" : "false");
    TimeSteps(o, *trainer, fields.str());
    return 0;
  }
  if (o.mode == "infer-bound") {
    // The backbone at inference with its weights bound as constants, as an inference-only
    // deployment (and ONNX Runtime) runs it.
    ImportedModel imported = session.Import(o.model, "training=false");
    IRModule backbone = BindBatch(imported.module, o.batch);
    Function f = backbone.GetFunction("backbone");
    std::map<std::string, Tensor> bound;
    for (size_t i = 1; i < f->params.size(); ++i) bound.emplace(f->params[i]->name, imported.values.at(f->params[i]->name));
    auto c0 = Clock::now();
    IRModule module = BindParams("backbone", bound)(backbone);
    RunnableExecutable run = session.CreateVM(session.Build(module));
    double compile_s = Since(c0);
    Random rng = Random::Stream(o.seed, 1);
    const auto* input = GetStructInfo(module.GetFunction("backbone")->params.at(0))->As<TensorSINode>();
    std::vector<int64_t> shape;
    for (const PrimExpr& d : *input->shape) shape.push_back(d->As<IntImmNode>()->value);
    Tensor x = RandomNormal(shape, rng);
    std::vector<double> step_ms;
    for (int i = 0; i < o.warmup + o.steps; ++i) {
      auto ts = Clock::now();
      run.vm->Invoke("backbone", {Value(x)});
      if (i >= o.warmup) step_ms.push_back(Since(ts) * 1e3);
    }
    if (getenv("RXT_BENCH_PROFILE") != nullptr) {  // the time per kernel of one more call, on stderr
      run.vm->SetProfiling(true);
      run.vm->Invoke("backbone", {Value(x)});
      std::fprintf(stderr, "%s", run.vm->GetProfile().Format().c_str());
    }
    std::ostringstream times;
    for (size_t i = 0; i < step_ms.size(); ++i) times << (i ? ", " : "") << step_ms[i];
    std::printf("RESULT {\"impl\": \"rxt\", \"mode\": \"infer-bound\", \"threads\": %d, \"compile_s\": %.4f, "
                "\"step_ms_median\": %.4f, \"step_ms\": [%s], \"peak_rss_mb\": %.1f}\n", o.threads, compile_s,
                Median(step_ms), times.str().c_str(), PeakRssMb());
    return 0;
  }
  auto t0 = Clock::now();
  ImportedModel imported = session.Import(o.model);
  double import_s = Since(t0);
  auto c0 = Clock::now();
  std::ostringstream optimizer;
  optimizer << "lr=" << o.lr << ", momentum=0.9";
  IRModule backbone = BindBatch(imported.module, o.batch);
  const double forward_flops = ForwardFlops(backbone.GetFunction("backbone"));
  std::unique_ptr<Trainer> trainer =
      session.CreateTrainer(backbone,
                            {.loss = {"cross_entropy", "reduction=\"mean\""}, .optimizer = {"momentum", optimizer.str()}});
  double compile_s = Since(c0);
  std::map<std::string, Tensor> params, states;
  for (const auto& [name, unused] : trainer->ExportParams()) params.emplace(name, imported.values.at(name));
  for (const auto& [name, unused] : trainer->ExportStates()) states.emplace(name, imported.values.at(name));
  trainer->LoadParams(params);
  trainer->LoadStates(states);
  // The trainer holds its own copy now; libtorch's peer holds its module's weights once too.
  params.clear();
  states.clear();
  imported.values.clear();

  if (!o.save_trainer.empty()) {
    session.SaveTrainer(*trainer, o.save_trainer);
    return 0;
  }
  std::ostringstream fields;
  fields << "\"import_s\": " << import_s << ", \"compile_s\": " << compile_s << ", \"forward_flops\": " << forward_flops;
  TimeSteps(o, *trainer, fields.str());
  return 0;
}

}  // namespace
}  // namespace rxt::bench

int main(int argc, char** argv) {
  try {
    return rxt::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "rxt_onnx_bench: " << e.what() << "\n";
    return 1;
  }
}
