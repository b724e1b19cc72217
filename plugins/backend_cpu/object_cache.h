// Compiled kernels on disk, so that the next process that needs the same kernel skips LLVM
// (most of a model's start-up: resnet18's 107 kernels take seconds to optimize and emit). One
// file per kernel, named by the SHA-256 of what decides its machine code: the kernel's portable
// bytes, the target CPU and features, the code-generation options and the versions of rxt's
// backend and of LLVM. A file holds a magic, the object's SHA-256 and size, then the object:
// one that does not verify is ignored (and written again), so a truncated or corrupt cache never
// reaches the linker. Writes are atomic (a temporary file, then a rename).
//
//   $RXT_KERNEL_CACHE          the directory; "off" (or empty) turns the cache off
//   $XDG_CACHE_HOME/rxt/kernels, else $HOME/.cache/rxt/kernels: the default
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rxt::backend_cpu {

class ObjectCache {
 public:
  /// The directory the environment gives (see above); nullopt when the cache is off or there is
  /// no home directory.
  static std::optional<std::string> DirectoryFromEnvironment();

  explicit ObjectCache(std::string directory) : directory_(std::move(directory)) {}
  const std::string& directory() const { return directory_; }

  /// What identifies the compiler that made an object: LLVM's version and the GNU build id of
  /// the backend's own shared object (any rebuild of the code generator changes it).
  static std::string CompilerIdentity();
  /// The file name (hex SHA-256) for a kernel identified by |identity| (everything that decides
  /// its machine code, concatenated).
  static std::string KeyOf(const std::string& identity);
  /// The object stored under |key|, when there is one that verifies.
  std::optional<std::vector<char>> Load(const std::string& key) const;
  /// Stores |object| under |key|, atomically; false when it cannot (a full disk or a read-only
  /// directory: the cache is an optimization, compiling goes on without it).
  bool Store(const std::string& key, const std::vector<char>& object) const;

 private:
  std::string PathOf(const std::string& key) const { return directory_ + "/" + key + ".o"; }
  std::string directory_;
};

}  // namespace rxt::backend_cpu
