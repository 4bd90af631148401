#include "model/builders/pipeline_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace zerosim::model {
namespace {

// Narayanan et al. (SC'21) sec. 2.2: with uniform stages and free transfers the bubble is (p - 1) / m for
// 1F1B and GPipe and (p - 1) / (m v) for the interleaved schedule; it is measured here from the timeline the
// orders give, which knows nothing of that formula.
TEST(PipelineSchedule, BubbleFractionIsTheSchedulesOwn) {
  for (int p : {2, 4, 8}) {
    for (int v : {1, 2, 4}) {
      for (int mult : {1, 2, 4, 8}) {
        const int m = mult * p;
        const PipelineSchedule kind = v > 1 ? PipelineSchedule::kInterleaved1F1B : PipelineSchedule::k1F1B;
        // A chunk's passes: forward 1, backward 2 (the backward's two GEMMs per forward one).
        const std::vector<StagePassTimes> times(static_cast<size_t>(p), StagePassTimes{1.0 / v, 2.0 / v});
        const PipelineTimeline t = RunPipeline(kind, p, v, m, times, 0.0);
        const double expected = (p - 1.0) / (m * v);
        for (int i = 0; i < p; ++i) {
          EXPECT_NEAR(t.stage_bubble_fraction[static_cast<size_t>(i)], expected, 0.01 * expected)
              << "p " << p << " v " << v << " m " << m << " stage " << i;
        }
        EXPECT_NEAR(t.makespan_s, m * 3.0 * (1 + expected), 1e-9);
        if (v == 1) {
          const PipelineTimeline g = RunPipeline(PipelineSchedule::kGPipe, p, 1, m, times, 0.0);
          EXPECT_NEAR(g.bubble_fraction, (p - 1.0) / m, 1e-9);
        }
      }
    }
  }
}

// Every stage runs each (micro-batch, chunk) forward and backward exactly once, the backward after its
// forward.
TEST(PipelineSchedule, EveryPassOnceBackwardAfterForward) {
  for (PipelineSchedule kind :
       {PipelineSchedule::k1F1B, PipelineSchedule::kInterleaved1F1B, PipelineSchedule::kGPipe}) {
    const int p = 4, v = kind == PipelineSchedule::kInterleaved1F1B ? 3 : 1, m = 8;
    for (int i = 0; i < p; ++i) {
      const std::vector<PipelinePass> order = PipelineOrder(kind, p, v, m, i);
      ASSERT_EQ(order.size(), static_cast<size_t>(2 * m * v));
      for (int j = 0; j < m; ++j) {
        for (int c = 0; c < v; ++c) {
          const auto f = std::find(order.begin(), order.end(), PipelinePass{false, j, c});
          const auto b = std::find(order.begin(), order.end(), PipelinePass{true, j, c});
          ASSERT_NE(f, order.end());
          ASSERT_NE(b, order.end());
          EXPECT_LT(f, b);
        }
      }
    }
  }
}

// Activations in flight (design sec. 2.2): 1F1B keeps min(m, p - i) micro-batches on stage i, GPipe all m;
// the interleaved schedule's stage i holds its warm-up's (p - i - 1) 2 + (v - 1) p chunks plus the steady
// state's one (Megatron's schedules.py), counted in chunks of L / (p v) layers.
TEST(PipelineSchedule, MicroBatchesInFlight) {
  const int p = 4, m = 8;
  const std::vector<StagePassTimes> times(p, StagePassTimes{1, 2});
  const PipelineTimeline t = RunPipeline(PipelineSchedule::k1F1B, p, 1, m, times, 0.0);
  for (int i = 0; i < p; ++i) EXPECT_EQ(t.max_in_flight[static_cast<size_t>(i)], std::min(m, p - i));
  EXPECT_EQ(RunPipeline(PipelineSchedule::kGPipe, p, 1, m, times, 0.0).max_in_flight[0], m);
  const int v = 2;
  const PipelineTimeline iv = RunPipeline(PipelineSchedule::kInterleaved1F1B, p, v, m, times, 0.0);
  EXPECT_EQ(iv.max_in_flight[0], (p - 1) * 2 + (v - 1) * p + 1);
  EXPECT_EQ(iv.max_in_flight[p - 1], (v - 1) * p + 1);
}

// Transfers between stages lengthen the pipeline: with blocking sends more than without, and both more than
// none; every stage still runs its passes in order.
TEST(PipelineSchedule, TransfersAddToTheCriticalPath) {
  const int p = 4, m = 8;
  const std::vector<StagePassTimes> times(p, StagePassTimes{1, 2});
  const double free = RunPipeline(PipelineSchedule::k1F1B, p, 1, m, times, 0.0).makespan_s;
  const double async = RunPipeline(PipelineSchedule::k1F1B, p, 1, m, times, 0.1, false).makespan_s;
  const double blocking = RunPipeline(PipelineSchedule::k1F1B, p, 1, m, times, 0.1, true).makespan_s;
  EXPECT_GT(async, free);
  EXPECT_GT(blocking, async);
  // The fill and drain cross 2 (p - 1) transfers at least.
  EXPECT_GE(async, free + 2 * (p - 1) * 0.1 - 1e-9);
  // One slow stage sets the steady state: m of its passes at least.
  std::vector<StagePassTimes> slow = times;
  slow[1] = {2, 4};
  EXPECT_GE(RunPipeline(PipelineSchedule::k1F1B, p, 1, m, slow, 0.0).makespan_s, m * 6.0);
}

// Pass times per virtual stage (p v entries): the same as per stage where the chunks are alike; a heavier last
// chunk (the logit layer and the loss on stage p - 1's chunk v - 1) with the same stage total lengthens the
// pipeline, since every micro-batch's backward starts behind it.
TEST(PipelineSchedule, PerChunkPassTimes) {
  const int p = 4, v = 2, m = 8;
  const std::vector<StagePassTimes> per_stage(p, StagePassTimes{1.0 / v, 2.0 / v});
  const std::vector<StagePassTimes> per_chunk(p * v, StagePassTimes{1.0 / v, 2.0 / v});
  const PipelineTimeline a = RunPipeline(PipelineSchedule::kInterleaved1F1B, p, v, m, per_stage, 0.0);
  const PipelineTimeline b = RunPipeline(PipelineSchedule::kInterleaved1F1B, p, v, m, per_chunk, 0.0);
  EXPECT_DOUBLE_EQ(a.makespan_s, b.makespan_s);
  std::vector<StagePassTimes> heavy_end = per_chunk;
  heavy_end[(v - 1) * p + p - 1] = {0.8, 1.6};  // stage 3, chunk 1
  heavy_end[0 * p + p - 1] = {0.2, 0.4};        // stage 3, chunk 0: the stage's total unchanged
  const PipelineTimeline c = RunPipeline(PipelineSchedule::kInterleaved1F1B, p, v, m, heavy_end, 0.0);
  EXPECT_DOUBLE_EQ(c.busy_s[p - 1], a.busy_s[p - 1]);
  EXPECT_GT(c.makespan_s, a.makespan_s);
}

}  // namespace
}  // namespace zerosim::model
