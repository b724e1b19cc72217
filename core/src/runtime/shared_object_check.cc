#include "rxt/runtime/shared_object_check.h"

#include <elf.h>

#include <cstring>
#include <fstream>

#include "rxt/support/error.h"

namespace rxt {

std::string ElfMachineName(unsigned machine) {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "32-bit arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390x";
    default: return StrCat("ELF machine ", machine);
  }
}

unsigned ThisElfMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__i386__)
  return EM_386;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#else
  return EM_NONE;  // unknown here: the machine is not checked
#endif
}

void CheckSharedObjectFile(const std::string& path, const std::string& where) {
  // e_ident (16 bytes), e_type (2), e_machine (2): the same place in 32- and 64-bit headers.
  unsigned char header[20] = {};
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) return;  // the caller's dlopen says why
  file.read(reinterpret_cast<char*>(header), sizeof header);
  if (file.gcount() < 4 || std::memcmp(header, ELFMAG, SELFMAG) != 0) {
    Throw(ErrorCode::kInvalidArgument, where, ": not a shared library (no ELF header)");
  }
  if (file.gcount() < static_cast<std::streamsize>(sizeof header)) {
    Throw(ErrorCode::kInvalidArgument, where, ": not a shared library (its ELF header is cut short)");
  }
  const bool little_endian = header[EI_DATA] == ELFDATA2LSB;
  const unsigned machine = little_endian ? header[18] | (header[19] << 8) : (header[18] << 8) | header[19];
  const unsigned ours = ThisElfMachine();
  const bool our_class = header[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32);
  const bool our_order = little_endian == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
  if (ours != EM_NONE && (machine != ours || !our_class || !our_order)) {
    Throw(ErrorCode::kFailedPrecondition, where, ": built for ", ElfMachineName(machine),
          header[EI_CLASS] == ELFCLASS32 ? " (32-bit)" : "", ", and this machine is ", ElfMachineName(ours));
  }
}

}  // namespace rxt
