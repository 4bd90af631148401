#include "study/sweep_output.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "study/output_format.h"

namespace zerosim::study {

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
      return Status::Error(
          fmt::format("{} is being written by another sweep (it holds the file's lock); wait for "
                      "it or write to another file",
                      path));
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
