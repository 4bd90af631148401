// Calibration files written by `zerosim calibrate` load back through the strict loader with the same
// numbers, and the shipped derived files follow their stated formula.
#include "kernels/bench/calibration_file.h"

#include <gtest/gtest.h>

#include <string>

#include "model/cost/kernel_cost.h"
#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "tests/kernels/bench_test_util.h"

namespace zerosim::kernels::bench {
namespace {

const char* const kGemm = testing::kGemmEfficiency;

BenchResult FakeRun() {
  BenchResult r = testing::FakeDeviceRun();
  for (size_t k = 0; k < r.points.size(); ++k) {
    for (double bytes = 4096; bytes <= 1 << 30; bytes *= 2) {
      r.points[k].push_back({bytes, 3e-6 + bytes / (3e12 + 1e11 * static_cast<double>(k))});
    }
  }
  return r;
}

TEST(CalibrationFile, MeasuredFileLoadsAndFitsItsPoints) {
  const Stamp stamp{"zerosim calibrate --out x.json", "2025-01-01T00:00:00Z"};
  const CalibrationFile f =
      MeasuredCalibration(FakeRun(), BenchOptions{}, "Test-GPU", stamp, nlohmann::ordered_json::parse(kGemm));
  const std::string text = CalibrationFileText(f);
  StatusOr<model::Calibration> c = io::ParseCalibration(text, "x.json");
  ASSERT_TRUE(c.ok()) << c.status().message() << "\n" << text;
  EXPECT_EQ(c->source, "measured");
  EXPECT_EQ(c->gpu, "Test-GPU");
  EXPECT_DOUBLE_EQ(c->copy_Bps, 4.2e12);
  EXPECT_EQ(c->compute.source, "kept verbatim");
  EXPECT_NE(c->provenance.find("NVIDIA Test GPU"), std::string::npos);
  EXPECT_NE(c->provenance.find("driver 999.1"), std::string::npos);
  EXPECT_NE(c->provenance.find(stamp.command), std::string::npos);
  EXPECT_NE(c->provenance.find(stamp.date), std::string::npos);
  for (int k = 0; k < model::kNumKernels; ++k) {
    const model::KernelFit& fit = c->fit(static_cast<model::Kernel>(k));
    EXPECT_NEAR(fit.alpha_s, 3e-6, 1e-9);
    EXPECT_NEAR(fit.beta_Bps / (3e12 + 1e11 * k), 1.0, 1e-6);
  }
  EXPECT_NE(text.find("\n        [4096.0, "), std::string::npos) << "one point per line";
}

TEST(CalibrationFile, DerivedFileScalesBandwidthsAndKeepsLaunchCost) {
  model::Calibration from;
  from.gpu = "Big";
  from.source = "derived";
  from.provenance = "by hand";
  from.path = "big.json";
  from.copy_Bps = 4.3e12;
  for (auto& k : from.kernels) k.fit = {4e-6, 3.655e12};
  const CalibrationFile f = DerivedCalibration(from, 2039.0 / 4800, "2039 GB/s / 4800 GB/s", "Small",
                                               {"cmd", "today"}, nlohmann::ordered_json::parse(kGemm));
  StatusOr<model::Calibration> c = io::ParseCalibration(CalibrationFileText(f), "small.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->source, "derived");
  EXPECT_DOUBLE_EQ(c->copy_Bps, 1.8266e12);  // 4.3e12 x 2039 / 4800 = 1826.604 GB/s, to 0.1 GB/s
  EXPECT_DOUBLE_EQ(c->fit(model::Kernel::kDequantReduceInt4).beta_Bps, 1.5526e12);
  EXPECT_DOUBLE_EQ(c->fit(model::Kernel::kQuantizeInt8).alpha_s, 4e-6);
  EXPECT_NE(c->provenance.find("big.json"), std::string::npos);
  EXPECT_NE(c->provenance.find("Source provenance: by hand"), std::string::npos);
}

TEST(CalibrationFile, ShippedFilesAreDerivedFromH200ByMemoryBandwidth) {
  const std::string dir = std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/";
  StatusOr<model::Calibration> h200 = io::LoadCalibration(io::DiskFileSource(), dir + "h200.json");
  ASSERT_TRUE(h200.ok()) << h200.status().message();
  const std::pair<const char*, double> derived[] = {
      {"v100.json", 900.0 / 4800}, {"a100.json", 2039.0 / 4800}, {"h100.json", 3350.0 / 4800}};
  for (const auto& [file, ratio] : derived) {
    StatusOr<model::Calibration> c = io::LoadCalibration(io::DiskFileSource(), dir + file);
    ASSERT_TRUE(c.ok()) << c.status().message();
    // The quantization kernels are derived; the file's compute may be empirical (docs/calibration.md).
    EXPECT_TRUE(c->source == "derived" || c->source == "empirical") << file;
    EXPECT_NE(c->provenance.find("derived"), std::string::npos) << file;
    EXPECT_NEAR(c->copy_Bps / (h200->copy_Bps * ratio), 1.0, 1e-4) << file;
    for (int k = 0; k < model::kNumKernels; ++k) {
      const auto kernel = static_cast<model::Kernel>(k);
      EXPECT_NEAR(c->fit(kernel).beta_Bps / (h200->fit(kernel).beta_Bps * ratio), 1.0, 1e-4) << file;
      EXPECT_EQ(c->fit(kernel).alpha_s, h200->fit(kernel).alpha_s) << file;
    }
  }
}

}  // namespace
}  // namespace zerosim::kernels::bench
