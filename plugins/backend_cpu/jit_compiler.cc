#include "jit_compiler.h"

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

struct JitKernel::Code {
  std::shared_ptr<JitCompiler::Jit> jit;
  llvm::orc::ResourceTrackerSP tracker;
};

JitKernel::JitKernel(std::unique_ptr<Code> code) : code_(std::move(code)) {}

JitKernel::~JitKernel() {
  if (code_ && code_->tracker) llvm::consumeError(code_->tracker->remove());
}

JitCompiler::JitCompiler(CodegenOptions options) : options_(std::move(options)) {
  InitializeLlvm();
  const HostTarget& host = Host();
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

std::shared_ptr<const JitKernel> JitCompiler::CompileShared(const plugin_support::kernel_format::Kernel& kernel, const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      if (std::shared_ptr<const JitKernel> code = it->second.lock()) return code;
    }
  }
  std::shared_ptr<const JitKernel> code = Compile(kernel);  // outside the lock: compiles run in parallel
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_.size() >= 64 && cache_.size() % 64 == 0) {  // drop the entries of freed kernels now and then
    for (auto it = cache_.begin(); it != cache_.end();) it = it->second.expired() ? cache_.erase(it) : std::next(it);
  }
  cache_[key] = code;
  return code;
}

std::unique_ptr<JitKernel> JitCompiler::Compile(const plugin_support::kernel_format::Kernel& kernel) {
  static std::atomic<uint64_t> next_id{0};
  const std::string symbol = "rxt_jit_" + std::to_string(next_id++);
  CompileTimes times;

  double start = ThreadMilliseconds();
  auto context = std::make_unique<llvm::LLVMContext>();
  std::string llvm_errors;
  QuietDiagnostics(*context, &llvm_errors);
  auto module = std::make_unique<llvm::Module>(kernel.name, *context);
  EmitKernel(kernel, symbol, *module, options_);
  times.codegen_ms = ThreadMilliseconds() - start;

  start = ThreadMilliseconds();
  // One target machine per compile: they are not safe to share between threads.
  std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(Host());
  Optimize(*module, *machine);
  times.optimize_ms = ThreadMilliseconds() - start;

  start = ThreadMilliseconds();
  std::vector<char> object = EmitObjectFile(*module, *machine);
  if (!llvm_errors.empty()) throw std::runtime_error("LLVM: " + llvm_errors);
  auto code = std::make_unique<JitKernel::Code>();
  code->jit = jit_;
  llvm::orc::LLJIT& lljit = *jit_->lljit;
  code->tracker = lljit.getMainJITDylib().createResourceTracker();
  llvm::Error added = lljit.addObjectFile(
      code->tracker, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), symbol));
  if (added) throw std::runtime_error("cannot load the compiled kernel: " + ErrorText(std::move(added)));
  std::unique_ptr<JitKernel> result(new JitKernel(std::move(code)));  // frees the code if lookup fails
  llvm::Expected<llvm::orc::ExecutorAddr> address = lljit.lookup(symbol);
  if (!address) throw std::runtime_error("cannot link the compiled kernel: " + ErrorText(address.takeError()));
  result->function_ = address->toPtr<rxt_compiled_kernel_fn>();
  times.machine_ms = ThreadMilliseconds() - start;
  result->times_ = times;
  return result;
}

}  // namespace rxt::backend_cpu
