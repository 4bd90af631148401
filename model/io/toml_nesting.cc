#include "model/io/toml_nesting.h"

namespace zerosim::io {

namespace {

// A scanner over TOML 1.0's structure (keys, table headers, strings, arrays, inline tables, comments):
// enough to count how deep each value sits, not to check values. Each Scan* returns false where the text
// stops being TOML it can follow (the scan ends there) or where a value is too deep (`deep_line` set).
class NestingScanner {
 public:
  NestingScanner(std::string_view text, int limit) : t_(text), limit_(limit) {}
  int deep_column() const { return deep_column_; }

  std::optional<int> Run() {
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a UTF-8 byte order mark
    int table_depth = 0;  // the current table header's depth
    while (i_ < t_.size()) {
      SkipSpaces();
      if (i_ >= t_.size()) break;
      const char c = t_[i_];
      if (c == '#') {
        SkipComment();
      } else if (c == '\n') {
        ++line_;
        ++i_;
      } else if (c == '\r') {
        ++i_;
      } else if (c == '[') {
        // [a.b] or [[a.b]] (an array of tables: the array, then its table).
        const bool array = At(i_ + 1) == '[';
        i_ += array ? 2 : 1;
        int parts = 0;
        if (!ScanKey(&parts)) break;
        table_depth = parts + (array ? 1 : 0);
        if (TooDeep(table_depth)) break;
        SkipSpaces();
        if (At(i_) != ']' || (array && At(i_ + 1) != ']')) break;
        i_ += array ? 2 : 1;
      } else {
        if (!ScanKeyValue(table_depth)) break;
      }
    }
    return deep_line_;
  }

 private:
  char At(size_t i) const { return i < t_.size() ? t_[i] : '\0'; }
  static bool Bare(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  }
  void SkipSpaces() {
    while (At(i_) == ' ' || At(i_) == '\t') ++i_;
  }
  void SkipComment() {
    while (i_ < t_.size() && t_[i_] != '\n') ++i_;
  }
  // Spaces, comments and newlines (between an array's values).
  void SkipBlank() {
    for (;;) {
      SkipSpaces();
      if (At(i_) == '#') {
        SkipComment();
      } else if (At(i_) == '\n') {
        ++line_;
        ++i_;
      } else if (At(i_) == '\r') {
        ++i_;
      } else {
        return;
      }
    }
  }
  bool TooDeep(int depth) {
    if (depth <= limit_) return false;
    deep_line_ = line_;
    const size_t nl = i_ == 0 ? std::string_view::npos : t_.rfind('\n', i_ - 1);
    deep_column_ = static_cast<int>(nl == std::string_view::npos ? i_ + 1 : i_ - nl);
    return true;
  }

  // A string at i_ ("...", '...', """...""" or '''...'''); `multiline` allowed in values, not in keys.
  bool ScanString(bool multiline) {
    const char q = t_[i_];
    if (At(i_ + 1) == q && At(i_ + 2) == q) {
      if (!multiline) return false;
      for (i_ += 3; i_ < t_.size(); ++i_) {
        if (t_[i_] == '\n') ++line_;
        if (q == '"' && t_[i_] == '\\') {
          if (At(i_ + 1) == '\n') ++line_;
          ++i_;
        } else if (t_[i_] == q && At(i_ + 1) == q && At(i_ + 2) == q) {
          i_ += 3;
          for (int extra = 0; extra < 2 && At(i_) == q; ++extra) ++i_;  // """a"""" ends in a quote
          return true;
        }
      }
      return false;
    }
    for (++i_; i_ < t_.size() && t_[i_] != '\n'; ++i_) {
      if (q == '"' && t_[i_] == '\\') {
        ++i_;
      } else if (t_[i_] == q) {
        ++i_;
        return true;
      }
    }
    return false;
  }

  // A key: parts (bare or quoted) joined by dots, spaces around the dots allowed.
  bool ScanKey(int* parts) {
    *parts = 0;
    for (;;) {
      SkipSpaces();
      if (At(i_) == '"' || At(i_) == '\'') {
        if (!ScanString(false)) return false;
      } else {
        const size_t start = i_;
        while (Bare(At(i_))) ++i_;
        if (i_ == start) return false;
      }
      ++*parts;
      SkipSpaces();
      if (At(i_) != '.') return true;
      ++i_;
    }
  }

  // key = value, the key's parts below `depth`.
  bool ScanKeyValue(int depth) {
    int parts = 0;
    if (!ScanKey(&parts)) return false;
    if (TooDeep(depth + parts)) return false;
    SkipSpaces();
    if (At(i_) != '=') return false;
    ++i_;
    return ScanValue(depth + parts);
  }

  // A value at `depth` (its own level). Recursion: each array or inline table one level deeper, at most
  // `limit_` levels.
  bool ScanValue(int depth) {
    SkipSpaces();
    const char c = At(i_);
    if (c == '"' || c == '\'') return ScanString(true);
    if (c == '[') {
      ++i_;
      for (;;) {
        SkipBlank();
        if (At(i_) == ']') break;
        if (TooDeep(depth + 1) || !ScanValue(depth + 1)) return false;
        SkipBlank();
        if (At(i_) == ',') {
          ++i_;
        } else if (At(i_) != ']') {
          return false;
        }
      }
      ++i_;
      return true;
    }
    if (c == '{') {
      ++i_;
      SkipSpaces();
      if (At(i_) == '}') {
        ++i_;
        return true;
      }
      for (;;) {
        if (!ScanKeyValue(depth)) return false;
        SkipSpaces();
        if (At(i_) == '}') {
          ++i_;
          return true;
        }
        if (At(i_) != ',') return false;
        ++i_;
      }
    }
    // A number, boolean or date (which may hold a space): up to what ends a value.
    const size_t start = i_;
    while (i_ < t_.size()) {
      const char d = t_[i_];
      if (d == ',' || d == ']' || d == '}' || d == '\n' || d == '\r' || d == '#') break;
      ++i_;
    }
    return i_ > start;
  }

  std::string_view t_;
  int limit_;
  size_t i_ = 0;
  int line_ = 1;
  std::optional<int> deep_line_;
  int deep_column_ = 0;  // of the value that is too deep, with deep_line_
};

}  // namespace

std::optional<int> LineNestedDeeperThan(std::string_view text, int limit) {
  return NestingScanner(text, limit).Run();
}

std::optional<TomlPlace> PlaceNestedDeeperThan(std::string_view text, int limit) {
  NestingScanner scanner(text, limit);
  const std::optional<int> line = scanner.Run();
  if (!line) return std::nullopt;
  return TomlPlace{*line, scanner.deep_column()};
}

}  // namespace zerosim::io
