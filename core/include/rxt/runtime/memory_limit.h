// The memory limit: the largest single block of storage (a tensor, an arena) that rxt takes on
// behalf of a file or a program. A size read from a file is first checked against the file
// itself (shape x dtype against the data present, an arena against its plan); this limit then
// stops a consistent but absurd request (a re-signed executable asking for 20 GB) before any
// memory is taken. Process-wide, like the thread pool; set from RXT_MAX_MEMORY, the CLI's
// --max-memory or the C ABI's rxt_set_memory_limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rxt {

/// The limit in bytes: the last SetMemoryLimit, else DefaultMemoryLimit().
int64_t MemoryLimit();
/// |bytes| > 0 sets the limit; 0 restores the default.
void SetMemoryLimit(int64_t bytes);
/// RXT_MAX_MEMORY when set (a size as ParseByteSize reads it), else half the machine's
/// physical memory (at least 1 GiB). A malformed RXT_MAX_MEMORY is an error when first read.
int64_t DefaultMemoryLimit();

/// "1048576", "512K", "64M", "4G", "1T" (binary units; a "B"/"iB" suffix is accepted: "4GiB");
/// nullopt if malformed, zero, or over 2^62.
std::optional<int64_t> ParseByteSize(std::string_view text);
/// "1.5 GiB", "512 MiB", "100 bytes".
std::string ByteSizeText(int64_t bytes);

/// kResourceExhausted "<what> needs <size>, more than the memory limit of <limit> (raise it
/// with --max-memory or RXT_MAX_MEMORY)" if |bytes| is over the limit.
void CheckMemoryLimit(int64_t bytes, const std::string& what);

/// The bytes of the file at |path| (ReadWholeFile), refused as CheckMemoryLimit does when the
/// file is larger than the limit: "<what> '<path>': the file needs ...".
std::vector<uint8_t> ReadFileWithinMemoryLimit(const std::string& path, const std::string& what);

}  // namespace rxt
