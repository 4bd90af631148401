// Collectives of different groups in flight at once each run every one of their instances. With CUDA's 8
// hardware queues an hpZ gather on its NCCL stream runs beside a global gather on the data-parallel stream; the
// replay keyed each op's instances by op index x that group's instance count, so op 1's hpZ instance 0 (key 1
// x 2) and op 2's global instance (key 2 x 1) shared one arrival count, and an instance never ran (DeepSpeed-Chat's
// RLHF ZeRO++ passes lost 0.2-0.4% of their NVSwitch bytes: "bytes per tier differ", on eca6508 too).
#include <gtest/gtest.h>

#include "model/placement/traffic.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;

TEST(ConcurrentGroups, EveryInstanceOfEachCollectiveRunsOnce) {
  const model::ClusterSpec c = PaperCluster(1, 2, 4);
  model::Op compute;
  compute.kind = model::OpKind::kCompute;
  compute.queue = model::Queue::kCompute;
  compute.flops = 1e9;
  const model::Op hpz =
      CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kHpz, 1e8, 4, model::Queue::kNcclHpz);
  const model::Op global = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1e8);
  const model::Schedule s = ScheduleOf(c, {compute, hpz, global}, 4);
  const model::TierVolumes want = model::SumTraffic(s, c);
  for (sim::Reduction r : {sim::Reduction::kFull, sim::Reduction::kClasses, sim::Reduction::kSymmetric}) {
    sim::SimOptions o;
    o.reduction = r;
    StatusOr<sim::SimResult> got = sim::SimulateIsolated(s, c, TestCalibration(), o);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectSameVolumes(want, got->volumes, "reduction " + std::to_string(static_cast<int>(r)));
    // Both gathers start at once and overlap.
    EXPECT_LT(got->timing.start_s[2], got->timing.finish_s[1]);
  }
}

}  // namespace
}  // namespace zerosim::testing
