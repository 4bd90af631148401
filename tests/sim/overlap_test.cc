// Overlap is simulated, not assumed: with compute much longer than communication, exposed communication
// tends to the part nothing can hide (the first gather, the last reduction).
#include <gtest/gtest.h>

#include "model/analytic.h"
#include "model/schedule_builder.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;

model::Op Compute(double flops, int dep) {
  model::Op op;
  op.kind = model::OpKind::kCompute;
  op.queue = model::Queue::kCompute;
  op.flops = flops;
  op.num_deps = 1;
  op.deps[0] = dep;
  return op;
}

TEST(Overlap, ExposedCommunicationTendsToTheNonOverlappablePart) {
  // gather 0; compute 0 (needs gather 0) while gather 1 is prefetched; compute 1 (needs gather 1);
  // reduce-scatter (needs compute 1).
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  const model::Op ag = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1e9);
  model::Op rs = CollectiveOp(c, CollectiveKind::kReduceScatter, GroupKind::kGlobal, 1e9);
  rs.num_deps = 1;
  rs.deps[0] = 3;
  const double t_comm = AnalyticTime(ag, c);
  const double non_overlappable = t_comm + AnalyticTime(rs, c);
  const double flops_per_s = c.gpu.peak_flops * model::GemmEfficiencyAt(TestCalibration().gemm, 2048);
  double previous_excess = 1e30;
  for (double ratio : {0.5, 2.0, 10.0, 100.0}) {  // compute time / communication time
    const double flops = ratio * t_comm * flops_per_s;
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(
        ScheduleOf(c, {ag, Compute(flops, 0), ag, Compute(flops, 2), rs}), c, TestCalibration(), {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    const double excess = r->timing.exposed_comm_s - non_overlappable;
    EXPECT_GE(excess, -1e-9);
    EXPECT_LE(excess, previous_excess + 1e-9);
    if (ratio >= 1) {
      EXPECT_NEAR(r->timing.exposed_comm_s / non_overlappable, 1.0, 1e-6) << ratio;
    }
    previous_excess = excess;
  }
}

TEST(Overlap, CollectivesTakeTheirInterferenceShareOfTheGpu) {
  // A gather running beside a GEMM twice its length: NCCL's kernels take compute_interference of the GPU
  // while the gather runs, so the GEMM finishes that share of the gather later.
  for (double f : {0.25, 0.5, 1.0}) {
    model::ClusterSpec c = PaperCluster(1, 4, 8);
    c.nccl.compute_interference = f;
    const model::Op ag = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1e9);
    const double t_comm = AnalyticTime(ag, c);
    const double flops_per_s = c.gpu.peak_flops * model::GemmEfficiencyAt(TestCalibration().gemm, 2048);
    model::Op gemm = Compute(2 * t_comm * flops_per_s, 0);
    gemm.num_deps = 0;
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(ScheduleOf(c, {ag, gemm}), c, TestCalibration(), {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_NEAR(r->timing.finish_s[1], (2 + f) * t_comm, 1e-5 * t_comm) << f;
    EXPECT_NEAR(r->timing.interference_s, f * t_comm, 1e-5 * t_comm) << f;
    const model::Timing a = model::EvaluateAnalytic(ScheduleOf(c, {ag, gemm}), c, TestCalibration());
    EXPECT_NEAR(r->timing.iteration_s, a.iteration_s, 1e-5 * a.iteration_s) << f;
  }
}

TEST(Overlap, SlowGpusHideAWholeIterationsCommunication) {
  // The paper's 18B on 384 GPUs with GPUs 20x slower: compute dwarfs communication, and what stays
  // exposed is a small, fixed part, the same in the DES and the analytic model.
  model::ClusterSpec c = PaperCluster(4);
  c.gpu.peak_flops /= 20;
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus()}) {
    const model::Schedule s = model::BuildSchedule(Gpt18B(), z, c);
    const model::Timing a = model::EvaluateAnalytic(s, c, TestCalibration());
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_LT(r->timing.exposed_comm_s, 0.01 * r->timing.iteration_s);
    EXPECT_NEAR(r->timing.exposed_comm_s, a.exposed_comm_s, 0.1 * a.exposed_comm_s + 1e-3);
  }
}

}  // namespace
}  // namespace zerosim::testing
