#include "model/io/file_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace zerosim::io {

StatusOr<std::string> DiskFileSource::Read(const std::string& path) const {
  // Checked before opening: opening a FIFO blocks, and /dev/zero never ends.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Status::Error(fmt::format("{}: cannot open file: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return Status::Error(fmt::format("{}: is a directory, not an input file", path));
  if (!S_ISREG(st.st_mode)) {
    return Status::Error(fmt::format("{}: not a regular file (a device, FIFO or socket): inputs are files", path));
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxInputBytes) {
    return Status::Error(fmt::format("{}: {} bytes, larger than any ZeroSim input may be ({} MiB)", path, st.st_size,
                                     kMaxInputBytes >> 20));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(fmt::format("{}: cannot open file", path));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad() || static_cast<size_t>(in.gcount()) != text.size()) {
    return Status::Error(fmt::format("{}: read error", path));
  }
  return text;
}

StatusOr<std::string> MemoryFileSource::Read(const std::string& path) const {
  const auto it = files_.find(path);
  if (it == files_.end()) return Status::Error(fmt::format("{}: no such file", path));
  return it->second;
}

std::string ResolvePath(const std::string& from_file, const std::string& relative) {
  const std::filesystem::path rel(relative);
  if (rel.is_absolute()) return rel.lexically_normal().string();
  const std::filesystem::path base = std::filesystem::path(from_file).parent_path();
  return (base / rel).lexically_normal().string();
}

std::string HashBytes(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;  // FNV prime
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

}  // namespace zerosim::io
