// TableReader: strict, position-aware reading of one TOML table (after calculon's key sets and ninja's
// "did you mean"). Every getter names the key it accepts; Finish() reports any key nobody asked for, with
// the closest known key. Errors carry "file:line:col: [table] key: message". The first error of a file
// is kept in the shared Status; later getters return harmless defaults so loaders read straight through.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "model/io/file_source.h"
#include "model/io/quantity.h"
#include "model/report/report.h"
#include "model/status.h"

namespace zerosim::io {

class TableReader {
 public:
  // `name` is the table's dotted name ("" for the file's root table), used in messages.
  TableReader(const toml::table* table, std::string file, std::string name, Status* status);

  bool Has(std::string_view key) const;

  std::string String(std::string_view key);
  std::optional<std::string> OptionalString(std::string_view key);
  // A string naming a file (relative to this file): an error when empty, which names no file.
  std::string FileName(std::string_view key);
  std::optional<std::string> OptionalFileName(std::string_view key);
  // An integer in [min, max]; `max` defaults to the largest int, so that the result always fits the int
  // fields it is stored in. Out of range: an error, and the value clamped into the range (so that a loader
  // reading on never divides by zero or overflows).
  int64_t Int(std::string_view key, int64_t min, int64_t max = kIntMax);
  int64_t IntOr(std::string_view key, int64_t fallback, int64_t min, int64_t max = kIntMax);
  static constexpr int64_t kIntMax = 2147483647;
  // An integer or a float that holds a whole number (e.g. 5e7), in [min, max]; `max` defaults to 2^53,
  // the largest count a double holds exactly (and an int64 holds). Out of range: an error, clamped.
  double Count(std::string_view key, double min, double max = kCountMax);
  double CountOr(std::string_view key, double fallback, double min, double max = kCountMax);
  static constexpr double kCountMax = 9007199254740992.0;
  // A plain number (int or float) in [min, max].
  double NumberOr(std::string_view key, double fallback, double min, double max);
  bool Bool(std::string_view key);
  bool BoolOr(std::string_view key, bool fallback);
  // A quantity string with a unit of dimension `d`; `positive` rejects zero.
  double Quantity(std::string_view key, Dimension d, bool positive);
  double QuantityOr(std::string_view key, Dimension d, double fallback, bool positive);

  // A sub-table. A missing required table is an error; the reader returned then reads nothing.
  TableReader Table(std::string_view key);
  std::optional<TableReader> OptionalTable(std::string_view key);

  // Marks `key` as known without reading it (for keys read by other means).
  void MarkKnown(std::string_view key) { known_.emplace(key); }

  // Records an error about `key` (its position, or the table's when absent).
  void Fail(std::string_view key, const std::string& message);
  // Where `key` stands, as errors begin: "file:line:col: [table] key" (the table's position when absent).
  std::string Place(std::string_view key) const;
  // The error `referred` of loading a file that `key` names (a topology, model, calibration, base
  // scenario), after the key's place: a missing or broken referenced file also says who named it.
  Status Referred(std::string_view key, const Status& referred) const;
  // Reports keys no getter asked for. Call after reading every key.
  void Finish();

  const std::string& file() const { return file_; }

 private:
  const toml::node* Get(std::string_view key);
  // True if `key` is present; otherwise records it missing.
  bool Require(std::string_view key);
  std::string Where(const toml::node* node) const;
  std::string KeyName(std::string_view key) const;
  void Missing(std::string_view key);
  // `v` clamped into [min, max], with an error naming the bound it broke ("must be at least 3, got 1"; doubles
  // printed as %g).
  template <typename T>
  T Clamped(std::string_view key, T v, T min, T max);

  const toml::table* table_;
  std::string file_;
  std::string name_;
  Status* status_;
  std::set<std::string, std::less<>> known_;
};

// Levenshtein distance, for "did you mean".
size_t EditDistance(std::string_view a, std::string_view b);

// Parses TOML text; a syntax error becomes "file:line:col: message", and a text nested deeper than
// kMaxTomlNesting (toml_nesting.h; toml++ would overflow the stack) "file:line: ..." before toml++ sees it.
StatusOr<toml::table> ParseToml(const std::string& text, const std::string& file);

// An input file read through a FileSource and parsed, with its path and hash for provenance.
struct TomlFile {
  toml::table table;
  model::InputFile file;
};
StatusOr<TomlFile> ReadTomlFile(const FileSource& fs, const std::string& path);

}  // namespace zerosim::io
