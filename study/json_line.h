// A fast writer of one-line JSON objects with keys in insertion order, for sweep rows (thousands per
// second). Numbers use the shortest text that reads back to the same double (fmt), so rows are
// deterministic; strings are escaped by nlohmann_json (invalid UTF-8 replaced).
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zerosim::study {

class JsonLine {
 public:
  JsonLine& Add(std::string_view key, double v) { return Raw(key, std::isfinite(v) ? fmt::format("{}", v) : "null"); }
  JsonLine& Add(std::string_view key, int v) { return Raw(key, fmt::format("{}", v)); }
  JsonLine& Add(std::string_view key, size_t v) { return Raw(key, fmt::format("{}", v)); }
  JsonLine& Add(std::string_view key, bool v) { return Raw(key, v ? "true" : "false"); }
  JsonLine& Add(std::string_view key, std::string_view v) { return Raw(key, Quote(v)); }
  JsonLine& Add(std::string_view key, const char* v) { return Add(key, std::string_view(v)); }
  JsonLine& Add(std::string_view key, const JsonLine& object) { return Raw(key, object.str()); }
  // `json` must already be valid JSON text.
  JsonLine& Raw(std::string_view key, std::string_view json) {
    text_ += text_.empty() ? "{" : ",";
    text_ += Quote(key);
    text_ += ':';
    text_ += json;
    return *this;
  }
  // `members` must be `"key":value` pairs separated by commas (io::AppendRowMembers), or empty.
  JsonLine& Members(std::string_view members) {
    if (members.empty()) return *this;
    text_ += text_.empty() ? "{" : ",";
    text_ += members;
    return *this;
  }
  std::string str() const { return text_.empty() ? "{}" : text_ + "}"; }

 private:
  // A JSON string; bytes that are not UTF-8 (user paths and names) become U+FFFD instead of an exception.
  static std::string Quote(std::string_view s) {
    return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string text_;
};

}  // namespace zerosim::study
