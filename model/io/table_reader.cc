#include "model/io/table_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "model/io/toml_nesting.h"

namespace zerosim::io {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {

// The key `line` (1-based) of `text` assigns ("gradient_accumulation_steps" of
// "gradient_accumulation_steps = 99999999999999999999"), so that a value toml++ cannot read (an integer
// beyond 64 bits) is named by its key; empty when the line is no plain `key = value`.
std::string KeyOfLine(std::string_view text, size_t line) {
  size_t begin = 0;
  for (size_t n = 1; n < line && begin != std::string_view::npos; ++n) {
    begin = text.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return "";
  const std::string_view rest = text.substr(begin, text.find('\n', begin) - begin);
  const size_t start = rest.find_first_not_of(" \t");
  if (start == std::string_view::npos) return "";
  size_t end = start;
  while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_' ||
                               rest[end] == '-' || rest[end] == '.')) {
    ++end;
  }
  const size_t eq = rest.find_first_not_of(" \t", end);
  if (end == start || eq == std::string_view::npos || rest[eq] != '=') return "";
  return std::string(rest.substr(start, end - start));
}

}  // namespace

StatusOr<toml::table> ParseToml(const std::string& text, const std::string& file) {
  // Bounded before toml++ sees it: the library recurses once per level (toml_nesting.h).
  if (const std::optional<TomlPlace> at = PlaceNestedDeeperThan(text)) {
    return Status::Error(
        fmt::format("{}:{}:{}: keys, tables and arrays nest more than {} levels deep here "
                    "(ZeroSim's inputs nest a few levels): not read",
                    file, at->line, at->column, kMaxTomlNesting));
  }
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    const std::string key = KeyOfLine(text, static_cast<size_t>(e.source().begin.line));
    return Status::Error(fmt::format("{}:{}:{}: {}{}", file, e.source().begin.line, e.source().begin.column,
                                     key.empty() ? "" : key + ": ", e.description()));
  }
}

StatusOr<TomlFile> ReadTomlFile(const FileSource& fs, const std::string& path) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  StatusOr<toml::table> doc = ParseToml(*text, path);
  if (!doc.ok()) return doc.status();
  return TomlFile{std::move(doc).value(), {path, HashBytes(*text)}};
}

TableReader::TableReader(const toml::table* table, std::string file, std::string name, Status* status)
    : table_(table), file_(std::move(file)), name_(std::move(name)), status_(status) {}

bool TableReader::Has(std::string_view key) const { return table_ != nullptr && table_->contains(key); }

std::string TableReader::Where(const toml::node* node) const {
  const toml::node* n = node ? node : table_;
  if (n == nullptr || !n->source().begin) return file_;
  return fmt::format("{}:{}:{}", file_, n->source().begin.line, n->source().begin.column);
}

std::string TableReader::KeyName(std::string_view key) const {
  return name_.empty() ? std::string(key) : fmt::format("[{}] {}", name_, key);
}

void TableReader::Fail(std::string_view key, const std::string& message) {
  if (!status_->ok()) return;
  *status_ = Status::Error(fmt::format("{}: {}", Place(key), message));
}

std::string TableReader::Place(std::string_view key) const {
  const toml::node* node = table_ != nullptr ? table_->get(key) : nullptr;
  return fmt::format("{}: {}", Where(node), KeyName(key));
}

Status TableReader::Referred(std::string_view key, const Status& referred) const {
  return Status::Error(fmt::format("{}: {}", Place(key), referred.message()));
}

void TableReader::Missing(std::string_view key) {
  if (!status_->ok() || table_ == nullptr) return;
  // A key of the table that is one or two edits away is most likely this key misspelled: say so, there.
  for (const auto& [k, node] : *table_) {
    const size_t d = EditDistance(k.str(), key);
    if (d > 0 && d <= 2 && known_.count(k.str()) == 0) {
      *status_ = Status::Error(fmt::format("{}:{}:{}: {}: unknown key (did you mean '{}'?)", file_,
                                           node.source().begin.line, node.source().begin.column, KeyName(k.str()), key));
      return;
    }
  }
  const std::string table = name_.empty() ? "the top level" : fmt::format("[{}]", name_);
  *status_ = Status::Error(fmt::format("{}: missing key '{}' in {}", Where(nullptr), key, table));
}

const toml::node* TableReader::Get(std::string_view key) {
  known_.emplace(key);
  return table_ != nullptr ? table_->get(key) : nullptr;
}

std::string TableReader::String(std::string_view key) {
  if (auto v = OptionalString(key)) return *v;
  Missing(key);
  return "";
}

std::optional<std::string> TableReader::OptionalString(std::string_view key) {
  const toml::node* n = Get(key);
  if (n == nullptr) return std::nullopt;
  if (!n->is_string()) {
    Fail(key, "expected a string");
    return std::string();
  }
  return std::string(n->as_string()->get());
}

std::string TableReader::FileName(std::string_view key) {
  if (auto v = OptionalFileName(key)) return *v;
  Missing(key);
  return "";
}

std::optional<std::string> TableReader::OptionalFileName(std::string_view key) {
  std::optional<std::string> name = OptionalString(key);
  if (name && name->empty() && table_->get(key)->is_string()) {
    Fail(key, fmt::format("an empty string names no file: give a path (relative to {})", file_));
  }
  return name;
}

bool TableReader::Require(std::string_view key) {
  if (Has(key)) return true;
  Get(key);  // known, for "did you mean"
  Missing(key);
  return false;
}

template <typename T>
T TableReader::Clamped(std::string_view key, T v, T min, T max) {
  // Integers as they are written; doubles as %g (1e+07), as the messages always printed them.
  auto text = [](T x) {
    if constexpr (std::is_integral_v<T>) {
      return fmt::format("{}", x);
    } else {
      return fmt::format("{:g}", x);
    }
  };
  if (v < min) {
    Fail(key, fmt::format("must be at least {}, got {}", text(min), text(v)));
    return min;
  }
  if (v > max) {
    Fail(key, fmt::format("must be at most {}, got {}", text(max), text(v)));
    return max;
  }
  return v;
}

int64_t TableReader::Int(std::string_view key, int64_t min, int64_t max) {
  return Require(key) ? IntOr(key, min, min, max) : min;
}

int64_t TableReader::IntOr(std::string_view key, int64_t fallback, int64_t min, int64_t max) {
  const toml::node* n = Get(key);
  if (n == nullptr) return fallback;
  if (!n->is_integer()) {
    Fail(key, "expected an integer");
    return fallback;
  }
  return Clamped(key, static_cast<int64_t>(n->as_integer()->get()), min, max);
}

double TableReader::Count(std::string_view key, double min, double max) {
  return Require(key) ? CountOr(key, min, min, max) : min;
}

double TableReader::CountOr(std::string_view key, double fallback, double min, double max) {
  const toml::node* n = Get(key);
  if (n == nullptr) return fallback;
  double v = 0;
  if (n->is_integer()) {
    v = static_cast<double>(n->as_integer()->get());
  } else if (n->is_floating_point()) {
    v = n->as_floating_point()->get();
    if (!std::isfinite(v) || v != std::floor(v)) {
      Fail(key, fmt::format("expected a whole number of elements, got {}", v));
      return fallback;
    }
  } else {
    Fail(key, "expected a number (e.g. 5e7)");
    return fallback;
  }
  return Clamped(key, v, min, max);
}

double TableReader::NumberOr(std::string_view key, double fallback, double min, double max) {
  const toml::node* n = Get(key);
  if (n == nullptr) return fallback;
  double v = 0;
  if (n->is_integer()) {
    v = static_cast<double>(n->as_integer()->get());
  } else if (n->is_floating_point()) {
    v = n->as_floating_point()->get();
  } else {
    Fail(key, "expected a number");
    return fallback;
  }
  if (!(v >= min && v <= max)) {
    Fail(key, fmt::format("must be between {:g} and {:g}, got {:g}", min, max, v));
    return fallback;
  }
  return v;
}

bool TableReader::Bool(std::string_view key) { return Require(key) && BoolOr(key, false); }

bool TableReader::BoolOr(std::string_view key, bool fallback) {
  const toml::node* n = Get(key);
  if (n == nullptr) return fallback;
  if (!n->is_boolean()) {
    Fail(key, "expected true or false");
    return fallback;
  }
  return n->as_boolean()->get();
}

double TableReader::Quantity(std::string_view key, Dimension d, bool positive) {
  return Require(key) ? QuantityOr(key, d, 1, positive) : 1;
}

double TableReader::QuantityOr(std::string_view key, Dimension d, double fallback, bool positive) {
  const toml::node* n = Get(key);
  if (n == nullptr) return fallback;
  if (!n->is_string()) {
    Fail(key, fmt::format("expected {} as a string with a unit, like \"{}\"", DimensionName(d),
                          d == Dimension::kBandwidth ? "100Gbps"
                          : d == Dimension::kTime    ? "2us"
                          : d == Dimension::kBytes   ? "32GiB"
                                                     : "125TFLOPs"));
    return fallback;
  }
  StatusOr<double> v = ParseQuantity(n->as_string()->get(), d);
  if (!v.ok()) {
    Fail(key, v.status().message());
    return fallback;
  }
  if (positive && *v <= 0) {
    Fail(key, "must be greater than zero");
    return fallback;
  }
  return *v;
}

TableReader TableReader::Table(std::string_view key) {
  std::optional<TableReader> t = OptionalTable(key);
  if (t) return *t;
  Missing(key);
  return TableReader(nullptr, file_, std::string(key), status_);
}

std::optional<TableReader> TableReader::OptionalTable(std::string_view key) {
  const toml::node* n = Get(key);
  if (n == nullptr) return std::nullopt;
  if (!n->is_table()) {
    Fail(key, "expected a table");
    return TableReader(nullptr, file_, std::string(key), status_);
  }
  const std::string sub = name_.empty() ? std::string(key) : fmt::format("{}.{}", name_, key);
  return TableReader(n->as_table(), file_, sub, status_);
}

void TableReader::Finish() {
  if (table_ == nullptr || !status_->ok()) return;
  for (const auto& [k, node] : *table_) {
    const std::string_view key = k.str();
    if (known_.count(key) > 0) continue;
    std::string best;
    size_t best_d = 3;  // suggest only close matches
    for (const std::string& cand : known_) {
      const size_t d = EditDistance(key, cand);
      if (d < best_d) {
        best_d = d;
        best = cand;
      }
    }
    std::string msg = "unknown key";
    if (!best.empty()) msg += fmt::format(" (did you mean '{}'?)", best);
    const std::string where = node.source().begin
                                  ? fmt::format("{}:{}:{}", file_, node.source().begin.line, node.source().begin.column)
                                  : file_;
    *status_ = Status::Error(fmt::format("{}: {}: {}", where, KeyName(key), msg));
    return;
  }
}

}  // namespace zerosim::io
