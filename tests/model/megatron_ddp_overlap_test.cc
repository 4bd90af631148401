// Megatron-Core's DDP overlap options on its distributed optimizer (ZeroConfig::overlap_grad_reduce,
// overlap_param_gather; model/builders/zero12_builder.cc): the same bytes as the stage-1 schedule, in
// Megatron's buckets, the reduce-scatters during the last backward and the gathers ahead of the forward.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "model/report/evaluate.h"
#include "model/builders/schedule_builder.h"
#include "strategy_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::Op;
using model::OpKind;
using model::Phase;
using model::Strategy;

model::ZeroConfig Megatron(bool grad, bool param) {
  model::ZeroConfig z = StrategyConfig(Strategy::kZero1);
  z.gradient_accumulation_steps = 2;
  z.overlap_grad_reduce = grad;
  z.overlap_param_gather = param;
  return z;
}

struct Counted {
  int reduce_scatters = 0;
  int gathers = 0;
  double reduce_bytes = 0;
  double gather_bytes = 0;
};

Counted Count(const model::Schedule& s) {
  Counted c;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    if (op.coll.kind == CollectiveKind::kReduceScatter) {
      ++c.reduce_scatters;
      c.reduce_bytes += op.coll.buffer_bytes;
    } else if (op.coll.kind == CollectiveKind::kAllGather) {
      ++c.gathers;
      c.gather_bytes += op.coll.buffer_bytes;
    }
  }
  return c;
}

const model::ClusterSpec kCluster = PaperCluster(1, 4, 8);  // 32 data-parallel ranks over 4 nodes

TEST(MegatronDdpOverlap, MovesNoByteOnlyWhenAndInWhatPiecesTheyGo) {
  const model::ModelSpec m = EvenGpt(4, 2048);
  const Counted plain = Count(model::BuildSchedule(m, Megatron(false, false), kCluster));
  const Counted overlapped = Count(model::BuildSchedule(m, Megatron(true, true), kCluster));
  // EvenGpt's sizes divide 32 ranks: no padding either way.
  EXPECT_NEAR(overlapped.reduce_bytes, plain.reduce_bytes, 1e-9 * plain.reduce_bytes);
  EXPECT_NEAR(overlapped.gather_bytes, plain.gather_bytes, 1e-9 * plain.gather_bytes);
  // Megatron's default bucket at 32 ranks is max(4e7, 3.2e7) = 4e7 elements: every bucket but the last
  // closes once it holds that many (a bucket may hold more: a parameter is never split), so the reduce-scatter
  // buffers are that large in the reduction's format (2 bytes here), the last one excepted.
  const model::Schedule s = model::BuildSchedule(m, Megatron(true, true), kCluster);
  int seen = 0;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.coll.kind != CollectiveKind::kReduceScatter) continue;
    if (++seen < overlapped.reduce_scatters) {
      EXPECT_GE(op.coll.buffer_bytes, 4e7 * 2.0);
    }
  }
  EXPECT_GE(overlapped.reduce_scatters, 3);
  EXPECT_LE(overlapped.reduce_scatters, static_cast<int>(EvenGptParams(m) / 4e7) + 1);
  EXPECT_EQ(overlapped.gathers, overlapped.reduce_scatters);  // one gather per bucket
  // A stated bucket twice as large halves the count (within the partial bucket).
  model::ZeroConfig big = Megatron(true, true);
  big.ddp_bucket_size = 8e7;
  const Counted halved = Count(model::BuildSchedule(m, big, kCluster));
  EXPECT_LT(halved.reduce_scatters, overlapped.reduce_scatters);
  // At 64 data-parallel ranks the default grows to 6.4e7 (1e6 per rank).
  const model::ClusterSpec wide = PaperCluster(1, 8, 8);
  model::ZeroConfig stated = Megatron(true, true);
  stated.ddp_bucket_size = 6.4e7;
  EXPECT_EQ(Count(model::BuildSchedule(m, Megatron(true, true), wide)).reduce_scatters,
            Count(model::BuildSchedule(m, stated, wide)).reduce_scatters);
}

TEST(MegatronDdpOverlap, ReducesDuringTheLastBackwardAndGathersBeforeTheFirstForward) {
  const model::ModelSpec m = EvenGpt(4, 2048);
  const model::Schedule s = model::BuildSchedule(m, Megatron(true, true), kCluster);
  int first_reduce = -1, last_backward_compute = -1, first_compute = -1, gathers_before_first_compute = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind == OpKind::kCollective && op.coll.kind == CollectiveKind::kReduceScatter) {
      EXPECT_EQ(op.micro_step, 1) << "the gradients are reduced in the last micro-batch only (no_sync before)";
      if (first_reduce < 0) first_reduce = static_cast<int>(i);
    }
    if (op.kind == OpKind::kCollective && op.coll.kind == CollectiveKind::kAllGather) {
      EXPECT_EQ(op.phase, Phase::kForward) << "no gather after the step";
      if (first_compute < 0) ++gathers_before_first_compute;
    }
    if (op.kind == OpKind::kCompute && op.queue == model::Queue::kCompute) {
      if (first_compute < 0) first_compute = static_cast<int>(i);
      if (op.phase == Phase::kBackward && op.micro_step == 1) last_backward_compute = static_cast<int>(i);
    }
  }
  ASSERT_GE(first_reduce, 0);
  EXPECT_LT(first_reduce, last_backward_compute) << "buckets are reduced while the backward goes on";
  // The first bucket, and the one after it dispatched by the first forward pre-hook: not every bucket at once.
  EXPECT_EQ(gathers_before_first_compute, 2);
}

TEST(MegatronDdpOverlap, HidesDataParallelTimeAcrossNodes) {
  const model::ModelSpec m = EvenGpt(8, 2048);
  const model::Calibration cal = TestCalibration();
  for (int queues : {8, 1}) {  // CUDA_DEVICE_MAX_CONNECTIONS: Megatron runs with 1
    model::ZeroConfig plain = Megatron(false, false), overlapped = Megatron(true, true);
    plain.runtime.cuda_device_max_connections = overlapped.runtime.cuda_device_max_connections = queues;
    const model::VariantReport a = model::EvaluateAnalyticVariant("plain", {m, plain, kCluster, cal});
    const model::VariantReport b = model::EvaluateAnalyticVariant("overlap", {m, overlapped, kCluster, cal});
    ASSERT_TRUE(a.feasible && b.feasible);
    EXPECT_LT(b.iteration_time_s, a.iteration_time_s) << queues << " hardware queues";
    EXPECT_LT(b.exposed_comm_s, a.exposed_comm_s) << queues << " hardware queues";
    EXPECT_NEAR(b.compute_s, a.compute_s, 1e-9 * a.compute_s);
    EXPECT_GE(b.iteration_time_s, b.compute_s);
    // Only the gradient reduction option: between the two.
    model::ZeroConfig grad_only = Megatron(true, false);
    grad_only.runtime.cuda_device_max_connections = queues;
    const model::VariantReport g = model::EvaluateAnalyticVariant("grad", {m, grad_only, kCluster, cal});
    EXPECT_LE(g.iteration_time_s, a.iteration_time_s * (1 + 1e-12));
    EXPECT_GE(g.iteration_time_s, b.iteration_time_s * (1 - 1e-12));
  }
}

TEST(MegatronDdpOverlap, RefusedOutsideTheDistributedOptimizerAndWithoutGradientOverlap) {
  const model::ModelSpec m = EvenGpt();
  auto refused_by = [&](const model::ZeroConfig& z) {
    std::string keys;
    for (const model::Problem& p : Validate(m, z, kCluster)) keys += p.key + ";";
    return keys;
  };
  model::ZeroConfig zero3 = StrategyConfig(Strategy::kZero3);
  zero3.overlap_grad_reduce = true;
  EXPECT_NE(refused_by(zero3).find("overlap_grad_reduce;"), std::string::npos);
  EXPECT_NE(refused_by(Megatron(false, true)).find("overlap_param_gather;"), std::string::npos);
  EXPECT_EQ(refused_by(Megatron(true, true)).find("overlap_"), std::string::npos);
}

}  // namespace
}  // namespace zerosim::testing
