#include "study/number_text.h"

#include <cmath>

#include <fmt/format.h>

namespace zerosim::study {

std::string GroupedNumber(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  std::string text = fmt::format("{:.{}f}", std::abs(v), decimals);
  const size_t point = text.find('.');
  const size_t digits = point == std::string::npos ? text.size() : point;
  std::string out;
  for (size_t i = 0; i < digits; ++i) {
    if (i > 0 && (digits - i) % 3 == 0) out += ',';
    out += text[i];
  }
  out += text.substr(digits);
  // A value that rounds to zero prints without a sign.
  const bool zero = out.find_first_not_of("0.,") == std::string::npos;
  return v < 0 && !zero ? "-" + out : out;
}

}  // namespace zerosim::study
