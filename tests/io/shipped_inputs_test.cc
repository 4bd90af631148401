// Every shipped topology, model, calibration and scenario loads, and every scenario evaluates.
#include <gtest/gtest.h>

#include <filesystem>

#include "model/io/embedded.h"
#include "model/io/loaders.h"
#include "model/io/sweep.h"
#include "model/report/evaluate.h"
#include "study/sweep_grid.h"

namespace zerosim::io {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> FilesUnder(const std::string& dir, const std::string& ext, bool recursive) {
  std::vector<std::string> out;
  const fs::path root = fs::path(ZEROSIM_SOURCE_DIR) / dir;
  auto add = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path().string());
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(root)) add(e);
  } else {
    for (const auto& e : fs::directory_iterator(root)) add(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ShippedInputs, TopologiesLoad) {
  const auto files = FilesUnder("topologies", ".toml", false);
  EXPECT_GE(files.size(), 8u);
  for (const std::string& f : files) {
    StatusOr<TopologyFile> t = LoadTopology(DiskFileSource(), f);
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (t.ok()) {
      EXPECT_TRUE(LoadCalibration(DiskFileSource(), t->calibration_path).ok()) << f;
    }
  }
}

TEST(ShippedInputs, ModelsLoadWithTheirPublishedSizes) {
  const std::map<std::string, double> billions = {{"gpt_18b.toml", 18.4}, {"gpt_49b.toml", 49},
                                                  {"gpt_91b.toml", 91}, {"gpt_138b.toml", 138}};
  for (const auto& [name, b] : billions) {
    StatusOr<ModelFile> m = LoadModel(DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/models/" + name);
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_NEAR(model::TotalParams(m->model) / 1e9 / b, 1.0, 0.01) << name;
  }
}

TEST(ShippedInputs, ScenariosLoadAndEvaluate) {
  const auto files = FilesUnder("scenarios", ".toml", true);
  int scenarios = 0;
  for (const std::string& f : files) {
    if (f.find("/models/") != std::string::npos) continue;
    if (f.size() > 11 && f.compare(f.size() - 11, 11, ".sweep.toml") == 0) {
      StatusOr<SweepSpec> sweep = study::LoadSweep(DiskFileSource(), f);
      EXPECT_TRUE(sweep.ok()) << sweep.status().message();
      continue;
    }
    ++scenarios;
    StatusOr<Scenario> s = LoadScenario(DiskFileSource(), f);
    ASSERT_TRUE(s.ok()) << s.status().message();
    for (const Variant& v : s->variants) {
      const model::VariantReport r =
          model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, s->cluster, s->calibration});
      EXPECT_GT(r.tflops_per_gpu, 0) << f << " " << v.name;
      // TFLOPs count every GEMM at one rate: with FP8 linear layers the bound is the FP8 peak.
      const double peak = v.zero.precision.fp8_gemms ? s->cluster.gpu.fp8_peak_flops : s->cluster.gpu.peak_flops;
      EXPECT_LT(r.tflops_per_gpu, peak / 1e12) << f << " " << v.name;
    }
  }
  EXPECT_GE(scenarios, 1);
}

TEST(ShippedInputs, TheEmbeddedDefaultMatchesTheFilesOnDisk) {
  for (const auto& [path, text] : EmbeddedFiles()) {
    StatusOr<std::string> disk = DiskFileSource().Read(std::string(ZEROSIM_SOURCE_DIR) + "/" + path);
    ASSERT_TRUE(disk.ok()) << path;
    EXPECT_EQ(*disk, text) << path << " changed: rebuild to re-embed it";
  }
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(EmbeddedFiles()), kDefaultScenario);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->cluster.total_gpus(), 384);
  EXPECT_EQ(s->cluster.nic.count, 1);
}

}  // namespace
}  // namespace zerosim::io
