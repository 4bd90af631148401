// Tensor-parallel communication overlap (ParallelLayout::tp_comm_overlap; model/builders/schedule_parts.cc
// EmitModuleCompute): Megatron-Core's --tp-comm-overlap / TransformerEngine's userbuffers. The overlap moves
// no byte and no FLOP; it only lets the transformer layers' TP collectives run beside their GEMMs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model/cost/placed_collectives.h"
#include "model/placement/traffic.h"
#include "model/report/evaluate.h"
#include "model/builders/schedule_builder.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

ParallelLayout Tp(int t, bool overlap) {
  ParallelLayout l;
  l.tensor = t;
  l.sequence_parallel = true;
  l.tp_comm_overlap = overlap;
  return l;
}

ZeroConfig Zero1() {
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  z.framework = FrameworkOf(z.strategy);
  z.train_micro_batch_size_per_gpu = 2;
  return z;
}

double Sum(const Schedule& s, bool collectives) {
  double sum = 0;
  for (const Op& op : s.ops) {
    if (collectives && op.kind == OpKind::kCollective && op.purpose == Purpose::kTensorParallel) {
      sum += op.coll.buffer_bytes;
    } else if (!collectives && op.kind == OpKind::kCompute) {
      sum += op.flops;
    }
  }
  return sum;
}

TEST(TpOverlap, MovesNoByteAndNoFlop) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  const Schedule plain = BuildSchedule(m, Zero1(), RankShape(c, Tp(8, false)));
  const Schedule overlapped = BuildSchedule(m, Zero1(), RankShape(c, Tp(8, true)));
  EXPECT_TRUE(overlapped.tp_comm_overlap);
  EXPECT_NEAR(Sum(overlapped, true), Sum(plain, true), 1e-9 * Sum(plain, true));
  EXPECT_NEAR(Sum(overlapped, false), Sum(plain, false), 1e-9 * Sum(plain, false));
  // The same bytes on every tier of the cluster.
  const TierVolumes a = WireVolumes(plain, c), b = WireVolumes(overlapped, c);
  for (int p = 0; p < kNumPurposes; ++p) {
    const auto i = static_cast<size_t>(p);
    EXPECT_NEAR(a.intra_node[i], b.intra_node[i], 1e-9 * std::max(1.0, a.intra_node[i])) << p;
    EXPECT_NEAR(a.cross_node[i], b.cross_node[i], 1e-9 * std::max(1.0, a.cross_node[i])) << p;
  }
  EXPECT_GT(a.intra_total(), 0);
}

TEST(TpOverlap, ColumnGemmsRunBesideTheirGatherAndRowGemmsBesideTheirReduceScatter) {
  const ModelSpec m = testing::Gpt18B();
  const Schedule s = BuildSchedule(m, Zero1(), RankShape(testing::PaperCluster(1, 4, 8), Tp(8, true)));
  // In a block's forward, each TP all-gather on the TP stream is followed by a GEMM chunk that does not
  // depend on it (it runs beside it), and the compute stream waits for the gather before the last chunk.
  int gathers = 0, beside = 0;
  for (size_t i = 0; i + 1 < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCollective || op.coll.kind != CollectiveKind::kAllGather ||
        op.purpose != Purpose::kTensorParallel || op.phase != Phase::kForward || op.micro_step != 0) {
      continue;
    }
    const int module = op.module;
    if (module < 0 || s.graph.modules[static_cast<size_t>(module)].layer < 0) continue;
    ++gathers;
    const Op& next = s.ops[i + 1];
    if (next.kind == OpKind::kCompute) {
      bool waits = false;
      for (int k = 0; k < next.num_deps; ++k) waits = waits || next.deps[static_cast<size_t>(k)] == static_cast<int>(i);
      if (!waits) ++beside;
    }
  }
  EXPECT_EQ(gathers, 2 * m.layers);  // QKV and fc1 of every block
  EXPECT_EQ(beside, gathers);
}

TEST(TpOverlap, HidesTensorParallelTimeWithoutSlowingWhatItDoesNotTouch) {
  const ModelSpec m = testing::Gpt(16, 4096, 32);  // fits one node of 32 GB GPUs under ZeRO-1 with t = 8
  const ClusterSpec c = testing::PaperCluster(1, 1, 8);
  const Calibration cal = testing::TestCalibration();
  const VariantReport plain = EvaluateAnalyticVariant("plain", {m, Zero1(), c, cal, Tp(8, false)});
  const VariantReport overlapped = EvaluateAnalyticVariant("overlap", {m, Zero1(), c, cal, Tp(8, true)});
  ASSERT_TRUE(Ran(plain));
  ASSERT_TRUE(Ran(overlapped));
  EXPECT_LT(overlapped.iteration_time_s, plain.iteration_time_s);
  EXPECT_LT(overlapped.exposed_comm_s, plain.exposed_comm_s);
  // The GEMMs' own time is split into chunks, not changed.
  EXPECT_NEAR(overlapped.compute_s, plain.compute_s, 1e-9 * plain.compute_s);
  // Never faster than its compute.
  EXPECT_GE(overlapped.iteration_time_s, overlapped.compute_s);
}

TEST(TpOverlap, NeedsSequenceParallelismAndATensorGroup) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ParallelLayout no_sp = Tp(8, true);
  no_sp.sequence_parallel = false;
  bool refused = false;
  for (const Problem& p : testing::Validate(m, Zero1(), c, no_sp)) refused = refused || p.key == "tp_comm_overlap";
  EXPECT_TRUE(refused);
  ParallelLayout no_tp = Tp(1, true);
  refused = false;
  for (const Problem& p : testing::Validate(m, Zero1(), c, no_tp)) refused = refused || p.key == "tp_comm_overlap";
  EXPECT_TRUE(refused);
  for (const Problem& p : testing::Validate(m, Zero1(), c, Tp(8, true))) EXPECT_NE(p.key, "tp_comm_overlap");
}

}  // namespace
}  // namespace zerosim::model
