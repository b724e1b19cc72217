#include "aot_library_emitter.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>

#include "optimizer.h"
#include "rxt/compiled_kernel.h"
#include "rxt/plugin_support/kernel_codec.h"
#include "target.h"

extern char** environ;

namespace rxt::backend_cpu {
namespace {

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

llvm::Constant* StringConstant(llvm::Module& module, const std::string& text, const char* name) {
  llvm::Constant* data = llvm::ConstantDataArray::getString(module.getContext(), text);
  auto* global = new llvm::GlobalVariable(module, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, name);
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return global;
}

// rxt_aot_library_info_t { u32 version; u32 kernel_format; const char* triple, cpu, features; }
void AddLibraryInfo(llvm::Module& module, const MachineTarget& target) {
  llvm::LLVMContext& c = module.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::Type* ptr = llvm::PointerType::getUnqual(c);
  llvm::StructType* type = llvm::StructType::get(c, {i32, i32, ptr, ptr, ptr});
  llvm::Constant* value = llvm::ConstantStruct::get(
      type, {llvm::ConstantInt::get(i32, RXT_AOT_LIBRARY_VERSION), llvm::ConstantInt::get(i32, plugin_support::kernel_format::kFormatVersion),
             StringConstant(module, target.triple, "rxt_aot_triple"), StringConstant(module, target.cpu, "rxt_aot_cpu"),
             StringConstant(module, target.features, "rxt_aot_features")});
  auto* info = new llvm::GlobalVariable(module, type, true, llvm::GlobalValue::ExternalLinkage, value,
                                        RXT_AOT_LIBRARY_INFO_SYMBOL);
  info->setVisibility(llvm::GlobalValue::DefaultVisibility);
}

std::string FindOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

void WriteFile(const std::string& path, const std::vector<char>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw std::runtime_error("writing " + path + " failed");
}

// Runs |argv| and returns its exit status; what it printed (stdout and stderr) goes to |output|.
int Run(const std::vector<std::string>& argv, std::string& output) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(spawned));
  }
  char buffer[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0 && output.size() < 16384) output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The C compiler that links a library for |target|: `cc` for this host; for another
// architecture, its GCC cross compiler as Debian names it ("aarch64-linux-gnu-gcc"), with or
// without the vendor field of the triple.
std::string FindLinker(const MachineTarget& target) {
  if (IsHostTriple(target)) {
    std::string cc = FindOnPath("cc");
    if (cc.empty()) {
      throw MissingToolError("no C compiler 'cc' on PATH: the library is linked with 'cc -shared' (install gcc or clang)");
    }
    return cc;
  }
  llvm::Triple triple(target.triple);
  std::string without_vendor = triple.getArchName().str() + "-" + triple.getOSName().str() +
                               (triple.getEnvironmentName().empty() ? "" : "-" + triple.getEnvironmentName().str());
  for (const std::string& name : {without_vendor, target.triple}) {
    std::string cc = FindOnPath(name + "-gcc");
    if (!cc.empty()) return cc;
  }
  throw MissingToolError("no linker for " + target.triple + ": neither " + without_vendor + "-gcc nor " + target.triple +
                         "-gcc is on PATH (Debian: apt-get install gcc-" + without_vendor + ")");
}

/// Removes a file when it goes out of scope.
struct TemporaryFile {
  std::string path;
  ~TemporaryFile() { std::remove(path.c_str()); }
};

}  // namespace

void EmitAotLibrary(const std::vector<AotKernelSource>& kernels, const std::string& output_path,
                    const MachineTarget& target, CodegenOptions options) {
  if (output_path.empty()) throw std::runtime_error("no output path for the library");
  const std::string cc = FindLinker(target);
  if (options.target_cpu.empty()) options.target_cpu = target.cpu;
  if (options.target_features.empty()) options.target_features = target.features;

  llvm::LLVMContext context;
  std::string llvm_errors;
  QuietDiagnostics(context, &llvm_errors);
  llvm::Module module("rxt_aot_library", context);
  std::set<std::string> symbols = {RXT_AOT_LIBRARY_INFO_SYMBOL};
  for (const AotKernelSource& k : kernels) {
    if (!IsCIdentifier(k.symbol)) throw std::runtime_error("kernel '" + k.name + "': symbol '" + k.symbol + "' is not a C identifier");
    if (!symbols.insert(k.symbol).second) throw std::runtime_error("kernel '" + k.name + "': symbol '" + k.symbol + "' is taken");
    plugin_support::kernel_format::DecodeResult decoded = plugin_support::kernel_format::DecodeKernel(k.bytes, k.size);
    if (!decoded.ok()) throw std::runtime_error("kernel '" + k.name + "': " + decoded.error);
    try {
      EmitKernel(decoded.kernel, k.symbol, module, options);
    } catch (const std::exception& e) {
      throw std::runtime_error("kernel '" + k.name + "': " + e.what());
    }
  }
  AddLibraryInfo(module, target);
  std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(target);
  Optimize(module, *machine);
  std::vector<char> object = EmitObjectFile(module, *machine);
  if (!llvm_errors.empty()) throw std::runtime_error("LLVM: " + llvm_errors);

  // Next to the output, so that the final rename stays within one file system.
  const std::string unique = "." + std::to_string(getpid()) + ".tmp";
  TemporaryFile object_file{output_path + unique + ".o"};
  TemporaryFile library_file{output_path + unique + ".so"};
  WriteFile(object_file.path, object);
  std::string output;
  int status = Run({cc, "-shared", "-o", library_file.path, object_file.path, "-lm"}, output);
  if (status != 0) {
    throw std::runtime_error(cc + " failed (exit status " + std::to_string(status) + ") linking " + output_path +
                             (output.empty() ? "" : ": " + output));
  }
  if (std::rename(library_file.path.c_str(), output_path.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + library_file.path + " to " + output_path + ": " + std::strerror(errno));
  }
}

}  // namespace rxt::backend_cpu
