// What a file must be before dlopen (shared_object_check.cc): an ELF shared object for this
// machine, or an error naming the file's architecture and this machine's.
#include "rxt/runtime/shared_object_check.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "rxt/support/error.h"

namespace rxt {
namespace {

namespace fs = std::filesystem;

class SharedObjectCheck : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("rxt_shared_object_check_" + std::to_string(getpid()));
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::vector<unsigned char>& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return path;
  }
  /// The start of an ELF header: 64-bit little-endian, a shared object for |machine|.
  static std::vector<unsigned char> Header(unsigned machine, unsigned char elf_class = ELFCLASS64) {
    std::vector<unsigned char> h(64, 0);
    h[0] = 0x7f, h[1] = 'E', h[2] = 'L', h[3] = 'F', h[EI_CLASS] = elf_class, h[EI_DATA] = ELFDATA2LSB;
    h[EI_VERSION] = EV_CURRENT, h[16] = ET_DYN, h[18] = machine & 0xff, h[19] = machine >> 8;
    return h;
  }
  static std::string ErrorOf(const std::string& path, ErrorCode* code) {
    try {
      CheckSharedObjectFile(path, "plugin '" + path + "'");
    } catch (const Error& e) {
      *code = e.code();
      return e.what();
    }
    return "";
  }
};

TEST_F(SharedObjectCheck, ThisMachinesLibrariesPass) {
  ErrorCode code = ErrorCode::kOk;
  EXPECT_EQ(ErrorOf(Write("ours.so", Header(ThisElfMachine())), &code), "");
  // A file that does not exist is left to dlopen, which says so.
  EXPECT_EQ(ErrorOf((dir_ / "missing.so").string(), &code), "");
}

TEST_F(SharedObjectCheck, OtherArchitecturesAreNamed) {
  ASSERT_EQ(ThisElfMachine(), unsigned{EM_X86_64}) << "the messages below are this machine's";
  ErrorCode code = ErrorCode::kOk;
  std::string arm = Write("arm.so", Header(EM_AARCH64));
  EXPECT_EQ(ErrorOf(arm, &code), "plugin '" + arm + "': built for aarch64, and this machine is x86_64");
  EXPECT_EQ(code, ErrorCode::kFailedPrecondition);
  std::string i386 = Write("i386.so", Header(EM_386, ELFCLASS32));
  EXPECT_EQ(ErrorOf(i386, &code), "plugin '" + i386 + "': built for i386 (32-bit), and this machine is x86_64");
  std::string odd = Write("odd.so", Header(4242));
  EXPECT_EQ(ErrorOf(odd, &code), "plugin '" + odd + "': built for ELF machine 4242, and this machine is x86_64");
  // The right machine in a 32-bit file (x32 and the like) is still not ours.
  std::string narrow = Write("narrow.so", Header(EM_X86_64, ELFCLASS32));
  EXPECT_EQ(ErrorOf(narrow, &code), "plugin '" + narrow + "': built for x86_64 (32-bit), and this machine is x86_64");
}

TEST_F(SharedObjectCheck, FilesThatAreNotElfAreInvalidArguments) {
  ErrorCode code = ErrorCode::kOk;
  std::string text = Write("text.so", {'h', 'e', 'l', 'l', 'o', '\n'});
  EXPECT_EQ(ErrorOf(text, &code), "plugin '" + text + "': not a shared library (no ELF header)");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(ErrorOf(Write("empty.so", {}), &code).find("not a shared library (no ELF header)") != std::string::npos, true);
  std::vector<unsigned char> cut = Header(EM_X86_64);
  cut.resize(10);
  std::string short_header = Write("short.so", cut);
  EXPECT_EQ(ErrorOf(short_header, &code), "plugin '" + short_header + "': not a shared library (its ELF header is cut short)");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
}

TEST(ElfMachineName, NamesTheCommonArchitectures) {
  EXPECT_EQ(ElfMachineName(EM_X86_64), "x86_64");
  EXPECT_EQ(ElfMachineName(EM_AARCH64), "aarch64");
  EXPECT_EQ(ElfMachineName(EM_RISCV), "riscv");
  EXPECT_EQ(ElfMachineName(7777), "ELF machine 7777");
}

}  // namespace
}  // namespace rxt
