// The VM end to end: compile IR, run it on the reference interpreter, compare with plain C++.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "test_util/reference_provider.h"
#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"
#include "rxt/pass/pass.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/runtime/vm.h"
#include "rxt/transform/passes.h"
#include "rxt/support/c_status.h"
#include "test_util/seed_mlp_reference.h"

namespace rxt {
namespace {

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using test::Linear;
using test::RandomTensor;

struct Mlp {
  std::vector<Value> args;
  std::vector<float> expected;
};

// The seed's 2-layer MLP, 784-128-10, with seeded random weights.
Mlp MakeMlp(unsigned seed) {
  std::mt19937 rng(seed);
  Tensor x = RandomTensor({1, 784}, rng), w0 = RandomTensor({128, 784}, rng), b0 = RandomTensor({128}, rng);
  Tensor w1 = RandomTensor({10, 128}, rng), b1 = RandomTensor({10}, rng);
  std::vector<float> xs(x.data_as<float>(), x.data_as<float>() + 784);
  Mlp mlp;
  mlp.expected = Linear(Linear(xs, w0, b0, true), w1, b1, false);
  mlp.args = {Value(x), Value(w0), Value(b0), Value(w1), Value(b1)};
  return mlp;
}

void ExpectNear(const Value& result, const std::vector<float>& expected) {
  const Tensor& y = result.tensor();
  ASSERT_EQ(y.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(y.data_as<float>()[i], expected[i], 1e-5) << i;
}

std::string InvokeError(VirtualMachine& vm, const std::vector<Value>& args) {
  try {
    vm.Invoke("main", args);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

class VMRun : public ::testing::Test {
 protected:
  testing::ReferenceKernelProvider provider_;
};

TEST_F(VMRun, MyModuleEqualsPlainCpp) {
  VirtualMachine vm(CompileToExecutable(ParseModule(ReadExample("my_module.rxt")), {.backend = "reference"}), provider_);
  Mlp mlp = MakeMlp(7);
  Value y = vm.Invoke("main", mlp.args);
  EXPECT_EQ(y.Describe(), "float32 (1, 10)");
  ExpectNear(y, mlp.expected);
  // A second call reuses the frame and gives the same result.
  EXPECT_TRUE(BitwiseEqual(vm.Invoke("main", mlp.args), y));
}

/// The reference provider, declared safe to load from several threads; it records the threads
/// that load and can fail one kernel.
class ConcurrentProvider : public testing::ReferenceKernelProvider {
 public:
  bool ConcurrentLoads() const override { return true; }
  std::unique_ptr<Kernel> Load(const KernelRecord& record) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.insert(std::this_thread::get_id());
      order_.push_back(record.name);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // long enough for the others to start
    if (record.name == fail_) Throw(ErrorCode::kDataLoss, "kernel '", record.name, "' is corrupt");
    return ReferenceKernelProvider::Load(record);
  }
  std::mutex mutex_;
  std::set<std::thread::id> threads_;
  std::vector<std::string> order_;
  std::string fail_;
};

TEST_F(VMRun, KernelsLoadInParallelWhereTheProviderAllows) {
  Executable exec = CompileToExecutable(ParseModule(ReadExample("my_module.rxt")), {.backend = "reference"});
  ASSERT_GE(exec.kernels.size(), 2u);
  ConcurrentProvider provider;
  VirtualMachine vm(exec, provider);
  EXPECT_EQ(provider.order_.size(), exec.kernels.size());
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_GT(provider.threads_.size(), 1u);
  }
  Mlp mlp = MakeMlp(7);
  ExpectNear(vm.Invoke("main", mlp.args), mlp.expected);  // each kernel in its place

  ConcurrentProvider failing;
  failing.fail_ = exec.kernels[1].name;
  try {
    VirtualMachine broken(exec, failing);
    ADD_FAILURE() << "a kernel that fails to load is no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss);
    EXPECT_NE(std::string(e.what()).find("kernel '" + exec.kernels[1].name + "' is corrupt"), std::string::npos);
  }
}

TEST_F(VMRun, SavedExecutableGivesIdenticalResults) {
  Executable exec = CompileToExecutable(ParseModule(ReadExample("my_module.rxt")), {.backend = "reference"});
  std::string path = ::testing::TempDir() + "/rxt_vm_my_module.rxtx";
  exec.Save(path);
  Mlp mlp = MakeMlp(11);
  VirtualMachine fresh(std::move(exec), provider_);
  VirtualMachine loaded(Executable::Load(path), provider_);
  EXPECT_TRUE(BitwiseEqual(fresh.Invoke("main", mlp.args), loaded.Invoke("main", mlp.args)));
  std::remove(path.c_str());
}

TEST_F(VMRun, ArgumentsAreCheckedAtEntry) {
  VirtualMachine vm(CompileToExecutable(ParseModule(ReadExample("my_module.rxt"))), provider_);
  Mlp mlp = MakeMlp(1);
  std::vector<Value> args = mlp.args;
  args.pop_back();
  EXPECT_EQ(InvokeError(vm, args), "main: expected 5 arguments, got 4");

  args = mlp.args;
  args[0] = Value(Tensor::Empty({2, 784}, DType::kFloat64));
  EXPECT_EQ(InvokeError(vm, args), "main: argument 0 (%x): expected Tensor((1, m), float32), got float64 (2, 784)");

  args = mlp.args;
  args[0] = Value(Tensor::Empty({2, 784}, DType::kFloat32));
  EXPECT_EQ(InvokeError(vm, args),
            "main: argument 0 (%x): expected Tensor((1, m), float32), got float32 (2, 784) (dim 0 is 2 but should be 1)");

  args = mlp.args;
  args[1] = Value(Tensor::Empty({128, 785}, DType::kFloat32));  // m is 784 from %x
  EXPECT_EQ(InvokeError(vm, args),
            "main: argument 1 (%w0): expected Tensor((n, m), float32), got float32 (128, 785) (dim 1 is 785 but should be "
            "784: m = 784 from argument 0 (%x) dim 1)");

  args = mlp.args;
  args[2] = Value::Int(3);
  EXPECT_EQ(InvokeError(vm, args), "main: argument 2 (%b0): expected Tensor((n,), float32), got 3");

  args = mlp.args;
  args[4] = Value(Tensor::Empty({10, 1}, DType::kFloat32));
  EXPECT_EQ(InvokeError(vm, args), "main: argument 4 (%b1): expected Tensor((k,), float32), got float32 (10, 1)");
}

// Issue 11: a valid tensor of 20,000 dims gave a message listing every dim (and crashed the CLI).
TEST_F(VMRun, MismatchMessagesStayShortAndSayWhichArgument) {
  VirtualMachine vm(CompileToExecutable(ParseModule(ReadExample("my_module.rxt"))), provider_);
  Mlp mlp = MakeMlp(1);
  std::vector<Value> args = mlp.args;
  args[3] = Value(Tensor::Empty(std::vector<int64_t>(20000, 1), DType::kFloat32));
  try {
    vm.Invoke("main", args);
    FAIL() << "accepted a 20000-dim weight";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.argument(), 3);
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(20000 dims)"), std::string::npos) << e.what();
  }
  args = mlp.args;
  args[1] = Value(Tensor::Empty({128, 785}, DType::kFloat32));
  try {
    vm.Invoke("main", args);
    FAIL() << "accepted a mismatched dim";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.argument(), 1);
  }
}

// Issue 11, class 6: load errors said "vm: extern function ... is not registered" or
// "backend 'cpu': kernel 'linear0': malformed kernel ..." without the file.
TEST_F(VMRun, LoadErrorsNameTheFile) {
  Executable exec = CompileToExecutable(ParseModule(ReadExample("my_module.rxt")), {.backend = "reference"});
  exec.source = "model.rxtx";
  Executable with_extern = exec;
  with_extern.externs.push_back("dnnl.matmul_ias");
  try {
    VirtualMachine vm(std::move(with_extern), provider_);
    FAIL() << "an unregistered extern was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(e.what()),
              "executable 'model.rxtx': extern function 'dnnl.matmul_ias' is not registered (load the plugin that "
              "provides it)");
  }
  Executable corrupt = exec;
  corrupt.kernels[0].portable = {1, 2, 3};
  try {
    VirtualMachine vm(std::move(corrupt), provider_);
    FAIL() << "a corrupt kernel was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("executable 'model.rxtx': ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(exec.kernels[0].name), std::string::npos) << e.what();
  }
}

// Issue 11, class 5: the memory a plan asks for is checked against the limit when the VM loads
// the executable, not when the first call runs out of memory.
TEST_F(VMRun, PlannedMemoryOverTheLimitIsRefusedAtLoad) {
  std::string text = ReadExample("my_module.rxt");
  text = text.substr(0, text.find("def @main")) + R"(
def @main(%x: Tensor((1, 1000), float32)) -> Tensor((1, 1000), float32) {
  dataflow {
    %a: Tensor((1, 1000), float32) = call_kernel(@relu0, (%x,), out_sinfo=Tensor((1, 1000), float32))
    %b: Tensor((1, 1000), float32) = call_kernel(@relu0, (%a,), out_sinfo=Tensor((1, 1000), float32))
    output %b
  }
  return %b
}
)";
  Executable exec = CompileToExecutable(ParseModule(text), {.backend = "reference"});
  exec.source = "big.rxtx";
  ASSERT_GT(exec.functions[0].arena_bytes, 1000);
  SetMemoryLimit(1000);
  try {
    VirtualMachine vm(exec, provider_);
    ADD_FAILURE() << "an arena over the limit was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted);
    EXPECT_EQ(std::string(e.what()).rfind("executable 'big.rxtx': function 'main''s memory plan (its arena) needs 3.9 KiB",
                                          0),
              0u)
        << e.what();
  }
  SetMemoryLimit(0);
  VirtualMachine vm(exec, provider_);
  EXPECT_EQ(vm.Invoke("main", {Value(Tensor::Empty({1, 1000}, DType::kFloat32))}).Describe(), "float32 (1, 1000)");
}

TEST_F(VMRun, ProfileListsKernelsWithCounts) {
  VirtualMachine vm(CompileToExecutable(ParseModule(ReadExample("my_module.rxt"))), provider_);
  Mlp mlp = MakeMlp(3);
  vm.SetProfiling(true);
  vm.Invoke("main", mlp.args);
  vm.Invoke("main", mlp.args);
  Profile profile = vm.GetProfile();
  ASSERT_EQ(profile.kernels.size(), 2u);
  for (const ProfileRow& row : profile.kernels) {
    EXPECT_EQ(row.calls, row.name == "kernel linear0" ? 4 : 2) << row.name;
    EXPECT_GT(row.total_ns, 0);
  }
  std::string table = profile.Format();
  EXPECT_NE(table.find("kernel linear0"), std::string::npos) << table;
  EXPECT_NE(table.find("call_kernel"), std::string::npos) << table;
  EXPECT_NE(table.find("alloc_tensor"), std::string::npos) << table;
}

constexpr const char* kExternModule = R"(
def @main(%x: Tensor((1, m), float32), %w0: Tensor((n, m), float32), %b0: Tensor((n,), float32),
          %w1: Tensor((k, n), float32), %b1: Tensor((k,), float32)) -> Tensor((1, k), float32) {
  dataflow {
    %lv0 = call_extern("env.linear", (%x, %w0, %b0), out_sinfo=Tensor((1, n), float32))
    %lv1 = call_extern("env.relu", (%lv0,), out_sinfo=Tensor((1, n), float32))
    %out = call_extern("env.linear", (%lv1, %w1, %b1), out_sinfo=Tensor((1, k), float32))
    output %out
  }
  return %out
})";

// env.linear as a C function with user data (rxt_extern_fn_t): y = x w^T + b.
rxt_status_t EnvLinear(void* user_data, DLTensor* const* args, int num_args) {
  ++*static_cast<int*>(user_data);
  if (num_args != 4) return MakeCStatus(ErrorCode::kInvalidArgument, "env.linear takes 4 arguments");
  const float* x = static_cast<const float*>(args[0]->data);
  const float* w = static_cast<const float*>(args[1]->data);
  const float* b = static_cast<const float*>(args[2]->data);
  float* y = static_cast<float*>(args[3]->data);
  int64_t n = args[1]->shape[0], m = args[1]->shape[1];
  for (int64_t j = 0; j < n; ++j) {
    float acc = 0;
    for (int64_t k = 0; k < m; ++k) acc = acc + x[k] * w[j * m + k];
    y[j] = acc + b[j];
  }
  return nullptr;
}

TEST_F(VMRun, ExternFunctionsRegisteredFromCpp) {
  ExternRegistry registry;
  int linear_calls = 0;
  registry.Register("env.linear", EnvLinear, &linear_calls);
  Executable exec = CompileToExecutable(ParseModule(kExternModule));
  try {
    VirtualMachine missing(exec, provider_, registry);
    FAIL() << "loaded without env.relu";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(e.what()), "the executable: extern function 'env.relu' is not registered (load the plugin that provides it)");
  }
  registry.Register("env.relu", [](DLTensor* const* args, int) {
    int64_t n = args[0]->shape[1];
    for (int64_t i = 0; i < n; ++i) {
      static_cast<float*>(args[1]->data)[i] = std::max(static_cast<const float*>(args[0]->data)[i], 0.0f);
    }
  });
  VirtualMachine vm(exec, provider_, registry);
  Mlp mlp = MakeMlp(5);
  ExpectNear(vm.Invoke("main", mlp.args), mlp.expected);
  EXPECT_EQ(linear_calls, 2);

  // A failing function is an error of its status's code and message, naming the function.
  registry.Register(
      "env.linear",
      [](void*, DLTensor* const*, int) { return MakeCStatus(ErrorCode::kOutOfRange, "row 7 is out of range"); },
      nullptr, /*replace=*/true);
  VirtualMachine failing(exec, provider_, registry);
  try {
    failing.Invoke("main", mlp.args);
    FAIL() << "a failing extern function was ignored";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfRange) << e.what();
    EXPECT_NE(std::string(e.what()).find("extern function 'env.linear': row 7 is out of range"), std::string::npos)
        << e.what();
  }
}

constexpr const char* kIfTupleModule = R"(
kernel @neg0(X: Buffer((n,), float32), Y: Buffer((n,), float32)) {
  for i in range(n) {
    block Y(vi = i) {
      Y[vi] = 0f32 - X[vi]
    }
  }
}

def @pick(%c: Tensor((), bool), %x: Tensor((n,), float32)) -> Tensor((n,), float32) {
  %r: Tensor((n,), float32) = if %c {
    %a = call_kernel(@neg0, (%x,), out_sinfo=Tensor((n,), float32))
    yield %a
  } else {
    yield %x
  }
  return %r
}

def @main(%c: Tensor((), bool), %x: Tensor((n,), float32)) -> Tuple(Tensor((n,), float32), Tensor((n,), float32), Shape((n,))) {
  %p = @pick(%c, %x)
  %t = (%p, %x)
  %first = %t[0]
  %y: Tensor((n,), float32) = match_cast(%first, Tensor((n,), float32))
  %b = call_kernel(@neg0, (%y,), out_sinfo=Tensor((n,), float32))
  %s = shape(n)
  return (%b, %t[1], %s)
})";

TEST_F(VMRun, IfTuplesAndCallsBetweenFunctions) {
  VirtualMachine vm(CompileToExecutable(ParseModule(kIfTupleModule)), provider_);
  Tensor x = Tensor::FromVector<float>({3}, DType::kFloat32, {1, -2, 3});
  auto run = [&](bool c) {
    Tensor cond = Tensor::Empty({}, DType::kBool);
    cond.SetFromDouble(0, c ? 1 : 0);
    return vm.Invoke("main", {Value(cond), Value(x)});
  };
  Value taken = run(true);
  ASSERT_EQ(taken.tuple().size(), 3u);
  // pick negates, main negates again: x.
  EXPECT_TRUE(taken.tuple()[0].tensor().BitwiseEqual(x));
  EXPECT_TRUE(taken.tuple()[1].tensor().BitwiseEqual(x));
  EXPECT_EQ(taken.tuple()[2].shape(), (std::vector<int64_t>{3}));
  Value not_taken = run(false);
  EXPECT_EQ(not_taken.tuple()[0].tensor().GetAsDouble(1), 2.0);
  EXPECT_EQ(vm.Invoke("pick", {Value(Tensor::Empty({}, DType::kBool)), Value(x)}).tensor().GetAsDouble(0), 1.0);
}

TEST_F(VMRun, BackendMismatchIsRefused) {
  Executable exec = CompileToExecutable(ParseModule(ReadExample("my_module.rxt")), {.backend = "cpu"});
  try {
    VirtualMachine vm(std::move(exec), provider_);
    FAIL() << "loaded a cpu executable on the reference backend";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
  }
}

// examples/mlp.rxt through LegalizeOps (matmul, add, nn.relu become kernels), then the VM.
TEST_F(VMRun, LegalizedMlpRuns) {
  IRModule legal = RunPasses(ParseModule(ReadExample("mlp.rxt")), {"LegalizeOps"});
  VirtualMachine vm(CompileToExecutable(legal), provider_);
  std::mt19937 rng(42);
  std::vector<int64_t> dims = {784, 128, 128, 10};
  Tensor x = RandomTensor({64, 784}, rng);
  std::vector<Value> args = {Value(x)};
  std::vector<Tensor> ws, bs;
  for (size_t l = 0; l + 1 < dims.size(); ++l) {
    ws.push_back(RandomTensor({dims[l], dims[l + 1]}, rng));
    bs.push_back(RandomTensor({dims[l + 1]}, rng));
    args.push_back(Value(ws.back()));
    args.push_back(Value(bs.back()));
  }
  Value y = vm.Invoke("backbone", args);
  ASSERT_EQ(y.Describe(), "float32 (64, 10)");
  // Plain C++: h = relu(h w + b) twice, then h w + b, in double.
  std::vector<double> h(x.data_as<float>(), x.data_as<float>() + x.numel());
  for (size_t l = 0; l < ws.size(); ++l) {
    int64_t in = dims[l], out = dims[l + 1];
    std::vector<double> next(64 * out);
    for (int64_t r = 0; r < 64; ++r) {
      for (int64_t j = 0; j < out; ++j) {
        double acc = bs[l].data_as<float>()[j];
        for (int64_t k = 0; k < in; ++k) acc += h[r * in + k] * ws[l].data_as<float>()[k * out + j];
        next[r * out + j] = (l + 1 < ws.size()) ? std::max(acc, 0.0) : acc;
      }
    }
    h = std::move(next);
  }
  for (int64_t i = 0; i < 64 * 10; ++i) EXPECT_NEAR(y.tensor().data_as<float>()[i], h[i], 1e-3) << i;
}

}  // namespace
}  // namespace rxt
