// The calibration writer beside its reader: a file written by io::CalibrationFileText reads back through
// the strict loader (io::ParseCalibration) with the same values, for derived files (alpha and beta per
// kernel) and measured ones (points per kernel, refitted by the loader; a compute section).
#include "model/io/calibration_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "model/io/loaders.h"

namespace zerosim::io {
namespace {

CalibrationFileData Derived() {
  CalibrationFileData f;
  f.gpu = "Test-GPU \"quoted\"";
  f.source = "derived";
  f.provenance = "derived from x.json by 0.5\nsecond line";
  f.copy_Bps = 1.234567890123e12;
  f.gemm_efficiency = nlohmann::ordered_json::parse(
      R"({"gemm": 0.81, "attention_forward": 0.6, "attention_backward": 0.45, "kernel_gap_s": 2.5e-6,
          "source": "published maximum achievable matmul"})");
  for (int k = 0; k < model::kNumKernels; ++k) {
    f.kernels[static_cast<size_t>(k)].fit = {1e-6 * (k + 1), 1e12 + 3.3e10 * k};
  }
  return f;
}

TEST(CalibrationWriter, ADerivedFileReadsBackWithTheSameValues) {
  const CalibrationFileData f = Derived();
  const std::string text = CalibrationFileText(f);
  StatusOr<model::Calibration> c = ParseCalibration(text, "w.json");
  ASSERT_TRUE(c.ok()) << c.status().message() << "\n" << text;
  EXPECT_EQ(c->gpu, f.gpu);
  EXPECT_EQ(c->source, "derived");
  EXPECT_EQ(c->provenance, f.provenance);
  EXPECT_EQ(c->copy_Bps, f.copy_Bps);  // shortest round-trip numbers: exactly the same double
  EXPECT_EQ(c->compute.gemm, 0.81);
  EXPECT_EQ(c->compute.attention_forward, 0.6);
  EXPECT_EQ(c->compute.attention_backward, 0.45);
  EXPECT_EQ(c->compute.kernel_gap_s, 2.5e-6);
  EXPECT_EQ(c->compute.source, "published maximum achievable matmul");
  for (int k = 0; k < model::kNumKernels; ++k) {
    const model::KernelCalibration& kc = c->kernels[static_cast<size_t>(k)];
    EXPECT_EQ(kc.fit.alpha_s, 1e-6 * (k + 1)) << model::KernelName(static_cast<model::Kernel>(k));
    EXPECT_EQ(kc.fit.beta_Bps, 1e12 + 3.3e10 * k);
    EXPECT_TRUE(kc.points.empty());
  }
  EXPECT_TRUE(c->measured.gemm.empty());
  // Written again from what was read, the text is the same bytes.
  CalibrationFileData again = f;
  for (size_t k = 0; k < again.kernels.size(); ++k) again.kernels[k] = c->kernels[k];
  EXPECT_EQ(CalibrationFileText(again), text);
}

TEST(CalibrationWriter, AMeasuredFileReadsBackItsPointsAndComputeSection) {
  CalibrationFileData f = Derived();
  f.source = "measured";
  for (size_t k = 0; k < f.kernels.size(); ++k) {
    f.kernels[k].fit = {};
    // t = 4 us + bytes / (2 TB/s): the loader's fit must find both back.
    for (double bytes = 1 << 12; bytes <= 1 << 24; bytes *= 4)
      f.kernels[k].points.push_back({bytes, 4e-6 + bytes / 2e12});
  }
  f.compute_json = R"({
    "source": "measured",
    "provenance": "timed",
    "gemm": [{"dtype": "bf16", "m": 4096, "n": 2048, "k": 1024, "seconds": 1.5e-4}],
    "attention": [{"dtype": "bf16", "batch_heads": 64, "seq": 2048, "head_dim": 128, "causal": true, "seconds": 3.25e-4, "kernel": "k"}],
    "copy": [{"bytes": 1073741824, "seconds": 5e-4}],
    "launch_s": 4.5e-6
  })";
  const std::string text = CalibrationFileText(f);
  StatusOr<model::Calibration> c = ParseCalibration(text, "m.json");
  ASSERT_TRUE(c.ok()) << c.status().message() << "\n" << text;
  EXPECT_EQ(c->source, "measured");
  for (size_t k = 0; k < f.kernels.size(); ++k) {
    const model::KernelCalibration& kc = c->kernels[k];
    ASSERT_EQ(kc.points.size(), f.kernels[k].points.size());
    for (size_t i = 0; i < kc.points.size(); ++i) {
      EXPECT_EQ(kc.points[i].bytes, f.kernels[k].points[i].bytes);
      EXPECT_EQ(kc.points[i].seconds, f.kernels[k].points[i].seconds);
    }
    EXPECT_NEAR(kc.fit.alpha_s, 4e-6, 1e-12);
    EXPECT_NEAR(kc.fit.beta_Bps / 2e12, 1.0, 1e-9);
  }
  ASSERT_EQ(c->measured.gemm.size(), 1u);
  EXPECT_EQ(c->measured.gemm[0].m, 4096);
  EXPECT_EQ(c->measured.gemm[0].n, 2048);
  EXPECT_EQ(c->measured.gemm[0].k, 1024);
  EXPECT_EQ(c->measured.gemm[0].seconds, 1.5e-4);
  ASSERT_EQ(c->measured.attention.size(), 1u);
  EXPECT_EQ(c->measured.attention[0].seconds, 3.25e-4);
  EXPECT_EQ(c->measured.launch_s, 4.5e-6);
  EXPECT_EQ(c->measured.provenance, "timed");
}

}  // namespace
}  // namespace zerosim::io
