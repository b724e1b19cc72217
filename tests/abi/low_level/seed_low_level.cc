// seed_low_level.c's steps with rxt's C++ API (the compiler and the VM, not the C ABI): the
// same backbone (parsed from examples/mlp.rxt), AppendLoss, Gradient, the SGD optimizer, a
// build for the cpu backend with generated kernels, and three steps on the same data. Prints
// what the C program prints: the two must be equal, bit for bit (same_result.cmake).
//
//   rxt_seed_low_level_cpp MLP.rxt
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "rxt/exec/session.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/dlpack.h"
#include "rxt/transform/training/append_loss.h"
#include "rxt/transform/training/gradient.h"
#include "rxt/transform/training/training_components.h"
#include "seed_data.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " MLP.rxt\n";
    return 2;
  }
  try {
    std::ifstream file(argv[1]);
    std::stringstream text;
    text << file.rdbuf();
    rxt::Session session;
    rxt::IRModule module = rxt::ParseModule(text.str(), argv[1]);
    module = session.WithTrainingPlugins([&] {
      rxt::Function loss = rxt::MakeLossFunction({"cross_entropy", "reduction=\"sum\""},
                                                 module.FindFunction("backbone")->ret_sinfo, &session.plugins());
      return rxt::AppendLoss(module, "backbone", loss);
    });
    module = session.WithTrainingPlugins(
        [&] { return rxt::Gradient(module, "backbone_loss", std::vector<int>{1, 2, 3, 4, 5, 6}, 0, &session.plugins()); });
    std::vector<rxt::StructInfo> param_sinfo;
    for (int i = 1; i <= 6; ++i) param_sinfo.push_back(module.FindFunction("backbone_loss")->params[i]->struct_info);
    rxt::OptimizerInstance sgd = session.WithTrainingPlugins(
        [&] { return rxt::MakeOptimizer({"sgd", "lr=0.002"}, param_sinfo, &session.plugins()); });
    module.Add("SGD", sgd.function);
    rxt::Executable exec = session.Build(module, {.backend = "cpu", .libraries = std::vector<std::string>{}});
    rxt::RunnableExecutable run = session.CreateVM(std::move(exec));

    static seed_data_t data;
    seed_data_init(&data);
    std::vector<rxt::Value> params, states;
    for (auto& t : data.param_tensors) params.emplace_back(rxt::CopyFromDLTensor(t.dl_tensor));
    for (const rxt::Tensor& t : sgd.state) states.emplace_back(t);
    rxt::Value x(rxt::CopyFromDLTensor(data.x_tensor.dl_tensor)), y(rxt::CopyFromDLTensor(data.y_tensor.dl_tensor));
    for (int step = 0; step < 3; ++step) {
      std::vector<rxt::Value> args = {x};
      args.insert(args.end(), params.begin(), params.end());
      args.push_back(y);
      rxt::Value out = run.vm->Invoke("backbone_loss_adjoint", args);
      const rxt::Tensor& loss = out.tuple()[0].tensor();
      std::printf("loss %d: %.9g\n", step, static_cast<double>(*static_cast<const float*>(rxt::ToDLTensorView(loss).data)));
      rxt::Value updated = run.vm->Invoke(
          "SGD", {rxt::Value::Tuple(params), out.tuple()[1], rxt::Value::Tuple(states)});
      params = updated.tuple()[0].tuple();
      states = updated.tuple()[1].tuple();
    }
    uint64_t hash = 1469598103934665603ull;
    for (const rxt::Value& p : params) {
      DLTensor view = rxt::ToDLTensorView(p.tensor());
      hash = fnv1a(hash, view.data, tensor_bytes(&view));
    }
    std::printf("params fnv1a %016llx\n", static_cast<unsigned long long>(hash));
  } catch (const std::exception& e) {
    std::cerr << "seed_low_level_cpp: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
