// Uncontended single collectives: the DES equals NCCL's closed form (collective_time.h) to 1e-6 relative;
// macro-flow equals step-level within 1% at 512 GPUs.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;

struct Case {
  CollectiveKind kind;
  GroupKind group;
};

constexpr Case kCases[] = {
    {CollectiveKind::kAllGather, GroupKind::kGlobal},     {CollectiveKind::kReduceScatter, GroupKind::kGlobal},
    {CollectiveKind::kAllGather, GroupKind::kHpz},        {CollectiveKind::kAllToAll, GroupKind::kLocal},
    {CollectiveKind::kAllToAll, GroupKind::kCrossNode},
};

void ExpectMatchesClosedForm(const model::ClusterSpec& c, sim::Reduction reduction) {
  for (const Case& k : kCases) {
    for (double bytes : {64e6, 1.5e9}) {
      const model::Op op = CollectiveOp(c, k.kind, k.group, bytes, /*hpz=*/c.gpus_per_node / 2);
      sim::SimOptions o;
      o.reduction = reduction;
      const double des = SimulatedTime(ScheduleOf(c, {op}, c.gpus_per_node / 2), c, o);
      const double closed = AnalyticTime(op, c);
      EXPECT_NEAR(des / closed, 1.0, 1e-6) << c.total_gpus() << " GPUs, " << model::CollectiveKindName(k.kind)
                                           << " over " << model::GroupKindName(k.group) << ", " << bytes << " B";
    }
  }
}

TEST(Collective, UncontendedEqualsClosedForm16Gpus) {
  ExpectMatchesClosedForm(PaperCluster(1, 2, 8), sim::Reduction::kFull);
  ExpectMatchesClosedForm(PaperCluster(2, 2, 8), sim::Reduction::kSymmetric);
}

TEST(Collective, UncontendedEqualsClosedForm64Gpus) {
  ExpectMatchesClosedForm(PaperCluster(4, 4, 16), sim::Reduction::kFull);
  ExpectMatchesClosedForm(PaperCluster(1, 4, 16), sim::Reduction::kSymmetric);
}

TEST(Collective, UncontendedEqualsClosedForm256Gpus) {
  ExpectMatchesClosedForm(PaperCluster(4, 16, 16), sim::Reduction::kFull);
  ExpectMatchesClosedForm(PaperCluster(2, 16, 16), sim::Reduction::kSymmetric);
}

// Step-level (511 ring steps, 310k flows) against macro-flow (38 flows on two symmetric nodes) at 512 GPUs.
TEST(Collective, MacroFlowEqualsStepLevelAt512Gpus) {
  const model::ClusterSpec c = PaperCluster(4, 32, 16);
  const model::Op op = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1.5e9);
  sim::SimOptions step;
  step.fidelity = sim::Fidelity::kStep;
  const double macro_s = SimulatedTime(ScheduleOf(c, {op}), c);
  const double step_s = SimulatedTime(ScheduleOf(c, {op}), c, step);
  EXPECT_NEAR(step_s / macro_s, 1.0, 0.01);
  EXPECT_NEAR(macro_s / AnalyticTime(op, c), 1.0, 1e-6);
}

// The same under contention: a 4:1 fat tree with 2 nodes per leaf (the cross-leaf ring edges get half a
// node's NIC bandwidth) and an hpZ all-gather sharing the NVSwitch ports.
TEST(Collective, MacroFlowEqualsStepLevelUnderContention) {
  const model::ClusterSpec c = FatTree(PaperCluster(1, 32, 16), 2, 4);
  const model::Op global = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 0.5e9);
  const model::Op hpz =
      CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kHpz, 4e9, 16, model::Queue::kNcclHpz);
  sim::SimOptions step;
  step.fidelity = sim::Fidelity::kStep;
  const double macro_s = SimulatedTime(ScheduleOf(c, {global, hpz}, 16), c);
  const double step_s = SimulatedTime(ScheduleOf(c, {global, hpz}, 16), c, step);
  EXPECT_NEAR(step_s / macro_s, 1.0, 0.01);
}

// A whole-cluster all-reduce (FSDP NO_SHARD) at NCCL's tuner's pick, replayed as the ring's flows at the
// tuner's latency and bandwidth factor (sim/README.md): 4 nodes of 8 H100, NCCL 2.27, the tree at 1 MiB, the
// ring at 1 GiB (model/nccl_allreduce_test.cc works both out); macro-flow and step-level both equal it.
TEST(Collective, WholeClusterAllReduceReplaysTheTunersPick) {
  model::ClusterSpec c = PaperCluster(4, 4, 8);
  c.gpu.name = "H100-SXM-80GB";
  c.intra.bandwidth_Bps = 450e9;
  c.nic.bandwidth_Bps = 50e9;
  ASSERT_TRUE(model::NcclLibraryForRelease("2.27.7", &c.nccl));
  for (double bytes : {1024.0 * 1024, 1024.0 * 1024 * 1024}) {
    const model::Op op = CollectiveOp(c, CollectiveKind::kAllReduce, GroupKind::kGlobal, bytes);
    const model::CollectiveTime tuned =
        model::EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, c));
    EXPECT_STREQ(tuned.algorithm, bytes < 1e9 ? "Tree" : "Ring");
    sim::SimOptions step;
    step.fidelity = sim::Fidelity::kStep;
    EXPECT_NEAR(SimulatedTime(ScheduleOf(c, {op}), c) / tuned.seconds, 1.0, 1e-6) << bytes << " B";
    // Step level: 62 steps of whole-byte flows (a 1 MiB buffer's 32 KiB chunks) round at the 1e-5 level.
    EXPECT_NEAR(SimulatedTime(ScheduleOf(c, {op}), c, step) / tuned.seconds, 1.0, 1e-4) << bytes << " B";
  }
}

}  // namespace
}  // namespace zerosim::testing
