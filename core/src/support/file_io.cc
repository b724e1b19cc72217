#include "rxt/support/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "rxt/support/error.h"

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

std::vector<uint8_t> ReadWholeFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Throw(ErrorCode::kNotFound, what, " '", path, "': cannot open the file");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace rxt
