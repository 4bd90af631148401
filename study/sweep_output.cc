#include "study/sweep_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "study/output_format.h"

namespace zerosim::study {
namespace {

constexpr const char* kLockedMessage =
    "is being written by another zerosim process (a sweep, or a plan or run writing this file, holds its "
    "lock); "
    "wait for it or write to another file";

// Closes `fd` and, when set, removes `path`; returns `st`.
Status Abandon(int fd, const std::string& remove, Status st) {
  if (fd >= 0) close(fd);
  if (!remove.empty()) unlink(remove.c_str());
  return st;
}

}  // namespace

SweepOutput::~SweepOutput() {
  if (file_ != nullptr && file_ != stdout) std::fclose(file_);
}

Status SweepOutput::Open(const std::string& path) {
  path_ = path;
  if (path.empty() || path == "-") {
    file_ = stdout;
    path_ = "stdout";
    return Status::Ok();
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::Error(fmt::format("{} is a directory: -o wants a file", path));
  }
  file_ = std::fopen(path.c_str(), "ab");
  if (file_ == nullptr)
    return Status::Error(fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
  if (fstat(fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) {
    regular_ = true;
    if (flock(fileno(file_), LOCK_EX | LOCK_NB) != 0) {
      return Status::Error(fmt::format("{}: {}", path, kLockedMessage));
    }
  }
  return Status::Ok();
}

Status SweepOutput::Write(const std::string& rows) { return WriteStream(file_, rows, path_); }

Status SweepOutput::Close() {
  if (file_ == nullptr || file_ == stdout) return Status::Ok();
  const int rc = std::fclose(file_);  // releases the lock
  file_ = nullptr;
  if (rc != 0) return Status::Error(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  return Status::Ok();
}

}  // namespace zerosim::study

namespace zerosim::study {

Status ReplaceFile(const std::string& path, const std::string& text) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return Status::Error(fmt::format("{} is a directory: name a file", path));
    // A device or a pipe (/dev/stdout, a FIFO): written in place; renaming over it would replace the node.
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr)
      return Status::Error(fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
    Status written = WriteStream(f, text, path);
    if (std::fclose(f) != 0 && written.ok()) {
      written = Status::Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    return written;
  }
  // The file the name resolves to (a symbolic link is followed, as writing through it would).
  std::string target = path;
  if (char* real = realpath(path.c_str(), nullptr); real != nullptr) {
    target = real;
    std::free(real);
  }
  // The lock: the file itself, opened without truncating (created empty when missing, and removed again if
  // the write fails), locked as SweepOutput::Open locks it.
  bool created = false;
  int lock = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (lock >= 0) {
    created = true;
  } else if (errno == EEXIST) {
    lock = open(target.c_str(), O_WRONLY | O_CLOEXEC);
  }
  if (lock < 0)
    return Status::Error(fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
  const std::string created_path = created ? target : "";
  if (flock(lock, LOCK_EX | LOCK_NB) != 0)
    return Abandon(lock, "", Status::Error(fmt::format("{}: {}", path, kLockedMessage)));
  // The text goes to a temporary file beside it, renamed over it once complete: a failure (a full disk, a
  // signal) leaves the old file or none, never a cut-off one.
  struct stat locked {};
  fstat(lock, &locked);
  const size_t slash = target.rfind('/');
  std::string temp = (slash == std::string::npos ? std::string() : target.substr(0, slash + 1)) + "." +
                     target.substr(slash == std::string::npos ? 0 : slash + 1) + ".XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) {
    return Abandon(lock, created_path,
                   Status::Error(fmt::format("cannot create a temporary file beside {}: {}", path,
                                             std::strerror(errno))));
  }
  // The permissions the file has (or a new file would get: 0666 less the umask).
  fchmod(fd, locked.st_mode & 07777);
  std::FILE* f = fdopen(fd, "wb");
  if (f == nullptr) {
    close(fd);
    unlink(temp.c_str());
    return Abandon(lock, created_path,
                   Status::Error(fmt::format("cannot write {}: {}", path, std::strerror(errno))));
  }
  Status written = WriteStream(f, text, path);
  if (written.ok() && fsync(fileno(f)) != 0) {
    written = Status::Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  if (std::fclose(f) != 0 && written.ok()) {
    written = Status::Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  if (written.ok() && rename(temp.c_str(), target.c_str()) != 0) {
    written = Status::Error(fmt::format("cannot replace {}: {}", path, std::strerror(errno)));
  }
  if (!written.ok()) {
    unlink(temp.c_str());
    return Abandon(lock, created_path, written);
  }
  close(lock);  // releases the lock, on the file the rename replaced
  return Status::Ok();
}

}  // namespace zerosim::study
