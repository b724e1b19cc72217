#include "rxt/support/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "rxt/support/error.h"
#include "rxt/support/message_text.h"

namespace rxt {

void WriteFileAtomically(const std::string& path, const void* data, size_t size, const std::string& what) {
  // Unique per process, so two writers of the same file do not share a temporary.
  std::string temp = path + ".tmp." + std::to_string(getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Throw(ErrorCode::kInvalidArgument, what, ": cannot write '", path, "': ", std::strerror(errno));
  const auto* bytes = static_cast<const uint8_t*>(data);
  size_t done = 0;
  int error = 0;
  while (done < size) {
    ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = errno != 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    Throw(ErrorCode::kInternal, what, ": cannot write '", path, "': ", std::strerror(error));
  }
}

std::vector<uint8_t> ReadWholeFile(const std::string& path, const std::string& what, int64_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) Throw(ErrorCode::kNotFound, what, " ", Quoted(path), ": cannot open the file");
  std::streamoff size = in.tellg();
  if (size < 0) Throw(ErrorCode::kDataLoss, what, " ", Quoted(path), ": cannot tell the file's size");
  if (size > max_bytes) {
    Throw(ErrorCode::kResourceExhausted, what, " ", Quoted(path), ": the file has ", size, " bytes, more than the ",
          max_bytes, " this reader takes");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    Throw(ErrorCode::kDataLoss, what, " ", Quoted(path), ": error while reading the file");
  }
  return bytes;
}

}  // namespace rxt
