// What a file must be before rxt hands it to dlopen (a plugin, a kernel library): an ELF shared
// object for this machine. dlopen's own messages for the wrong file ("invalid ELF header",
// "wrong ELF class", "cannot open shared object file" for another architecture) do not say
// what is wrong; these do, naming the file and both architectures.
#pragma once

#include <string>

namespace rxt {

/// The architecture of ELF machine number |machine| ("x86_64", "aarch64"; "ELF machine N" for
/// one rxt does not name).
std::string ElfMachineName(unsigned machine);

/// The ELF machine number of code compiled for this process (62 on x86_64, 183 on aarch64).
unsigned ThisElfMachine();

/// Throws kInvalidArgument "<where>: not a shared library (no ELF header)" when |path| does not
/// start with an ELF header, and kFailedPrecondition "<where>: built for aarch64, and this
/// machine is x86_64" when it holds code for another architecture or word size. A file that
/// cannot be opened passes: the caller's dlopen then says why.
void CheckSharedObjectFile(const std::string& path, const std::string& where);

}  // namespace rxt
