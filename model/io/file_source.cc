#include "model/io/file_source.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace zerosim::io {

StatusOr<std::string> DiskFileSource::Read(const std::string& path) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(fmt::format("{}: cannot open file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::Error(fmt::format("{}: read error", path));
  return ss.str();
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
