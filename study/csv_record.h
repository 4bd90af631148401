// One CSV record (RFC 4180: quoted cells, "" inside quotes, CRLF record ends) read from a text, as
// `zerosim sweep --format csv` writes them (study/sweep_rows.h). Shared by resuming and the summary.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zerosim::study {

// The record starting at `pos`: its cells, and the position after its CRLF; nullopt when the text ends
// inside it (a torn record).
std::optional<std::pair<std::vector<std::string>, size_t>> CsvRecord(const std::string& text, size_t pos);

}  // namespace zerosim::study
