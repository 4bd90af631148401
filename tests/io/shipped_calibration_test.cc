// Every shipped calibration file's compute efficiencies are fractions of peak and their source strings name
// the measurement each number comes from (docs/calibration.md, "The shipped files cite"): a sanity gate on
// the hand-written sources, not a closed form. A value edited without its source, or a source that quotes no
// measured rate, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
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

// Checks that `source` opens with "<key> <value>:" and that its first clause (up to the first "; ") quotes a
// measured rate "X of Y TFLOPS" whose ratio is the value to the rounding a source uses (three decimals).
void ExpectNamesMeasurement(const std::string& file, const std::string& key, double value,
                            const std::string& source) {
  const std::string head = key + " " + Printed(value) + ":";
  EXPECT_EQ(source.rfind(head, 0), 0u)
      << file << ": " << key << "'s source should open with '" << head << "'";
  const std::string clause = source.substr(0, source.find("; "));
  static const std::regex kRate(R"(([0-9]+(?:\.[0-9]+)?) of ([0-9]+(?:\.[0-9]+)?) TFLOPS)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(clause, m, kRate))
      << file << ": " << key << "'s source quotes no measured rate 'X of Y TFLOPS': " << clause;
  const double ratio = std::stod(m[1].str()) / std::stod(m[2].str());
  EXPECT_NEAR(ratio, value, 0.0051) << file << ": " << key << " " << value << " is not " << m[0].str();
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
