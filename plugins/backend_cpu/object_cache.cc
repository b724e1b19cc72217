#include "object_cache.h"

#include <elf.h>
#include <link.h>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/SHA256.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace rxt::backend_cpu {
namespace {

constexpr char kMagic[8] = {'R', 'X', 'T', 'K', 'O', 'B', 'J', '1'};
constexpr size_t kDigestSize = 32;
constexpr size_t kHeaderSize = sizeof(kMagic) + kDigestSize + sizeof(uint64_t);
constexpr uint64_t kMaxObjectBytes = uint64_t(1) << 30;  // a kernel's object is kilobytes

std::array<uint8_t, kDigestSize> Digest(const char* data, size_t size) {
  std::array<uint8_t, kDigestSize> digest{};
  auto hash = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(data), size));
  std::memcpy(digest.data(), hash.data(), kDigestSize);
  return digest;
}

}  // namespace

std::optional<std::string> ObjectCache::DirectoryFromEnvironment() {
  if (const char* dir = std::getenv("RXT_KERNEL_CACHE")) {
    if (*dir == '\0' || std::strcmp(dir, "off") == 0) return std::nullopt;
    return std::string(dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') return std::string(xdg) + "/rxt/kernels";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') return std::string(home) + "/.cache/rxt/kernels";
  return std::nullopt;
}

namespace {

/// The GNU build id of the shared object holding this code (the backend plugin): it changes with
/// any change to the code generator, so objects an older build wrote are never taken.
int FindBuildId(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::pair<uintptr_t, std::string>*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && out->first >= begin && out->first < begin + segment.p_memsz) {
      for (int j = 0; j < info->dlpi_phnum; ++j) {
        const ElfW(Phdr)& note_segment = info->dlpi_phdr[j];
        if (note_segment.p_type != PT_NOTE) continue;
        const char* p = reinterpret_cast<const char*>(info->dlpi_addr + note_segment.p_vaddr);
        const char* end = p + note_segment.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
          const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
          const char* name = p + sizeof(ElfW(Nhdr));
          const char* desc = name + ((note->n_namesz + 3) & ~3u);
          if (desc + note->n_descsz > end) break;
          if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
            out->second.assign(desc, note->n_descsz);
            return 1;
          }
          p = desc + ((note->n_descsz + 3) & ~3u);
        }
      }
      return 1;
    }
  }
  return 0;
}

}  // namespace

std::string ObjectCache::CompilerIdentity() {
  static const std::string identity = [] {
    std::pair<uintptr_t, std::string> found{reinterpret_cast<uintptr_t>(&FindBuildId), ""};
    dl_iterate_phdr(&FindBuildId, &found);
    std::string text = "llvm " LLVM_VERSION_STRING " build-id ";
    if (found.second.empty()) {
      // No build id (a linker told not to write one): this build's own time, so never shared.
      text += "none " + std::to_string(std::random_device{}());
    }
    return text + KeyOf(found.second);
  }();
  return identity;
}

std::string ObjectCache::KeyOf(const std::string& identity) {
  static const char kHex[] = "0123456789abcdef";
  std::string key;
  for (uint8_t byte : Digest(identity.data(), identity.size())) {
    key += kHex[byte >> 4];
    key += kHex[byte & 15];
  }
  return key;
}

std::optional<std::vector<char>> ObjectCache::Load(const std::string& key) const {
  std::ifstream in(PathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  char header[kHeaderSize];
  if (!in.read(header, kHeaderSize) || std::memcmp(header, kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  uint64_t size = 0;
  std::memcpy(&size, header + sizeof(kMagic) + kDigestSize, sizeof(size));
  if (size == 0 || size > kMaxObjectBytes) return std::nullopt;
  std::vector<char> object(size);
  if (!in.read(object.data(), static_cast<std::streamsize>(size)) || in.peek() != std::ifstream::traits_type::eof()) {
    return std::nullopt;
  }
  if (std::memcmp(Digest(object.data(), object.size()).data(), header + sizeof(kMagic), kDigestSize) != 0) {
    return std::nullopt;
  }
  return object;
}

bool ObjectCache::Store(const std::string& key, const std::vector<char>& object) const {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) return false;
  // A name no other writer (thread or process) uses, renamed over the final one.
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const std::string temporary = PathOf(key) + ".tmp." + std::to_string(getpid()) + "." + std::to_string(random());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    const uint64_t size = object.size();
    out.write(kMagic, sizeof(kMagic));
    out.write(reinterpret_cast<const char*>(Digest(object.data(), object.size()).data()), kDigestSize);
    out.write(reinterpret_cast<const char*>(&size), sizeof(size));
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temporary, error);
      return false;
    }
  }
  std::filesystem::rename(temporary, PathOf(key), error);
  if (!error) return true;
  std::filesystem::remove(temporary, error);
  return false;
}

}  // namespace rxt::backend_cpu
