// Every shipped calibration file's compute sets are fractions of peak, name their software generation, and say
// where they come from (docs/calibration.md): an empirical set names its data, fit command and out-of-sample
// error; a derived one the fitted GPU it is scaled from and its rule. A set edited without its record fails here.
#include <gtest/gtest.h>

#include <algorithm>
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
    if (e.is_regular_file() && e.path().extension() == ".json" && e.path().filename() != "bands.json")
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsFraction(double v) { return v > 0 && v <= 1; }

TEST(ShippedCalibration, EfficienciesAreFractionsAndSourcesNameTheirMeasurement) {
  const std::vector<std::string> files = ShippedCalibrations();
  std::set<std::string> gpus;
  for (const std::string& file : files) {
    StatusOr<model::Calibration> c = LoadCalibration(DiskFileSource(), file);
    ASSERT_TRUE(c.ok()) << c.status().message();
    gpus.insert(c->gpu);
    ASSERT_FALSE(c->compute_sets.empty()) << file;
    for (const model::ComputeEfficiency& e : c->compute_sets) {
      EXPECT_TRUE(IsFraction(e.gemm)) << file << ": gemm " << e.gemm;
      EXPECT_TRUE(IsFraction(e.attention_forward)) << file << ": attention_forward " << e.attention_forward;
      EXPECT_TRUE(IsFraction(e.attention_backward)) << file << ": attention_backward " << e.attention_backward;
      EXPECT_GE(e.kernel_gap_s, 0) << file;
      EXPECT_LT(e.kernel_gap_s, 1e-3) << file;
      EXPECT_FALSE(e.software.empty()) << file << ": every set names its software generation";
      if (e.fp8_gemm > 0) {
        EXPECT_TRUE(IsFraction(e.fp8_gemm)) << file << ": fp8_gemm " << e.fp8_gemm;
      }
      if (e.kind == "empirical") {
        // Fitted on the calibration set: the fit names its data, its command and its out-of-sample error.
        EXPECT_NE(e.fit.find("single_node_runs.json"), std::string::npos) << file << " " << e.software;
        EXPECT_NE(e.fit.find("zerosim fit"), std::string::npos) << file << " " << e.software;
        // Out of sample: one model size left out (the 2023 sets), one published row (today's sets, whose rows
        // hold one or two model shapes), or one table at one sequence length (V100's, one model: BERT-large).
        EXPECT_TRUE(e.fit.find("leave one model size out") != std::string::npos ||
                    e.fit.find("leave one published row out") != std::string::npos ||
                    e.fit.find("leave one table x sequence length out") != std::string::npos)
            << file << " " << e.software;
        EXPECT_GT(e.loo_median_abs_error, 0) << file << " " << e.software;
      } else {
        // Derived from a fitted GPU by a stated rule: it says so and names that GPU.
        EXPECT_EQ(e.kind, "derived") << file;
        EXPECT_FALSE(e.derived_from.empty()) << file << ": a derived set names the fitted GPU it comes from";
        EXPECT_EQ(e.source.rfind("derived", 0), 0u) << file;
        EXPECT_NE(e.source.find(e.derived_from + "'s empirical set"), std::string::npos) << file;
        EXPECT_NE(e.source.find("rule"), std::string::npos) << file;
      }
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
