// Compiled kernels on disk (object_cache.cc): a second compiler takes the first one's objects,
// and a cache file that does not verify (truncated, corrupted, another format) is compiled again
// and rewritten, never handed to the linker.
#include <filesystem>
#include <fstream>

#include "cpu_test_util.h"
#include "object_cache.h"

namespace rxt::backend_cpu::testing {
namespace {

const char* kScale = R"(
kernel @scale(X: Buffer((n,), float32), Y: Buffer((n,), float32)) {
  for i in range(n) {
    Y[i] = X[i] * 3f32
  }
}
)";

std::vector<uint8_t> Bytes(const std::string& text, const std::string& name) {
  IRModule module = ParseModule(text, name + ".rxt");
  return EncodeKernel(module.GetKernel(name), name);
}

/// A fresh cache directory for one test.
std::string CacheDir(const std::string& name) {
  std::string dir = std::filesystem::temp_directory_path().string() + "/rxt_object_cache_test_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<float> RunScale(CpuKernel& kernel) {
  HostTensor x({3}, kF32), y({3}, kF32);
  x.Fill<float>({1, -2, 0.5f});
  EXPECT_EQ(CallCpu(kernel, {x.dl(), y.dl()}), "");
  return y.Values<float>();
}

std::vector<std::filesystem::path> Files(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

TEST(ObjectCache, ASecondCompilerLoadsTheObjectsTheFirstStored) {
  const std::string dir = CacheDir("reuse");
  std::vector<uint8_t> bytes = Bytes(kScale, "scale");
  {
    JitCompiler first({}, dir);
    std::unique_ptr<CpuKernel> k = CpuKernel::Load(first, bytes.data(), bytes.size());
    EXPECT_FALSE(k->from_cache());
    EXPECT_EQ(RunScale(*k), (std::vector<float>{3, -6, 1.5f}));
  }
  ASSERT_EQ(Files(dir).size(), 1u);  // one object, no temporary left behind
  EXPECT_EQ(Files(dir)[0].extension(), ".o");
  JitCompiler second({}, dir);
  std::unique_ptr<CpuKernel> k = CpuKernel::Load(second, bytes.data(), bytes.size());
  EXPECT_TRUE(k->from_cache());
  EXPECT_EQ(k->compile_times().optimize_ms, 0);  // no LLVM optimization ran
  EXPECT_EQ(RunScale(*k), (std::vector<float>{3, -6, 1.5f}));
  // Another kernel (other bytes) is another file.
  std::string other = kScale;
  other.replace(other.find("3f32"), 4, "4f32");
  std::vector<uint8_t> other_bytes = Bytes(other, "scale");
  std::unique_ptr<CpuKernel> k4 = CpuKernel::Load(second, other_bytes.data(), other_bytes.size());
  EXPECT_FALSE(k4->from_cache());
  EXPECT_EQ(RunScale(*k4), (std::vector<float>{4, -8, 2}));
  EXPECT_EQ(Files(dir).size(), 2u);
}

TEST(ObjectCache, AFileThatDoesNotVerifyIsCompiledAgain) {
  const std::string dir = CacheDir("corrupt");
  std::vector<uint8_t> bytes = Bytes(kScale, "scale");
  {
    JitCompiler first({}, dir);
    CpuKernel::Load(first, bytes.data(), bytes.size());
  }
  const std::filesystem::path file = Files(dir).at(0);
  std::string good;
  {
    std::ifstream in(file, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x5a;
  const std::string damaged[] = {good.substr(0, good.size() - 7), flipped, "not an object at all", "", good + "tail"};
  for (const std::string& contents : damaged) {
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out << contents;
    }
    JitCompiler compiler({}, dir);
    std::unique_ptr<CpuKernel> k = CpuKernel::Load(compiler, bytes.data(), bytes.size());
    EXPECT_FALSE(k->from_cache()) << contents.size();
    EXPECT_EQ(RunScale(*k), (std::vector<float>{3, -6, 1.5f}));
    std::ifstream in(file, std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), good);  // rewritten as it was
  }
}

TEST(ObjectCache, AnUnwritableDirectoryOnlyCostsTheCache) {
  std::string file_in_the_way = CacheDir("blocked");
  { std::ofstream(file_in_the_way) << "a file where the directory should be"; }
  JitCompiler compiler({}, file_in_the_way + "/kernels");
  std::vector<uint8_t> bytes = Bytes(kScale, "scale");
  std::unique_ptr<CpuKernel> k = CpuKernel::Load(compiler, bytes.data(), bytes.size());
  EXPECT_EQ(RunScale(*k), (std::vector<float>{3, -6, 1.5f}));
  std::filesystem::remove(file_in_the_way);
}

TEST(ObjectCache, TheEnvironmentChoosesTheDirectoryOrTurnsItOff) {
  const char* saved = std::getenv("RXT_KERNEL_CACHE");
  const std::string restore = saved != nullptr ? saved : "";
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string restore_xdg = saved_xdg != nullptr ? saved_xdg : "";
  setenv("RXT_KERNEL_CACHE", "/somewhere/kernels", 1);
  EXPECT_EQ(ObjectCache::DirectoryFromEnvironment(), std::optional<std::string>("/somewhere/kernels"));
  setenv("RXT_KERNEL_CACHE", "off", 1);
  EXPECT_EQ(ObjectCache::DirectoryFromEnvironment(), std::nullopt);
  unsetenv("RXT_KERNEL_CACHE");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(ObjectCache::DirectoryFromEnvironment(), std::optional<std::string>("/xdg/rxt/kernels"));
  unsetenv("XDG_CACHE_HOME");
  if (saved_xdg != nullptr) setenv("XDG_CACHE_HOME", restore_xdg.c_str(), 1);
  if (saved != nullptr) setenv("RXT_KERNEL_CACHE", restore.c_str(), 1);
  // The compiler's identity names LLVM and a build id (any rebuild of the backend changes it).
  EXPECT_NE(ObjectCache::CompilerIdentity().find("llvm 16"), std::string::npos) << ObjectCache::CompilerIdentity();
  EXPECT_EQ(ObjectCache::CompilerIdentity().find("none"), std::string::npos) << "no GNU build id in this binary";
}

}  // namespace
}  // namespace rxt::backend_cpu::testing
