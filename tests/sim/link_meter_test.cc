// The platform's link meter (simgrid_platform.h, PlatformSpec::link_load_plugin false, the default)
// against SimGrid's link-load plugin: the replay times the same with either, and the meter counts exactly
// the capacity the flows planned (each transfer's wire bytes over its bandwidth factor on each NIC and
// NVSwitch-port egress of its route), which the plugin's integral matches where its sampling is exact;
// a second job's stream loads links only in the plugin's count.
#include <gtest/gtest.h>

#include "model/builders/schedule_builder.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

void ExpectMeter(const model::ClusterSpec& c, const sim::Perturbations& p, sim::Reduction r) {
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus(c.gpus_per_node / 2)}) {
    const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
    sim::SimOptions plugin;
    plugin.reduction = r;
    plugin.perturbations = p;
    plugin.link_load_plugin = true;
    sim::SimOptions meter = plugin;
    meter.link_load_plugin = false;
    const std::optional<ReplayPair> both = ReplayBoth(s, c, plugin, meter);
    ASSERT_TRUE(both.has_value());
    const sim::SimResult& a = both->a;  // the plugin's count
    const sim::SimResult& b = both->b;  // the meter's
    const std::string name = fmt::format("{} on {} ({})", z.zero_quantized_gradients ? "ZeRO++" : "ZeRO-3",
                                         c.name, sim::ReductionName(r));
    const sim::SimStats& m = b.stats;
    ASSERT_GT(m.nic_capacity_bytes_planned, 0) << name;
    ASSERT_GT(m.nvlink_capacity_bytes_planned, 0) << name;
    EXPECT_NEAR(m.nic_capacity_bytes_measured, m.nic_capacity_bytes_planned,
                1e-9 * m.nic_capacity_bytes_planned)
        << name;
    EXPECT_NEAR(m.nvlink_capacity_bytes_measured, m.nvlink_capacity_bytes_planned,
                1e-9 * m.nvlink_capacity_bytes_planned)
        << name;
    if (p.background.empty()) {
      EXPECT_NEAR(a.stats.nic_capacity_bytes_measured, m.nic_capacity_bytes_measured,
                  1e-9 * m.nic_capacity_bytes_measured)
          << name;
      EXPECT_NEAR(a.stats.nvlink_capacity_bytes_measured, m.nvlink_capacity_bytes_measured,
                  1e-9 * m.nvlink_capacity_bytes_measured)
          << name;
    } else {
      EXPECT_GT(a.stats.nic_capacity_bytes_measured, m.nic_capacity_bytes_measured * (1 + 1e-6)) << name;
    }
    EXPECT_EQ(m.transfers, a.stats.transfers) << name;
    ExpectSameTiming(a.timing, b.timing, s.ops.size(), name);
  }
}

TEST(LinkMeter, CountsThePlannedBytesOnAFatTreeWithMergedTransfers) {
  // 4 leaves of 2 nodes of 16 GPUs, 2:1 uplinks: ZeRO++'s all-to-all merges 16 transfers per comm.
  const model::ClusterSpec c = FatTree(PaperCluster(1, 8, 16), 2, 2);
  for (sim::Reduction r : {sim::Reduction::kSymmetric, sim::Reduction::kFull}) ExpectMeter(c, {}, r);
}

TEST(LinkMeter, CountsOnlyOurFlowsBesideASecondJob) {
  const model::ClusterSpec c = RailOptimized(PaperCluster(2, 4, 6));
  const sim::Perturbations p = DegradedNicAndSecondJob(/*slow_node=*/2, 1.2);
  for (sim::Reduction r : {sim::Reduction::kClasses, sim::Reduction::kFull}) ExpectMeter(c, p, r);
}

}  // namespace
}  // namespace zerosim::testing
