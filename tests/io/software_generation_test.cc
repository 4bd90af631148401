// Calibration software generations (docs/calibration.md): the shipped A100 file holds both fitted stacks, a
// scenario picks one with [runtime] software, and an unknown name is an error naming what the file holds; a
// key given twice in a calibration file is refused.
#include <gtest/gtest.h>

#include "model/io/loaders.h"
#include "model/spec/calibration.h"

namespace zerosim::io {
namespace {

TEST(SoftwareGeneration, ShippedA100HoldsBothFittedStacks) {
  StatusOr<model::Calibration> cal = LoadCalibration(DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/a100.json");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_EQ(cal->source, "empirical");
  EXPECT_EQ(cal->compute.software, "pytorch-2.1");
  EXPECT_EQ(cal->compute.kind, "empirical");
  const double newer = cal->compute.gemm;
  ASSERT_TRUE(model::SelectSoftware(&cal.value(), "pytorch-1.13"));
  EXPECT_EQ(cal->compute.software, "pytorch-1.13");
  EXPECT_LT(cal->compute.gemm, newer);  // the older stack's GEMMs sustain less (docs/fitted_parameters.md)
  EXPECT_FALSE(model::SelectSoftware(&cal.value(), "pytorch-9"));
  EXPECT_EQ(cal->compute.software, "pytorch-1.13");  // unchanged
  EXPECT_EQ(model::SoftwareNames(*cal), "pytorch-2.1, pytorch-1.13");
}

TEST(SoftwareGeneration, ScenarioPicksIt) {
  StatusOr<Scenario> s = LoadScenario(DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/calibration/a100_40gb_bf16.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->software, "pytorch-1.13");
  EXPECT_EQ(s->calibration.compute.software, "pytorch-1.13");
}

TEST(SoftwareGeneration, EmpiricalSetWithoutItsFitIsRefused) {
  const std::string text = R"({"format": "zerosim-calibration-1", "gpu": "x", "source": "empirical",
    "provenance": "p", "copy_bandwidth_Bps": 1e12,
    "gemm_efficiency": {"gemm": 0.5, "attention_forward": 0.4, "attention_backward": 0.3, "kernel_gap_s": 0,
                        "source": "s", "kind": "empirical"},
    "kernels": {}})";
  StatusOr<model::Calibration> c = ParseCalibration(text, "e.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("gemm_efficiency.fit"), std::string::npos) << c.status().message();
}

// Issue 39 (badinput k06): a key given twice in a calibration file was read as its last copy, the first one
// dead; it is refused at its JSON path.
TEST(SoftwareGeneration, AKeyGivenTwiceIsRefused) {
  const std::string path = std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/h200.json";
  StatusOr<std::string> text = DiskFileSource().Read(path);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(ParseCalibration(*text, "h200.json").ok());
  std::string twice = *text;
  const size_t at = twice.find("\"gemm_efficiency\"");
  ASSERT_NE(at, std::string::npos);
  twice.insert(at, "\"software_generations\": 5,\n  ");
  StatusOr<model::Calibration> c = ParseCalibration(twice, "h200.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("h200.json: $.software_generations: the key is given twice"),
            std::string::npos)
      << c.status().message();
}

}  // namespace
}  // namespace zerosim::io
