// Issue 20 item 25: the compute split (GEMMs, attention, memory-bound kernels, kernel gaps) adds up to compute_s
// for every strategy, by both engines: FSDP2's copy-out of the gathered parameters runs on the compute stream as a
// memory-bound pass and belongs to the memory-bound part.
#include <gtest/gtest.h>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/spec/strategy.h"
#include "study/scenario_runner.h"

namespace zerosim::study {
namespace {

TEST(ComputeParts, AddUpToComputeForEveryStrategyAndBothEngines) {
  StatusOr<io::Scenario> loaded = io::LoadScenario(
      io::DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/strategies/llama70b_64xh100.toml");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  io::Scenario* s = &loaded.value();
  s->cluster.nodes = 2;  // a small cluster: both engines in seconds
  ASSERT_FALSE(s->variants.empty());
  const io::Variant base = s->variants.front();
  s->variants.clear();
  for (model::Strategy st : {model::Strategy::kZero3, model::Strategy::kFsdpFullShard, model::Strategy::kFsdp2}) {
    io::Variant v = base;
    v.zero.strategy = st;
    v.zero.framework = model::FrameworkOf(st);
    v.zero.zero_hpz_partition_size = 1;
    v.zero.zero_quantized_weights = v.zero.zero_quantized_gradients = false;
    v.name = model::StrategyLabel(st);
    s->variants.push_back(v);
  }
  StatusOr<model::Report> r = EvaluateScenario(*s, Engine::kBoth);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->variants.size(), 6u);
  for (const model::VariantReport& v : r->variants) {
    ASSERT_GT(v.compute_s, 0) << v.name << " " << v.engine;
    EXPECT_NEAR(v.gemm_s + v.attention_s + v.memory_bound_s + v.kernel_gaps_s, v.compute_s, 1e-9 * v.compute_s)
        << v.name << " (" << v.engine << ")";
  }
}

}  // namespace
}  // namespace zerosim::study
