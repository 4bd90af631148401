// Platform::TransferAll waking its caller once, when the last of its transfers arrives (the default), times
// everything as waiting for each comm (SimOptions::wait_each_transfer, the reference): op times of rank 0,
// iteration, exposed communication, interference and bytes per tier to 1e-9, for ZeRO-3 and ZeRO++, full,
// classes and symmetric, macro and step fidelity, with a slow node, a degraded NIC and a second job, and with
// SimGrid's link-load plugin measuring the bytes.
#include <gtest/gtest.h>

#include "model/builders/schedule_builder.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

void ExpectOneWakeExact(const model::ClusterSpec& c, const sim::Perturbations& p, sim::Reduction reduction,
                        sim::Fidelity fidelity = sim::Fidelity::kMacro, bool plugin = false) {
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus(c.gpus_per_node / 2)}) {
    const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
    sim::SimOptions each;
    each.reduction = reduction;
    each.fidelity = fidelity;
    each.perturbations = p;
    each.link_load_plugin = plugin;
    each.wait_each_transfer = true;
    sim::SimOptions once = each;
    once.wait_each_transfer = false;
    StatusOr<sim::SimResult> a = sim::SimulateIsolated(s, c, TestCalibration(), each);
    StatusOr<sim::SimResult> b = sim::SimulateIsolated(s, c, TestCalibration(), once);
    ASSERT_TRUE(a.ok()) << a.status().message();
    ASSERT_TRUE(b.ok()) << b.status().message();
    EXPECT_GT(a->stats.transfers, 0);
    EXPECT_EQ(b->stats.transfers, a->stats.transfers);
    ExpectSameTiming(a->timing, b->timing, s.ops.size(), c.name);
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_NEAR(b->volumes.cross_node[k], a->volumes.cross_node[k], 1e-9 * a->volumes.cross_node[k]);
      EXPECT_NEAR(b->volumes.intra_node[k], a->volumes.intra_node[k], 1e-9 * a->volumes.intra_node[k]);
    }
    EXPECT_NEAR(b->stats.nic_capacity_bytes_measured, a->stats.nic_capacity_bytes_measured,
                1e-9 * a->stats.nic_capacity_bytes_measured);
    EXPECT_NEAR(b->stats.nvlink_capacity_bytes_measured, a->stats.nvlink_capacity_bytes_measured,
                1e-9 * a->stats.nvlink_capacity_bytes_measured);
  }
}

model::ClusterSpec Rails() {
  model::ClusterSpec c = RailOptimized(PaperCluster(2, 4, 6));
  c.nccl.inter_bandwidth_efficiency = 0.8;
  c.nccl.channels = 40;  // NCCL kernels hold half of the 80 SMs
  return c;
}

TEST(TransferWait, FullAndClassesWithPerturbationsAreExact) {
  const sim::Perturbations p = DegradedNicAndSecondJob(/*slow_node=*/2, /*slowdown=*/1.2);
  for (sim::Reduction r : {sim::Reduction::kFull, sim::Reduction::kClasses})
    ExpectOneWakeExact(Rails(), p, r);
}

TEST(TransferWait, SymmetricFatTreeAndThePluginAreExact) {
  const model::ClusterSpec c = FatTree(PaperCluster(1, 8, 8), 2, 2);
  ExpectOneWakeExact(c, {}, sim::Reduction::kSymmetric);
  ExpectOneWakeExact(c, {}, sim::Reduction::kFull, sim::Fidelity::kMacro, /*plugin=*/true);
}

TEST(TransferWait, StepFidelityIsExact) {
  ExpectOneWakeExact(FatTree(PaperCluster(1, 4, 4), 2, 2), {}, sim::Reduction::kFull, sim::Fidelity::kStep);
}

}  // namespace
}  // namespace zerosim::testing
