#include "jit_compiler.h"

#include <cstdio>
#include <cstdlib>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <atomic>
#include <ctime>
#include <stdexcept>

#include "object_cache.h"
#include "optimizer.h"
#include "target.h"

namespace rxt::backend_cpu {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

// CPU time of the calling thread: what compiling costs, whatever else the machine runs.
double ThreadMilliseconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

struct JitCompiler::Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
};

// Each kernel's object is linked into a JITDylib of its own, so that every object can name its
// function kSymbol: the same bytes serve any process (the on-disk cache stores them as made).
constexpr const char* kSymbol = "rxt_kernel";

struct JitKernel::Code {
  std::shared_ptr<JitCompiler::Jit> jit;
  llvm::orc::JITDylib* dylib = nullptr;
};

JitKernel::JitKernel(std::unique_ptr<Code> code) : code_(std::move(code)) {}

JitKernel::~JitKernel() {
  if (code_ && code_->dylib != nullptr) {
    llvm::consumeError(code_->jit->lljit->getExecutionSession().removeJITDylib(*code_->dylib));
  }
}

JitCompiler::JitCompiler(CodegenOptions options, std::optional<std::string> cache_directory)
    : options_(std::move(options)) {
  if (cache_directory) disk_.emplace(std::move(*cache_directory));
  InitializeLlvm();
  const MachineTarget& host = Host();
  if (options_.target_cpu.empty()) options_.target_cpu = host.cpu;
  if (options_.target_features.empty()) options_.target_features = host.features;
  // Kernels arrive as object files (EmitObjectFile): the JIT only links them.
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> machine = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine) throw std::runtime_error("LLVM does not know this host: " + ErrorText(machine.takeError()));
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> lljit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*machine)).create();
  if (!lljit) throw std::runtime_error("cannot create the LLVM JIT: " + ErrorText(lljit.takeError()));
  jit_ = std::make_shared<Jit>();
  jit_->lljit = std::move(*lljit);
  // libm (expf, tanhf, erff...) and libc (malloc, free) come from the process.
  llvm::Expected<std::unique_ptr<llvm::orc::DynamicLibrarySearchGenerator>> process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit_->lljit->getDataLayout().getGlobalPrefix());
  if (!process) throw std::runtime_error("cannot search the process for symbols: " + ErrorText(process.takeError()));
  jit_->lljit->getMainJITDylib().addGenerator(std::move(*process));
}

JitCompiler::~JitCompiler() = default;

void ReportCompileTimes(const std::string& kernel, const CompileTimes& times) {
  static const bool report = [] {
    const char* v = std::getenv("RXT_CPU_COMPILE_TIMES");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  if (!report) return;
  // One write per line: kernels compile on several threads at once.
  std::string line = "rxt: cpu: compiled " + kernel + ": " + std::to_string(times.codegen_ms + times.optimize_ms + times.machine_ms) +
                     " ms (code generation " + std::to_string(times.codegen_ms) + ", optimization " +
                     std::to_string(times.optimize_ms) + ", machine code " + std::to_string(times.machine_ms) + ")\n";
  std::fputs(line.c_str(), stderr);
}

std::shared_ptr<const JitKernel> JitCompiler::CompileShared(const plugin_support::kernel_format::Kernel& kernel, const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      if (std::shared_ptr<const JitKernel> code = it->second.lock()) return code;
    }
  }
  // Outside the lock: compiles run in parallel.
  std::shared_ptr<const JitKernel> code;
  if (disk_) {
    const std::string file = ObjectCache::KeyOf(key + '\0' + options_.target_cpu + '\0' + options_.target_features + '\0' +
                                                std::to_string(options_.parallel_work_threshold) + '\0' +
                                                ObjectCache::CompilerIdentity());
    const double start = ThreadMilliseconds();
    if (std::optional<std::vector<char>> object = disk_->Load(file)) {
      CompileTimes times;
      std::unique_ptr<JitKernel> loaded = Link(*object, times);
      loaded->times_.machine_ms = ThreadMilliseconds() - start;
      loaded->from_cache_ = true;
      code = std::move(loaded);
    } else {
      CompileTimes times;
      std::vector<char> made = CompileObject(kernel, times);
      disk_->Store(file, made);  // best effort: a read-only cache only costs the next run
      code = Link(made, times);
      ReportCompileTimes(kernel.name, code->times());
    }
  } else {
    code = Compile(kernel);
    ReportCompileTimes(kernel.name, code->times());
  }
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= 64 && cache_.size() % 64 == 0) {  // drop the entries of freed kernels now and then
    for (auto it = cache_.begin(); it != cache_.end();) it = it->second.expired() ? cache_.erase(it) : std::next(it);
  }
  cache_[key] = code;
  return code;
}

std::vector<char> JitCompiler::CompileObject(const plugin_support::kernel_format::Kernel& kernel, CompileTimes& times) {
  double start = ThreadMilliseconds();
  auto context = std::make_unique<llvm::LLVMContext>();
  std::string llvm_errors;
  QuietDiagnostics(*context, &llvm_errors);
  auto module = std::make_unique<llvm::Module>(kernel.name, *context);
  EmitKernel(kernel, kSymbol, *module, options_);
  times.codegen_ms = ThreadMilliseconds() - start;

  start = ThreadMilliseconds();
  // One target machine per compile: they are not safe to share between threads.
  std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(Host());
  Optimize(*module, *machine);
  times.optimize_ms = ThreadMilliseconds() - start;

  start = ThreadMilliseconds();
  std::vector<char> object = EmitObjectFile(*module, *machine);
  if (!llvm_errors.empty()) throw std::runtime_error("LLVM: " + llvm_errors);
  times.machine_ms = ThreadMilliseconds() - start;
  return object;
}

std::unique_ptr<JitKernel> JitCompiler::Link(const std::vector<char>& object, const CompileTimes& times) {
  static std::atomic<uint64_t> next_id{0};
  const double start = ThreadMilliseconds();
  llvm::orc::LLJIT& lljit = *jit_->lljit;
  llvm::Expected<llvm::orc::JITDylib&> dylib = lljit.createJITDylib("rxt_kernel_" + std::to_string(next_id++));
  if (!dylib) throw std::runtime_error("cannot make room for a kernel in the JIT: " + ErrorText(dylib.takeError()));
  // libm, libc: through the main JITDylib, which searches the process.
  dylib->addToLinkOrder(lljit.getMainJITDylib());
  auto code = std::make_unique<JitKernel::Code>();
  code->jit = jit_;
  code->dylib = &*dylib;
  std::unique_ptr<JitKernel> result(new JitKernel(std::move(code)));  // frees the dylib if a step fails
  llvm::Error added = lljit.addObjectFile(*dylib, llvm::MemoryBuffer::getMemBufferCopy(
                                                      llvm::StringRef(object.data(), object.size()), kSymbol));
  if (added) throw std::runtime_error("cannot load the compiled kernel: " + ErrorText(std::move(added)));
  llvm::Expected<llvm::orc::ExecutorAddr> address = lljit.lookup(*dylib, kSymbol);
  if (!address) throw std::runtime_error("cannot link the compiled kernel: " + ErrorText(address.takeError()));
  result->function_ = address->toPtr<rxt_compiled_kernel_fn>();
  result->times_ = times;
  result->times_.machine_ms += ThreadMilliseconds() - start;
  return result;
}

std::unique_ptr<JitKernel> JitCompiler::Compile(const plugin_support::kernel_format::Kernel& kernel) {
  CompileTimes times;
  std::vector<char> object = CompileObject(kernel, times);
  return Link(object, times);
}

}  // namespace rxt::backend_cpu
