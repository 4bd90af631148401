// Every shipped calibration file's compute efficiencies are fractions of peak and their source strings name
// the measurement each number comes from (docs/calibration.md, "The shipped files cite"): a sanity gate on
// the hand-written sources, not a closed form. A value edited without its source, or a source that quotes no
// measured rate, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "model/io/file_source.h"
#include "model/io/loaders.h"

namespace zerosim::io {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ShippedCalibrations() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(ZEROSIM_SOURCE_DIR) / "kernels/calibration")) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The value as a source string writes it ("0.803", "0.74"): printf's %g, the shortest form for these
// fractions.
std::string Printed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool IsFraction(double v) { return v > 0 && v <= 1; }

// Finds the first "X of Y TFLOPS" in `text` (X and Y decimal numbers); true with both and the quoted words.
bool FindRate(const std::string& text, double* x, double* y, std::string* quoted) {
  const auto is_num = [](char ch) { return (ch >= '0' && ch <= '9') || ch == '.'; };
  // The number that ends just before `end` (exclusive): its first index, or `end` when there is none.
  const auto number_before = [&](size_t end) {
    size_t b = end;
    while (b > 0 && is_num(text[b - 1])) --b;
    return b;
  };
  for (size_t at = text.find(" TFLOPS"); at != std::string::npos; at = text.find(" TFLOPS", at + 1)) {
    const size_t y_begin = number_before(at);
    if (y_begin == at || y_begin < 4 || text.compare(y_begin - 4, 4, " of ") != 0) continue;
    const size_t x_end = y_begin - 4;
    const size_t x_begin = number_before(x_end);
    if (x_begin == x_end) continue;
    *x = std::stod(text.substr(x_begin, x_end - x_begin));
    *y = std::stod(text.substr(y_begin, at - y_begin));
    *quoted = text.substr(x_begin, at + 7 - x_begin);
    return true;
  }
  return false;
}

// Checks that `source` opens with "<key> <value>:" and that its first clause (up to the first "; ") quotes a
// measured rate "X of Y TFLOPS" whose ratio is the value to the rounding a source uses (three decimals).
void ExpectNamesMeasurement(const std::string& file, const std::string& key, double value,
                            const std::string& source) {
  const std::string head = key + " " + Printed(value) + ":";
  EXPECT_EQ(source.rfind(head, 0), 0u)
      << file << ": " << key << "'s source should open with '" << head << "'";
  const std::string clause = source.substr(0, source.find("; "));
  // The first "X of Y TFLOPS" of the clause, read by hand: std::regex trips GCC 12's maybe-uninitialized
  // warning under the ASan build (-Werror).
  double x = 0, y = 0;
  std::string quoted;
  ASSERT_TRUE(FindRate(clause, &x, &y, &quoted))
      << file << ": " << key << "'s source quotes no measured rate 'X of Y TFLOPS': " << clause;
  const double ratio = x / y;
  EXPECT_NEAR(ratio, value, 0.0051) << file << ": " << key << " " << value << " is not " << quoted;
}

TEST(ShippedCalibration, EfficienciesAreFractionsAndSourcesNameTheirMeasurement) {
  const std::vector<std::string> files = ShippedCalibrations();
  std::set<std::string> gpus;
  for (const std::string& file : files) {
    StatusOr<model::Calibration> c = LoadCalibration(DiskFileSource(), file);
    ASSERT_TRUE(c.ok()) << c.status().message();
    gpus.insert(c->gpu);
    const model::ComputeEfficiency& e = c->compute;
    EXPECT_TRUE(IsFraction(e.gemm)) << file << ": gemm " << e.gemm;
    EXPECT_TRUE(IsFraction(e.attention_forward)) << file << ": attention_forward " << e.attention_forward;
    EXPECT_TRUE(IsFraction(e.attention_backward)) << file << ": attention_backward " << e.attention_backward;
    EXPECT_GE(e.kernel_gap_s, 0) << file;
    EXPECT_LT(e.kernel_gap_s, 1e-3) << file;
    ExpectNamesMeasurement(file, "gemm", e.gemm, e.source);
    if (e.source.find("attention_forward") != std::string::npos) {
      EXPECT_NE(e.source.find("attention_forward " + Printed(e.attention_forward)), std::string::npos)
          << file;
      EXPECT_NE(e.source.find("attention_backward " + Printed(e.attention_backward)), std::string::npos)
          << file;
    } else {
      // A file that quotes no attention measurement must say its values are assumed (v100.json).
      EXPECT_NE(e.source.find("attention efficiencies"), std::string::npos) << file;
      EXPECT_NE(e.source.find("assumed"), std::string::npos) << file;
    }
    if (e.fp8_gemm > 0) {
      EXPECT_TRUE(IsFraction(e.fp8_gemm)) << file << ": fp8_gemm " << e.fp8_gemm;
      ExpectNamesMeasurement(file, "fp8_gemm", e.fp8_gemm, e.fp8_gemm_source);
    }
  }
  // Not vacuous: the GPUs the shipped topologies use are all here.
  for (const char* gpu :
       {"V100-SXM3-32GB", "A100-SXM4-80GB", "H100-SXM5-80GB", "H200-SXM-141GB", "B200-SXM-180GB"}) {
    EXPECT_EQ(gpus.count(gpu), 1u) << gpu << " has no shipped calibration file";
  }
}

}  // namespace
}  // namespace zerosim::io
