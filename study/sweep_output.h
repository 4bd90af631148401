// A sweep's output file: opened for appending and locked (flock) against a second sweep writing it; every
// write checked (a full disk is an error, not a cut-off row). "" and "-" mean stdout. And the whole-file
// outputs of the other commands (ReplaceFile), under the same lock.
#pragma once

#include <cstdio>
#include <string>

#include "model/status.h"

namespace zerosim::study {

class SweepOutput {
 public:
  SweepOutput() = default;
  SweepOutput(const SweepOutput&) = delete;
  SweepOutput& operator=(const SweepOutput&) = delete;
  ~SweepOutput();
  // Opens `path` ("" or "-": stdout). Errors: a directory, a file that cannot be opened, a regular file
  // locked by another sweep.
  Status Open(const std::string& path);
  // Resuming reads a regular file only (not a device or a pipe).
  bool resumable() const { return regular_; }
  // Appends `rows` and flushes. Errors: a failed or short write.
  Status Write(const std::string& rows);
  // Closes the file (releasing the lock). Errors: a failed close (the last write did not reach the disk).
  Status Close();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool regular_ = false;
};

// Writes `text` as the file `path` (run --json and --trace, plan --jsonl, validate's outputs): into a
// temporary file in the same directory, renamed over `path` once written and flushed to disk, so that a
// failure (a full disk) leaves the old file or none, never a cut-off one. Holds the file's lock meanwhile,
// the lock SweepOutput takes: a sweep, plan or run writing the same file refuses the second writer instead of
// losing its rows. A device or a pipe is written in place; a symbolic link is followed. Errors: a directory,
// the lock held elsewhere, a file that cannot be opened, written or replaced, each with the system's reason.
Status ReplaceFile(const std::string& path, const std::string& text);

}  // namespace zerosim::study
