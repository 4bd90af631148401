// Formatting that read wrong (issue 20 item 6): "(0.75x less than ZeRO-3)" for a variant that moves more bytes,
// table cells as wide as their column running into the one before, amounts of money in exponent notation.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/default_report.h"
#include "model/io/report_table.h"
#include "study/number_text.h"

namespace zerosim::io {
namespace {

// The numbers of every "(N.NNx less than" in `text`. A scan, not <regex>: GCC 12 under the sanitizer flags
// (./dev.sh asan) reports -Werror=maybe-uninitialized inside libstdc++'s <regex>, a false positive of
// its own headers.
std::vector<std::string> LessRatios(const std::string& text) {
  std::vector<std::string> out;
  const std::string marker = "x less than";
  for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    size_t begin = at;
    while (begin > 0 &&
           (std::isdigit(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '.')) {
      --begin;
    }
    if (begin > 0 && begin < at && text[begin - 1] == '(') out.push_back(text.substr(begin, at - begin));
  }
  return out;
}

// ZeRO++ first, then ZeRO-3: ZeRO-3 moves about 4x the cross-node bytes of its baseline.
TEST(ReadableOutput, AVolumeAboveItsBaselineIsMoreNeverLessBelowOne) {
  model::Report r = DefaultReport();
  std::swap(r.variants[0], r.variants[1]);
  ASSERT_GT(r.variants[1].bytes.cross_node.total(), r.variants[0].bytes.cross_node.total());
  const std::string table = FormatReportTable(r);
  const std::vector<std::string> less = LessRatios(table);
  for (const std::string& x : less) EXPECT_GE(std::stod(x), 1.0) << x << "x less than";
  const double ratio = r.variants[1].bytes.cross_node.total() / r.variants[0].bytes.cross_node.total();
  EXPECT_NE(table.find(fmt::format("({:.2f}x more than {})", ratio, r.variants[0].name)), std::string::npos)
      << table;
  // The usual order reads "less".
  const std::string usual = FormatReportTable(DefaultReport());
  EXPECT_NE(usual.find(fmt::format("({:.2f}x less than ZeRO-3)", ratio)), std::string::npos) << usual;
  EXPECT_EQ(LessRatios(usual), std::vector<std::string>{fmt::format("{:.2f}", ratio)})
      << usual;  // the scan sees it
}

TEST(ReadableOutput, ACellAsWideAsItsColumnStaysApartFromTheOneBefore) {
  model::Report r = DefaultReport();
  r.variants[0].band = {"", "V100 deepspeed comm", 0, 0.5, 1.2, false, "outside"};
  r.variants[1].band = {"H100 fsdp compute", "H100 fsdp compute", 44, 0.9, 1.1, true, ""};
  const std::string table = FormatReportTable(r);
  EXPECT_NE(table.find("outside (widest) H100 fsdp compute n44"), std::string::npos) << table;
}

TEST(ReadableOutput, NumbersAreGroupedInThousandsNeverInExponents) {
  EXPECT_EQ(study::GroupedNumber(752437.4), "752,437");
  EXPECT_EQ(study::GroupedNumber(1069), "1,069");
  EXPECT_EQ(study::GroupedNumber(999), "999");
  EXPECT_EQ(study::GroupedNumber(1e9), "1,000,000,000");
  EXPECT_EQ(study::GroupedNumber(-1234.5, 1), "-1,234.5");
  EXPECT_EQ(study::GroupedNumber(-0.2), "0");
  EXPECT_EQ(study::GroupedNumber(0.535, 3), "0.535");
}

}  // namespace
}  // namespace zerosim::io
