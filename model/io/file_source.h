// FileSource: where input files come from (after ninja's DiskInterface). The loaders read through it, so
// tests parse from strings and `zerosim run` with no argument reads the embedded default scenario.
// Paths inside input files are relative to the file that names them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "model/status.h"

namespace zerosim::io {

class FileSource {
 public:
  virtual ~FileSource() = default;
  // The file's bytes, or an error naming the path.
  virtual zerosim::StatusOr<std::string> Read(const std::string& path) const = 0;
};

// The largest input file ZeroSim reads (the shipped ones are a few kilobytes).
inline constexpr uint64_t kMaxInputBytes = uint64_t{16} << 20;

// Reads the local file system: regular files only (a directory, device, FIFO or socket is an error, so
// /dev/zero or a pipe never hangs a load), at most kMaxInputBytes.
class DiskFileSource : public FileSource {
 public:
  zerosim::StatusOr<std::string> Read(const std::string& path) const override;
};

// Reads from a map of path -> contents (tests, embedded inputs).
class MemoryFileSource : public FileSource {
 public:
  explicit MemoryFileSource(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  zerosim::StatusOr<std::string> Read(const std::string& path) const override;

 private:
  std::map<std::string, std::string> files_;
};

// `relative` resolved against the directory of `from_file`, normalised lexically ("a/b/../c" -> "a/c").
// Absolute `relative` paths are returned normalised.
std::string ResolvePath(const std::string& from_file, const std::string& relative);

// "fnv1a64:<16 hex digits>" of `bytes` (FNV-1a, 64 bit): a stable fingerprint for provenance.
std::string HashBytes(const std::string& bytes);

}  // namespace zerosim::io
