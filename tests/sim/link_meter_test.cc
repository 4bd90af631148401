// The platform's link-load meter (simgrid_platform.h, PlatformSpec::link_load_plugin) against SimGrid's
// link-load plugin, the reference it replaces: the same schedule replayed with each measures the same
// bytes of capacity on the NIC and NVSwitch links, and the meter changes no timing. Cases with merged
// (weighted) transfers, several NICs, a degraded NIC, a second job's flows and a slow node.
#include <gtest/gtest.h>

#include "model/schedule_builder.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

void ExpectMeterEqualsPlugin(const model::ClusterSpec& c, const sim::Perturbations& p, sim::Reduction r) {
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus(c.gpus_per_node / 2)}) {
    const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
    sim::SimOptions plugin;
    plugin.reduction = r;
    plugin.perturbations = p;
    plugin.link_load_plugin = true;
    sim::SimOptions meter = plugin;
    meter.link_load_plugin = false;
    StatusOr<sim::SimResult> a = sim::SimulateIsolated(s, c, TestCalibration(), plugin);
    StatusOr<sim::SimResult> b = sim::SimulateIsolated(s, c, TestCalibration(), meter);
    ASSERT_TRUE(a.ok()) << a.status().message();
    ASSERT_TRUE(b.ok()) << b.status().message();
    const std::string name = fmt::format("{} on {} ({})", z.zero_quantized_gradients ? "ZeRO++" : "ZeRO-3",
                                         c.name, sim::ReductionName(r));
    ASSERT_GT(a->stats.nic_capacity_bytes_measured, 0) << name;
    ASSERT_GT(a->stats.nvlink_capacity_bytes_measured, 0) << name;
    // The same updates (each comm's start and end, then the end of the run) with the same usages: equal
    // to rounding (bit for bit in practice).
    EXPECT_NEAR(b->stats.nic_capacity_bytes_measured, a->stats.nic_capacity_bytes_measured,
                1e-12 * a->stats.nic_capacity_bytes_measured)
        << name;
    EXPECT_NEAR(b->stats.nvlink_capacity_bytes_measured, a->stats.nvlink_capacity_bytes_measured,
                1e-12 * a->stats.nvlink_capacity_bytes_measured)
        << name;
    EXPECT_EQ(b->stats.transfers, a->stats.transfers) << name;
    ExpectSameTiming(a->timing, b->timing, s.ops.size(), name);
  }
}

TEST(LinkMeter, EqualsThePluginOnAFatTreeWithMergedTransfers) {
  // 4 leaves of 2 nodes of 16 GPUs, 2:1 uplinks: ZeRO++'s all-to-all merges 16 transfers per comm.
  const model::ClusterSpec c = FatTree(PaperCluster(1, 8, 16), 2, 2);
  for (sim::Reduction r : {sim::Reduction::kSymmetric, sim::Reduction::kFull})
    ExpectMeterEqualsPlugin(c, {}, r);
}

TEST(LinkMeter, EqualsThePluginWithADegradedNicASecondJobAndASlowNode) {
  // The second job's stream loads a tracked NIC until it is cancelled at the end of the run, an action the
  // meter does not know: it updates every tracked link then, as the plugin updates the stream's route.
  model::ClusterSpec c = PaperCluster(2, 4, 6);
  c.fabric.kind = model::FabricKind::kRailOptimized;
  sim::Perturbations p;
  sim::DegradedLink nic;
  nic.node = 1;
  nic.rail = 1;
  nic.bandwidth_factor = 0.5;
  p.links.push_back(nic);
  p.background.push_back({3, 0, 4, 20e9 / 8});
  p.slow_nodes.push_back({2, 1.2});
  for (sim::Reduction r : {sim::Reduction::kClasses, sim::Reduction::kFull}) ExpectMeterEqualsPlugin(c, p, r);
}

}  // namespace
}  // namespace zerosim::testing
