// How deep a TOML text nests, read before toml++ parses it: toml++ builds, walks and destroys its tree
// recursively, so a dotted key or table header of tens of thousands of parts ("a.a.a...", 68 KB) overflows
// the stack inside the library. ParseToml (table_reader.h) refuses such a text first.
#pragma once

#include <optional>
#include <string_view>

namespace zerosim::io {

// The deepest a TOML input may nest: the parts of its table header, of every dotted key on the way to a
// value, and one level per array (ZeroSim's inputs nest three or four levels; toml++ alone caps nested
// arrays and inline tables at 256, not keys).
inline constexpr int kMaxTomlNesting = 128;

// The 1-based line of `text` (TOML) where a value first nests more than `limit` levels below the root:
// a table header's parts (an array of tables counts one more), plus a key's dotted parts, plus one for each
// enclosing array, plus the keys of enclosing inline tables. Nothing when no value is that deep, and
// nothing from the first point the text stops being TOML the scanner can follow (toml++ reports the
// syntax error). Strings and comments are skipped (dots and brackets in them count for nothing). Runs
// in time linear in the text and recursion bounded by `limit`.
std::optional<int> LineNestedDeeperThan(std::string_view text, int limit = kMaxTomlNesting);

// The same place as a line and a 1-based column (in bytes), for a file:line:column message.
struct TomlPlace {
  int line = 0;
  int column = 0;
};
std::optional<TomlPlace> PlaceNestedDeeperThan(std::string_view text, int limit = kMaxTomlNesting);

}  // namespace zerosim::io
