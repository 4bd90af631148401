// The calibration file's "compute" section (kernels/bench/compute_section.h): written by the measured
// calibration, read back field for field by its strict reader, absent from derived files; the GEMM and
// attention shapes the benchmark runs and parses; the tensor-core peak against the datasheets.
#include "kernels/bench/compute_section.h"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "kernels/bench/calibration_file.h"
#include "kernels/bench/compute_shapes.h"
#include "model/io/loaders.h"
#include "tests/kernels/bench_test_util.h"

namespace zerosim::kernels::bench {
namespace {

using nlohmann::json;

const char* const kGemm = testing::kGemmEfficiency;
const Stamp kStamp{"zerosim calibrate --out h.json --gemm-shapes 8192x12288x4096", "2026-12-01T07:00:00Z"};

BenchResult FakeKernelRun() {
  BenchResult r = testing::FakeDeviceRun();
  for (double bytes = 4096; bytes <= 1 << 30; bytes *= 2) {
    r.copy_points.push_back({2 * bytes, 2e-6 + 2 * bytes / 4.2e12});
    for (auto& points : r.points) points.push_back({bytes, 3e-6 + bytes / 3e12});
  }
  return r;
}

ComputeResult FakeComputeRun() {
  ComputeResult c;
  c.device = {"NVIDIA Test GPU", "999.1", "13.0", 9, 0, 132, 1.98e9, 60 << 20, int64_t{141} << 30};
  c.cublaslt = "13.1.0";
  c.peak_flops = 1.07e15;
  c.gemm = {{ValueType::kBf16, {256, 256, 256}, 5.25e-6}, {ValueType::kFp16, {8192, 12288, 4096}, 1.1e-3}};
  c.attention = {{ValueType::kBf16, {32, 2048, 128}, true, 3.1e-4, "what was timed"},
                 {ValueType::kBf16, {32, 4096, 64}, true, 9.5e-4, "what was timed"}};
  c.launch_s = 2.5e-6;
  c.launch_queued_s = 1.1e-6;
  c.launch_latency_s = 7.5e-6;
  c.notes = {"skipped GEMM 16384x16384x16384: device memory"};
  return c;
}

ComputeOptions Options() {
  ComputeOptions o;
  o.gemm_shapes = {{8192, 12288, 4096}};
  return o;
}

TEST(ComputeSection, MeasuredFileRoundTripsFieldForField) {
  const BenchResult k = FakeKernelRun();
  const ComputeResult c = FakeComputeRun();
  const CalibrationFile f = MeasuredCalibration(k, BenchOptions{}, "Test-GPU", kStamp, json::parse(kGemm),
                                                MeasuredComputeSection(k, c, Options(), kStamp));
  const std::string text = CalibrationFileText(f);
  StatusOr<ComputeSection> back = ParseComputeSection(text, "h.json");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << text;
  EXPECT_EQ(back->source, "measured");
  ASSERT_EQ(back->gemm.size(), 2u);
  for (size_t i = 0; i < c.gemm.size(); ++i) {
    EXPECT_EQ(back->gemm[i].type, c.gemm[i].type);
    EXPECT_EQ(back->gemm[i].shape.m, c.gemm[i].shape.m);
    EXPECT_EQ(back->gemm[i].shape.n, c.gemm[i].shape.n);
    EXPECT_EQ(back->gemm[i].shape.k, c.gemm[i].shape.k);
    EXPECT_EQ(back->gemm[i].seconds, c.gemm[i].seconds);  // exact: shortest round-trip doubles
  }
  ASSERT_EQ(back->attention.size(), 2u);
  EXPECT_EQ(back->attention[1].shape.batch_heads, 32);
  EXPECT_EQ(back->attention[1].shape.seq, 4096);
  EXPECT_EQ(back->attention[1].shape.head_dim, 64);
  EXPECT_TRUE(back->attention[1].causal);
  EXPECT_EQ(back->attention[1].seconds, 9.5e-4);
  EXPECT_EQ(back->attention[1].kernel, "what was timed");
  // The copy points are the kernel benchmark's, in bytes copied: half the traffic its points count.
  ASSERT_EQ(back->copy.size(), k.copy_points.size());
  EXPECT_EQ(back->copy.front().bytes, 4096);
  EXPECT_EQ(back->copy.back().bytes, int64_t{1} << 30);
  EXPECT_EQ(back->copy.back().seconds, k.copy_points.back().seconds);
  EXPECT_EQ(back->launch_s, 2.5e-6);
  for (const std::string& expected :
       {std::string("NVIDIA Test GPU"), std::string("driver 999.1"), std::string("CUDA runtime 13.0"),
        std::string("cuBLASLt 13.1.0"), kStamp.command, kStamp.date, std::string("8192x12288x4096"),
        std::string("reduced grid (256, 1024, 4096, 16384"), std::string("skipped GEMM 16384x16384x16384")}) {
    EXPECT_NE(back->provenance.find(expected), std::string::npos) << expected << " in " << back->provenance;
  }
  EXPECT_NE(
      text.find(
          "\n      {\"dtype\": \"bf16\", \"m\": 256, \"n\": 256, \"k\": 256, \"seconds\": 5.25e-06},\n"),
      std::string::npos)
      << "one object per line\n"
      << text;
}

TEST(ComputeSection, RestOfTheFileStillLoadsThroughTheModelsLoader) {
  const BenchResult k = FakeKernelRun();
  CalibrationFile f = MeasuredCalibration(k, BenchOptions{}, "Test-GPU", kStamp, json::parse(kGemm),
                                          MeasuredComputeSection(k, FakeComputeRun(), Options(), kStamp));
  const json with = json::parse(CalibrationFileText(f));
  EXPECT_EQ(with["format"], "zerosim-calibration-1");
  f.compute.reset();
  const std::string without = CalibrationFileText(f);
  StatusOr<model::Calibration> c = io::ParseCalibration(without, "h.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  json stripped = with;
  stripped.erase("compute");
  EXPECT_EQ(stripped, json::parse(without)) << "the compute section is the only difference";
}

TEST(ComputeSection, DerivedFilesHaveNone) {
  model::Calibration from;
  from.gpu = "Big";
  from.source = "measured";
  from.provenance = "by test";
  from.path = "big.json";
  from.copy_Bps = 4.3e12;
  for (auto& k : from.kernels) k.fit = {4e-6, 3.6e12};
  const CalibrationFile f = DerivedCalibration(from, 0.5, "half", "Small", kStamp, json::parse(kGemm));
  EXPECT_FALSE(f.compute.has_value());
  EXPECT_FALSE(json::parse(CalibrationFileText(f)).contains("compute"));
  // Without a compute run, a measured file has none either.
  const CalibrationFile m =
      MeasuredCalibration(FakeKernelRun(), BenchOptions{}, "G", kStamp, json::parse(kGemm));
  EXPECT_FALSE(json::parse(CalibrationFileText(m)).contains("compute"));
}

// A valid section with one thing changed must fail, naming the key.
TEST(ComputeSection, StrictReaderNamesTheKey) {
  const json good = json::parse(R"({"compute": {"source": "measured", "provenance": "p",
      "gemm": [{"dtype": "bf16", "m": 1, "n": 2, "k": 3, "seconds": 1e-6}],
      "attention": [{"dtype": "fp16", "batch_heads": 1, "seq": 2, "head_dim": 3, "causal": true,
                     "seconds": 1e-6, "kernel": "k"}],
      "copy": [{"bytes": 4096, "seconds": 1e-6}], "launch_s": 1e-6}})");
  ASSERT_TRUE(ParseComputeSection(good.dump(), "f.json").ok())
      << ParseComputeSection(good.dump(), "f.json").status().message();
  const std::pair<std::string, std::string> cases[] = {
      {"/compute/source", "\"derived\""},
      {"/compute/gemm/0/dtype", "\"fp32\""},
      {"/compute/gemm/0/m", "0"},
      {"/compute/gemm/0/k", "3.5"},
      {"/compute/gemm/0/seconds", "-1"},
      {"/compute/attention/0/causal", "1"},
      {"/compute/copy/0/bytes", "\"4KiB\""},
      {"/compute/launch_s", "0"},
      {"/compute/copy", "{}"},
      {"/compute/gemm/0/flops", "1"},
  };
  const char* keys[] = {"compute.source",        "compute.gemm[0].dtype",   "compute.gemm[0].m",
                        "compute.gemm[0].k",     "compute.gemm[0].seconds", "compute.attention[0].causal",
                        "compute.copy[0].bytes", "compute.launch_s",        "compute.copy",
                        "compute.gemm[0].flops"};
  for (size_t i = 0; i < std::size(cases); ++i) {
    json bad = good;
    bad[json::json_pointer(cases[i].first)] = json::parse(cases[i].second);
    StatusOr<ComputeSection> c = ParseComputeSection(bad.dump(), "f.json");
    ASSERT_FALSE(c.ok()) << cases[i].first;
    EXPECT_NE(c.status().message().find(std::string("f.json: key '") + keys[i] + "'"), std::string::npos)
        << c.status().message();
  }
  json missing = good;
  missing["compute"].erase("launch_s");
  EXPECT_NE(
      ParseComputeSection(missing.dump(), "f.json").status().message().find("'compute.launch_s': missing"),
      std::string::npos);
  EXPECT_FALSE(ParseComputeSection("{}", "f.json").ok());
  EXPECT_FALSE(ParseComputeSection("{\"compute\": ", "f.json").ok());
}

TEST(ComputeShapes, GridsAndModelShapes) {
  EXPECT_EQ(GemmGridShapes(GemmGrid::kReduced).size(), 64u);
  EXPECT_EQ(GemmGridShapes(GemmGrid::kFull).size(), 343u);
  EXPECT_TRUE(GemmGridShapes(GemmGrid::kNone).empty());
  EXPECT_EQ(GemmGridSizes(GemmGrid::kFull).front(), 256);
  EXPECT_EQ(GemmGridSizes(GemmGrid::kFull).back(), 16384);
  StatusOr<std::vector<GemmShape>> model = ParseGemmShapes("8192x12288x4096, 4096x4096x4096,1x2X3");
  ASSERT_TRUE(model.ok()) << model.status().message();
  ASSERT_EQ(model->size(), 3u);
  EXPECT_EQ((*model)[0].n, 12288);
  EXPECT_EQ((*model)[2].k, 3);
  EXPECT_EQ(GemmShapesText(*model), "8192x12288x4096,4096x4096x4096,1x2x3");
  // 4096^3 is on the reduced grid already: run once.
  const std::vector<GemmShape> run = GemmShapesToRun(GemmGrid::kReduced, *model);
  EXPECT_EQ(run.size(), 66u);
  EXPECT_EQ(run[64].n, 12288);
  for (const char* bad : {"", "4096x4096", "4096x4096x4096x1", "4096x0x4096", "4096x-1x2", "axbxc", "1x2x3,",
                          "2097152x1x1", "1x2x3 junk"}) {
    StatusOr<std::vector<GemmShape>> s = ParseGemmShapes(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("--gemm-shapes"), std::string::npos) << s.status().message();
  }
  StatusOr<std::vector<AttentionShape>> a = ParseAttentionShapes("64x2048x128");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)[0].batch_heads, 64);
  EXPECT_EQ((*a)[0].seq, 2048);
  EXPECT_EQ((*a)[0].head_dim, 128);
  EXPECT_FALSE(ParseAttentionShapes("64x2048").ok());
  EXPECT_DOUBLE_EQ(GemmFlops({2, 3, 4}), 48);
}

TEST(ComputeShapes, TensorPeakMatchesTheDatasheets) {
  // Datasheet dense fp16/bf16 tensor rates at their boost clocks: NVIDIA T4 65 TFLOP/s (40 SMs, 1.59 GHz),
  // A100 SXM 312 (108 SMs, 1.41 GHz), H100 SXM 989.4 (132 SMs, 1.83 GHz).
  EXPECT_NEAR(TensorPeakFlops(7, 5, 40, 1.59e9) / 65e12, 1.0, 0.01);
  EXPECT_NEAR(TensorPeakFlops(8, 0, 108, 1.41e9) / 312e12, 1.0, 0.01);
  EXPECT_NEAR(TensorPeakFlops(9, 0, 132, 1.83e9) / 989.4e12, 1.0, 0.001);
  EXPECT_EQ(TensorPeakFlops(7, 0, 80, 1.53e9), 0) << "Volta is not built by CUDA 13";
  EXPECT_EQ(TensorPeakFlops(11, 0, 20, 1e9), 0) << "unknown: no bound rather than a wrong one";
}

}  // namespace
}  // namespace zerosim::kernels::bench
