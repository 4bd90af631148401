#include "model/memory.h"

#include <gtest/gtest.h>

#include "model/schedule_builder.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

MemoryBreakdown Estimate(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c) {
  return EstimateMemory(m, z, c, BuildSchedule(m, z, c));
}

TEST(Memory, HpzAddsExactlyTwoPsiOverHBytesPerGpu) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1);
  const double psi = TotalParams(m);
  for (int h : {2, 4, 8, 16}) {
    ZeroConfig off;
    ZeroConfig on;
    on.zero_hpz_partition_size = h;
    const MemoryBreakdown a = Estimate(m, off, c);
    const MemoryBreakdown b = Estimate(m, on, c);
    EXPECT_DOUBLE_EQ(b.hpz_secondary_bytes, 2 * psi / h);
    EXPECT_NEAR(b.total_bytes - a.total_bytes, 2 * psi / h, 1e-6 * psi);
  }
}

TEST(Memory, ModelStatesAreSixteenBytesPerParameterOverP) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1);
  const MemoryBreakdown r = Estimate(m, ZeroConfig{}, c);
  const double psi = TotalParams(m), p = c.total_gpus();
  EXPECT_DOUBLE_EQ(r.gradients_bytes + r.optimizer_states_bytes, 14 * psi / p);
  // Parameters below the persistence threshold (biases, LayerNorms: 1e5 elements) stay whole on every GPU.
  double persistent = 0;
  for (const Param& prm : BuildModuleGraph(m, 2048).params) {
    if (prm.numel() < 1e5) persistent += prm.numel();
  }
  EXPECT_DOUBLE_EQ(r.parameters_bytes, 2 * psi / p + 2 * persistent);
}

TEST(Memory, ALargeModelOnFewGpusDoesNotFit) {
  const ModelSpec m = testing::Gpt(76, 12288, 96);  // 138B
  const ClusterSpec c = testing::PaperCluster(1, /*nodes=*/2, /*gpus_per_node=*/16);
  const MemoryBreakdown r = Estimate(m, ZeroConfig{}, c);
  EXPECT_GT(r.total_bytes, r.hbm_bytes);  // 16 x 138B / 32 GPUs = 69 GB of model states alone
}

}  // namespace
}  // namespace zerosim::model
