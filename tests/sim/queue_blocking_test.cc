// Exposed communication's "one hardware queue" part, measured by the SimGrid replay: with
// CUDA_DEVICE_MAX_CONNECTIONS=1 a compute op that is ready (its stream free, its deps done) still waits until
// the GPU op issued before it has started (model/schedule/schedule.h); the replay adds that wait, on rank 0,
// to Timing::queue_blocking_s, the same quantity model/analytic/analytic.cc measures.
#include <gtest/gtest.h>

#include "model/analytic/analytic.h"
#include "model/cost/nccl_channels.h"
#include "model/builders/schedule_builder.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;
using model::Op;
using model::Queue;

Op Gemm(double flops) {
  Op op;
  op.kind = model::OpKind::kCompute;
  op.queue = Queue::kCompute;
  op.flops = flops;
  return op;
}

TEST(QueueBlocking, ComputeHeldBehindAnEarlierIssuedOpIsCounted) {
  // No SMs for NCCL (share 0), so every duration is its nominal one and the timeline is closed-form, with t
  // the gather's time and T = t / 4 each GEMM's:
  //   0 gather A   [0, t]                     NCCL stream
  //   1 GEMM G0    [0, T]                     ready 0, A started at 0: not held
  //   2 gather B   [t, 2t]                    its stream is free at t
  //   3 GEMM G1    [t, t + T]                 ready at T (G0 done), held until B starts: t - T
  //   4 copy M     [2t, ...]                  reduce stream, needs B
  //   5 GEMM G2    [2t, ...]                  ready at t + T (G1 done), held until M starts: t - T
  // One hardware queue holds compute 2 (t - T) = 1.5 t; eight hold nothing.
  model::ClusterSpec c = PaperCluster(1, 4, 8);
  c.gpu.sms = 0;
  ASSERT_EQ(model::NcclSmShare(c), 0.0);
  const Op ag = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1e9);
  const double t = AnalyticTime(ag, c);
  const double flops_per_s = c.gpu.peak_flops * TestCalibration().compute.gemm;
  Op copy;
  copy.kind = model::OpKind::kMemory;
  copy.queue = Queue::kReduceStream;
  copy.occupies_gpu = true;
  copy.memory_bytes = 1e8;
  copy.num_deps = 1;
  copy.deps[0] = 2;
  const Op gemm = Gemm(t / 4 * flops_per_s);
  for (int queues : {1, 8}) {
    model::Schedule s = ScheduleOf(c, {ag, gemm, ag, gemm, copy, gemm});
    s.hardware_queues = queues;
    const double expected = queues == 1 ? 1.5 * t : 0.0;
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_NEAR(r->timing.queue_blocking_s, expected, 1e-6 * t) << queues;
    EXPECT_NEAR(r->timing.start_s[5], queues == 1 ? 2 * t : 0.5 * t, 1e-6 * t) << queues;
    const model::Timing a = model::EvaluateAnalytic(s, c, TestCalibration());
    EXPECT_NEAR(a.queue_blocking_s, expected, 1e-9 * t) << queues;
  }
}

TEST(QueueBlocking, BothEnginesMeasureTheSameOnARealSchedule) {
  // A GPT of 8 layers under ZeRO-3 and ZeRO++ on 4 nodes of 8 GPUs with one 100 Gbps NIC each, one hardware
  // queue. No link carries two collectives' flows, so the replay's collectives take the analytic times. The
  // engines then differ only in how GPU work shares the GPU: side-stream kernels and copies (the replay
  // shares the GPU between them and compute as SimGrid shares a host; model/analytic/analytic.cc runs them at
  // full rate and pushes compute back by them) and NCCL's SMs (the replay also slows side work by that
  // share).
  //  - Without either (free side work, no SMs for NCCL) the timelines are the same, and so is the blocking.
  //  - With both, each ready or start time moves by at most the GPU time in dispute, so the blocking differs
  //    by at most gpu_side_s + interference_s.
  for (bool shared : {false, true}) {
    model::ClusterSpec c = PaperCluster(1, 4, 8);
    model::Calibration cal = TestCalibration();
    if (!shared) {
      c.gpu.sms = 0;
      cal.copy_Bps = 1e18;
      for (auto& k : cal.kernels) k.fit = {0, 1e18};
    }
    for (model::ZeroConfig z : {model::ZeroConfig{}, ZeroPlusPlus(8)}) {
      z.runtime.cuda_device_max_connections = 1;
      const model::Schedule s = model::BuildSchedule(Gpt(8, 2048, 16), z, c);
      ASSERT_EQ(s.hardware_queues, 1);
      const model::Timing a = model::EvaluateAnalytic(s, c, cal);
      StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, cal, {});
      ASSERT_TRUE(r.ok()) << r.status().message();
      ASSERT_GT(a.queue_blocking_s, 0.0);
      const double disputed = shared ? a.gpu_side_s + r->timing.interference_s : 1e-6 * a.queue_blocking_s;
      if (shared) {
        ASSERT_GT(disputed, 0.0);
      }
      EXPECT_NEAR(r->timing.queue_blocking_s, a.queue_blocking_s, disputed)
          << shared << " " << z.zero_hpz_partition_size;
      EXPECT_NEAR(r->timing.iteration_s / a.iteration_s, 1.0, 1e-3)
          << shared << " " << z.zero_hpz_partition_size;
    }
  }
}

}  // namespace
}  // namespace zerosim::testing
