#include "study/csv_record.h"

namespace zerosim::study {

std::optional<std::pair<std::vector<std::string>, size_t>> CsvRecord(const std::string& text, size_t pos) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = pos; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch != '"') {
        cells.back() += ch;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      cells.emplace_back();
    } else if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      return std::make_pair(std::move(cells), i + 2);
    } else {
      cells.back() += ch;
    }
  }
  return std::nullopt;
}

}  // namespace zerosim::study
