// A sweep's output file: opened for appending and locked (flock) against a second sweep writing it; every
// write checked (a full disk is an error, not a cut-off row). "" and "-" mean stdout.
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

}  // namespace zerosim::study
