#include "isolated.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "options.h"

namespace rxt::import_torchscript {
namespace {

/// Writes all of |size| bytes to |fd|; false when the reader is gone.
bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool WriteU64(int fd, uint64_t v) { return WriteAll(fd, &v, sizeof v); }
bool WriteString(int fd, const std::string& s) { return WriteU64(fd, s.size()) && WriteAll(fd, s.data(), s.size()); }

/// The reply: 'R', the text, the values (name, dtype, shape, bytes); or 'E' and an ImportError's
/// message; or 'I' and another exception's.
void Reply(int fd, const std::function<ImportedModule()>& work) {
  char kind = 'R';
  std::string message;
  ImportedModule imported;
  try {
    imported = work();
  } catch (const ImportError& e) {
    kind = 'E';
    message = e.what();
  } catch (const std::exception& e) {
    kind = 'I';
    message = e.what();
  }
  if (!WriteAll(fd, &kind, 1)) return;
  if (kind != 'R') {
    WriteString(fd, message);
    return;
  }
  if (!WriteString(fd, imported.text) || !WriteU64(fd, imported.values.size())) return;
  for (TensorValue& v : imported.values) {
    const uint8_t dtype[2] = {v.dtype_code, v.dtype_bits};
    if (!WriteString(fd, v.name) || !WriteAll(fd, dtype, 2) || !WriteU64(fd, v.shape.size()) ||
        !WriteAll(fd, v.shape.data(), v.shape.size() * sizeof(int64_t)) || !WriteString(fd, v.bytes)) {
      return;
    }
    std::string().swap(v.bytes);
  }
}

/// Reads the child's reply; false when it ends early or is malformed.
class ReplyReader {
 public:
  explicit ReplyReader(int fd) : fd_(fd) {}
  bool Read(void* out, size_t size) {
    char* p = static_cast<char*>(out);
    for (size_t done = 0; done < size;) {
      const ssize_t n = ::read(fd_, p + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  bool ReadU64(uint64_t* v) { return Read(v, sizeof *v); }
  bool ReadString(std::string* s, uint64_t limit) {
    uint64_t size = 0;
    if (!ReadU64(&size) || size > limit) return false;
    s->resize(size);
    return Read(s->data(), size);
  }

 private:
  int fd_;
};

constexpr uint64_t kLimit = uint64_t(1) << 40;

bool ReadModule(ReplyReader& in, ImportedModule* out) {
  uint64_t count = 0;
  if (!in.ReadString(&out->text, kLimit) || !in.ReadU64(&count) || count > (uint64_t(1) << 24)) return false;
  out->values.resize(count);
  for (TensorValue& v : out->values) {
    uint8_t dtype[2];
    uint64_t ndim = 0;
    if (!in.ReadString(&v.name, 1 << 20) || !in.Read(dtype, 2) || !in.ReadU64(&ndim) || ndim > 64) return false;
    v.dtype_code = dtype[0];
    v.dtype_bits = dtype[1];
    v.shape.resize(ndim);
    if (!in.Read(v.shape.data(), ndim * sizeof(int64_t)) || !in.ReadString(&v.bytes, kLimit)) return false;
  }
  return true;
}

}  // namespace

ImportedModule RunIsolated(const std::function<ImportedModule()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) return work();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return work();
  }
  if (pid == 0) {
    ::close(fds[0]);
    // A crash is reported by the parent: the host's handlers (a backtrace printer) stay quiet.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    // glibc's and libtorch's own complaints ("free(): invalid size") stay out of the host's
    // one-line error: the parent reports the crash.
    if (const int null = ::open("/dev/null", O_WRONLY); null >= 0) ::dup2(null, STDERR_FILENO);
    Reply(fds[1], work);
    ::_exit(0);
  }
  ::close(fds[1]);
  ReplyReader in(fds[0]);
  char kind = 0;
  ImportedModule imported;
  std::string message;
  bool complete = in.Read(&kind, 1);
  if (complete) complete = kind == 'R' ? ReadModule(in, &imported) : in.ReadString(&message, 1 << 20);
  // What is left is drained so that the child can finish writing and exit.
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
    const std::string how =
        WIFSIGNALED(status) ? ::strsignal(WTERMSIG(status)) : "exit status " + std::to_string(WEXITSTATUS(status));
    throw ImportError("libtorch crashed (" + how + ") loading or converting the module: the file is malformed");
  }
  if (!complete || (kind != 'R' && kind != 'E' && kind != 'I')) {
    throw ImportError("the import gave no result (the child process running libtorch exited without a reply)");
  }
  if (kind == 'E') throw ImportError(message);
  if (kind == 'I') throw std::runtime_error(message);
  return imported;
}

}  // namespace rxt::import_torchscript
