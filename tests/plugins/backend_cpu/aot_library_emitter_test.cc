// Ahead-of-time libraries (aot_library_emitter.cc) loaded by the runtime's AotKernelProvider
// (core/src/runtime/aot_library.cc): the same results as the JIT, and clear errors for a
// missing, foreign or mismatched library, a missing symbol and a missing C compiler; libraries
// for another CPU or architecture (--target).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <random>

#include "aot_library_emitter.h"
#include "cpu_kernel_provider.h"
#include "rxt/ir/kernel_encoding.h"
#include "rxt/runtime/aot_library.h"
#include "rxt/runtime/vm.h"
#include "rxt/exec/vm_compiler.h"

namespace rxt::backend_cpu::testing {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  // One level under the temporary directory, so the test's remove_all leaves nothing behind.
  fs::path dir = fs::temp_directory_path() / ("rxt_aot_test_" + std::to_string(getpid()) + "_" + name);
  fs::create_directories(dir);
  return dir;
}

// The seed's MyModule compiled for the VM, with its kernels also emitted into |library| for
// |target|.
Executable MyModuleWithLibrary(const fs::path& library, const MachineTarget& target = Host()) {
  Executable exec = CompileToExecutable(ParseModule(ReadSourceFile("examples/my_module.rxt")), {.backend = "cpu"});
  std::vector<AotKernelSource> sources;
  for (size_t i = 0; i < exec.kernels.size(); ++i) {
    exec.kernels[i].aot_symbol = "rxt_aot_kernel_" + std::to_string(i);
    sources.push_back({exec.kernels[i].name, exec.kernels[i].portable.data(), exec.kernels[i].portable.size(),
                       exec.kernels[i].aot_symbol});
  }
  EmitAotLibrary(sources, library.string(), target);
  exec.aot_library = library.string();
  return exec;
}

std::vector<Value> MyModuleArgs(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto random = [&](std::vector<int64_t> shape) {
    Tensor t = Tensor::Empty(shape, DType::kFloat32);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = dist(rng);
    return Value(t);
  };
  return {random({1, 784}), random({128, 784}), random({128}), random({10, 128}), random({10})};
}

std::string ErrorOf(const std::function<void()>& f, ErrorCode* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(AotLibrary, RunsLikeTheJitAfterSaveAndLoad) {
  fs::path dir = TempDir("same");
  Executable built = MyModuleWithLibrary(dir / "my_module.so");
  built.Save((dir / "my_module.rxtx").string());
  Executable loaded = Executable::Load((dir / "my_module.rxtx").string());
  EXPECT_EQ(loaded.aot_library, (dir / "my_module.so").string());
  AotKernelProvider aot = AotKernelProvider::ForExecutable(loaded);
  EXPECT_EQ(aot.name(), "cpu");
  CpuKernelProvider jit;
  VirtualMachine from_library(loaded, aot);
  VirtualMachine from_jit(built, jit);
  for (uint32_t seed : {1u, 2u}) {
    std::vector<Value> args = MyModuleArgs(seed);
    EXPECT_TRUE(BitwiseEqual(from_library.Invoke("main", args), from_jit.Invoke("main", args)));
  }
  fs::remove_all(dir);
}

TEST(AotLibrary, ExportsEveryKernelAndDescribesItself) {
  fs::path dir = TempDir("info");
  MyModuleWithLibrary(dir / "k.so");
  void* handle = dlopen((dir / "k.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_NE(dlsym(handle, "rxt_aot_kernel_0"), nullptr);
  EXPECT_NE(dlsym(handle, "rxt_aot_kernel_1"), nullptr);
  const auto* info = static_cast<const rxt_aot_library_info_t*>(dlsym(handle, RXT_AOT_LIBRARY_INFO_SYMBOL));
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->version, RXT_AOT_LIBRARY_VERSION);
  EXPECT_EQ(info->kernel_format, plugin_support::kernel_format::kFormatVersion);
  EXPECT_NE(std::string(info->target_triple).find("x86_64"), std::string::npos);
  EXPECT_FALSE(std::string(info->target_cpu).empty());
  EXPECT_NE(std::string(info->target_features).find("+sse2"), std::string::npos);
  dlclose(handle);
  // No temporary file is left next to the output.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(AotLibrary, MissingOrForeignLibrariesAreClearErrors) {
  fs::path dir = TempDir("errors");
  ErrorCode code = ErrorCode::kOk;
  std::string missing = ErrorOf([&] { AotKernelProvider((dir / "nope.so").string()); }, &code);
  EXPECT_EQ(code, ErrorCode::kNotFound);
  EXPECT_NE(missing.find("kernel library '" + (dir / "nope.so").string() + "': cannot load it"), std::string::npos)
      << missing;
  std::ofstream(dir / "text.so") << "not a library";
  EXPECT_EQ(ErrorOf([&] { AotKernelProvider((dir / "text.so").string()); }, &code),
            "kernel library '" + (dir / "text.so").string() + "': not a shared library (no ELF header)");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);

  // A shared library that is not an rxt kernel library, and ones with another version.
  auto build_c = [&](const std::string& name, const std::string& source) {
    std::ofstream(dir / (name + ".c")) << source;
    std::string command = "cc -shared -fPIC -o " + (dir / (name + ".so")).string() + " " + (dir / (name + ".c")).string();
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return (dir / (name + ".so")).string();
  };
  std::string foreign = build_c("foreign", "int answer(void) { return 42; }\n");
  EXPECT_EQ(ErrorOf([&] { AotKernelProvider{foreign}; }, &code),
            "kernel library '" + foreign + "' is not an rxt kernel library (it has no rxt_aot_library_info)");
  EXPECT_EQ(code, ErrorCode::kDataLoss);
  const char* info = R"(
typedef struct { unsigned version, kernel_format; const char *triple, *cpu, *features; } info_t;
info_t rxt_aot_library_info = {%u, %u, "x86_64-pc-linux-gnu", "future", "%s"};
)";
  char source[512];
  std::snprintf(source, sizeof source, info, 99u, 1u, "");
  std::string future = build_c("future", source);
  EXPECT_EQ(ErrorOf([&] { AotKernelProvider{future}; }, &code),
            "kernel library '" + future + "' has library version 99 (this runtime reads 1): rebuild it");
  EXPECT_EQ(code, ErrorCode::kFailedPrecondition);
  std::snprintf(source, sizeof source, info, 1u, 7u, "");
  std::string format = build_c("format", source);
  EXPECT_NE(ErrorOf([&] { AotKernelProvider{format}; }, &code).find("was built from kernel format 7"), std::string::npos);
  // Features this CPU has pass; the check reads the "+" ones it knows.
  std::snprintf(source, sizeof source, info, 1u, 1u, "+sse2,-avx512f,+unknown-feature");
  EXPECT_EQ(ErrorOf([&] { AotKernelProvider{build_c("features", source)}; }), "");
  // One it lacks (if this machine lacks one of these) refuses the library.
  __builtin_cpu_init();
  const char* lacking = !__builtin_cpu_supports("avx512fp16") ? "avx512fp16"
                        : !__builtin_cpu_supports("amx-tile") ? "amx-tile"
                                                              : nullptr;
  if (lacking != nullptr) {
    std::snprintf(source, sizeof source, info, 1u, 1u, (std::string("+sse2,+") + lacking).c_str());
    std::string newer = build_c("newer", source);
    EXPECT_EQ(ErrorOf([&] { AotKernelProvider{newer}; }, &code),
              "kernel library '" + newer + "' was compiled for future and needs " + lacking +
                  ", which this CPU lacks: rebuild it on this machine");
    EXPECT_EQ(code, ErrorCode::kFailedPrecondition);
  }
  fs::remove_all(dir);
}

TEST(AotLibrary, MissingSymbolsAndRecordsWithoutOneAreClearErrors) {
  fs::path dir = TempDir("symbols");
  Executable exec = MyModuleWithLibrary(dir / "k.so");
  AotKernelProvider aot((dir / "k.so").string());
  KernelRecord record = exec.kernels[0];
  record.aot_symbol = "rxt_aot_kernel_99";
  ErrorCode code = ErrorCode::kOk;
  EXPECT_EQ(ErrorOf([&] { aot.Load(record); }, &code),
            "kernel '" + record.name + "': the symbol 'rxt_aot_kernel_99' is missing from '" + (dir / "k.so").string() +
                "' (a library built for another executable?)");
  EXPECT_EQ(code, ErrorCode::kNotFound);
  record.aot_symbol = "";
  EXPECT_NE(ErrorOf([&] { aot.Load(record); }, &code).find("has no ahead-of-time symbol"), std::string::npos);
  EXPECT_EQ(code, ErrorCode::kFailedPrecondition);
  Executable plain = exec;
  plain.aot_library = "";
  EXPECT_NE(ErrorOf([&] { AotKernelProvider::ForExecutable(plain); }).find("names no kernel library"), std::string::npos);
  // Argument errors come from binding, with the reference's message.
  std::unique_ptr<Kernel> relu = aot.Load(exec.kernels[1].name == "relu0" ? exec.kernels[1] : exec.kernels[0]);
  Tensor x = Tensor::Empty({1, 4}, DType::kFloat32), y = Tensor::Empty({1, 5}, DType::kFloat32);
  DLTensor dx{x.data(), {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, const_cast<int64_t*>(x.shape().data()), nullptr, 0};
  DLTensor dy{y.data(), {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, const_cast<int64_t*>(y.shape().data()), nullptr, 0};
  DLTensor* args[] = {&dx, &dy};
  EXPECT_EQ(ErrorOf([&] { relu->Call(args, 2); }, &code),
            "buffer Y (parameter 1) dim 1 is 5, but n = 4 from buffer X (parameter 0) dim 1");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  fs::remove_all(dir);
}

TEST(AotLibrary, EmittingNeedsACCompilerAndCIdentifiers) {
  fs::path dir = TempDir("emit");
  Executable exec = CompileToExecutable(ParseModule(ReadSourceFile("examples/my_module.rxt")), {.backend = "cpu"});
  const KernelRecord& k = exec.kernels[0];
  auto emit = [&](const std::string& symbol) {
    std::string error;
    try {
      EmitAotLibrary({{k.name, k.portable.data(), k.portable.size(), symbol}}, (dir / "k.so").string());
    } catch (const std::exception& e) {
      error = e.what();
    }
    return error;
  };
  EXPECT_EQ(emit("2bad"), "kernel '" + k.name + "': symbol '2bad' is not a C identifier");
  EXPECT_EQ(emit("rxt_aot_library_info"), "kernel '" + k.name + "': symbol 'rxt_aot_library_info' is taken");
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (dir / "empty").c_str(), 1);
  std::string no_cc = emit("ok_symbol");
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(no_cc, "no C compiler 'cc' on PATH: the library is linked with 'cc -shared' (install gcc or clang)");
  EXPECT_FALSE(fs::exists(dir / "k.so"));
  EXPECT_EQ(emit("ok_symbol"), "");
  EXPECT_TRUE(fs::exists(dir / "k.so"));
  fs::remove_all(dir);
}

// The ELF machine number of the file at |path| (e_machine, little-endian).
unsigned ElfMachineOf(const fs::path& path) {
  unsigned char header[20] = {};
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(header), sizeof header);
  return header[18] | (header[19] << 8);
}

TEST(AotLibrary, CompilesForTheBaselineCpuOfThisArchitecture) {
  fs::path dir = TempDir("baseline");
  Executable built = MyModuleWithLibrary(dir / "k.so", ResolveTarget("", "x86-64", ""));
  void* handle = dlopen((dir / "k.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto* info = static_cast<const rxt_aot_library_info_t*>(dlsym(handle, RXT_AOT_LIBRARY_INFO_SYMBOL));
  ASSERT_NE(info, nullptr);
  EXPECT_STREQ(info->target_cpu, "x86-64");
  EXPECT_STREQ(info->target_features, "");  // the CPU's own: no AVX to ask of the machine
  dlclose(handle);
  AotKernelProvider aot = AotKernelProvider::ForExecutable(built);
  CpuKernelProvider jit;
  Executable jit_exec = built;
  jit_exec.aot_library.clear();
  VirtualMachine from_library(built, aot), from_jit(jit_exec, jit);
  std::vector<Value> args = MyModuleArgs(3);
  // No fused multiply-add on either side, and the same order of operations: the same bits.
  EXPECT_TRUE(BitwiseEqual(from_library.Invoke("main", args), from_jit.Invoke("main", args)));
  fs::remove_all(dir);
}

TEST(AotLibrary, CompilesForAnotherArchitectureWhichThisOneRefuses) {
  if (system("command -v aarch64-linux-gnu-gcc > /dev/null") != 0) {
    GTEST_SKIP() << "no aarch64-linux-gnu-gcc on PATH (Debian: gcc-aarch64-linux-gnu)";
  }
  fs::path dir = TempDir("aarch64");
  MachineTarget arm = ResolveTarget("aarch64-linux-gnu", "", "");
  EXPECT_EQ(arm.triple, "aarch64-unknown-linux-gnu");
  EXPECT_EQ(arm.cpu, "generic");
  EXPECT_FALSE(IsHostTriple(arm));
  MyModuleWithLibrary(dir / "k.so", arm);
  EXPECT_EQ(ElfMachineOf(dir / "k.so"), 183u);  // EM_AARCH64
  ErrorCode code = ErrorCode::kOk;
  EXPECT_EQ(ErrorOf([&] { AotKernelProvider((dir / "k.so").string()); }, &code),
            "kernel library '" + (dir / "k.so").string() + "': built for aarch64, and this machine is x86_64");
  EXPECT_EQ(code, ErrorCode::kFailedPrecondition);
  fs::remove_all(dir);
}

TEST(AotLibrary, UnknownTargetsCpusAndLinkersAreClearErrors) {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message([] { ResolveTarget("nonsense-arch-linux", "", ""); }).rfind("cannot compile for 'nonsense-arch-linux': ", 0), 0u);
  EXPECT_EQ(message([] { ResolveTarget("aarch64-linux-gnu", "pentium9000", ""); }),
            "'pentium9000' is not a CPU LLVM knows for aarch64-unknown-linux-gnu");
  EXPECT_EQ(message([] { ResolveTarget("", "pentium9000", ""); }).find("'pentium9000' is not a CPU LLVM knows for x86_64"), 0u);
  // A target LLVM compiles for, with no cross compiler to link the library.
  if (system("command -v riscv64-linux-gnu-gcc > /dev/null") == 0) GTEST_SKIP() << "riscv64-linux-gnu-gcc is installed";
  fs::path dir = TempDir("no_linker");
  EXPECT_THROW(MyModuleWithLibrary(dir / "k.so", ResolveTarget("riscv64-linux-gnu", "", "")), MissingToolError);
  EXPECT_EQ(message([&] { MyModuleWithLibrary(dir / "k.so", ResolveTarget("riscv64-linux-gnu", "", "")); }),
            "no linker for riscv64-unknown-linux-gnu: neither riscv64-linux-gnu-gcc nor riscv64-unknown-linux-gnu-gcc is "
            "on PATH (Debian: apt-get install gcc-riscv64-linux-gnu)");
  EXPECT_FALSE(fs::exists(dir / "k.so"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
