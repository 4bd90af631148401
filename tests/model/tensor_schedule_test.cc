// Tensor parallelism in the schedule (issue 22 step 4; docs/design/tensor_pipeline.md sec. 1.2, 1.3, 3.1):
// one TP rank's schedule carries Megatron's TP collectives over GroupKind::kTensor with the bytes per block
// and pass of the design's table, its data-parallel collectives span the d = P / t ranks of its DP group
// (tp-dp-pp order: stride t, one rank per node when t = N), and the engines' placement puts a TP group
// inside a node unless it is larger than one.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/placement/traffic.h"
#include "model/report/memory.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// The bytes a ring collective sends out of each member: 2 (g-1)/g of the buffer for an all-reduce,
// (g-1)/g for an all-gather or reduce-scatter (traffic.h).
double RingRankBytes(const CollectiveSpec& c) {
  const double g = c.group_size;
  return (c.kind == CollectiveKind::kAllReduce ? 2.0 : 1.0) * (g - 1) / g * c.buffer_bytes;
}

struct PassBytes {
  double forward = 0, recompute = 0, backward = 0;
};

// TP bytes each rank sends, per pass, summed over the ops of module `layer`'s blocks (layer >= 0) or of the
// modules outside the blocks (layer == -1), for micro-step 0.
PassBytes TensorBytes(const Schedule& s, bool blocks) {
  PassBytes b;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.coll.group != GroupKind::kTensor || op.micro_step != 0) continue;
    EXPECT_EQ(op.queue, Queue::kNcclTp);
    EXPECT_EQ(op.purpose, Purpose::kTensorParallel);
    const bool in_block = op.module >= 0 && s.graph.modules[static_cast<size_t>(op.module)].layer >= 0;
    if (in_block != blocks) continue;
    const double bytes = RingRankBytes(op.coll);
    (op.phase == Phase::kForward     ? b.forward
     : op.phase == Phase::kRecompute ? b.recompute
                                     : b.backward) += bytes;
  }
  return b;
}

ParallelLayout Tp(int t, bool sp) {
  ParallelLayout l;
  l.tensor = t;
  l.sequence_parallel = sp;
  return l;
}

TEST(TensorSchedule, WithoutTensorParallelismThereAreNoTensorCollectives) {
  const Schedule s = BuildSchedule(testing::Gpt18B(), ZeroConfig{}, testing::PaperCluster(1, 4, 8));
  for (const Op& op : s.ops) {
    EXPECT_NE(op.queue, Queue::kNcclTp);
    EXPECT_NE(op.purpose, Purpose::kTensorParallel);
  }
  EXPECT_EQ(s.tensor, 1);
  EXPECT_EQ(s.data_parallel_size(), s.world_size);
}

// Per block and micro-batch, per rank (design sec. 1.2): forward 4 (t-1)/t X, recompute the same, backward
// 4 (t-1)/t X without sequence parallelism and 6 (t-1)/t X with it (Megatron's re-gather of the column
// layers' input); X = s b h 16-bit values.
TEST(TensorSchedule, EveryBlockMovesTheDesignsBytesPerPass) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  for (Strategy strategy : {Strategy::kZero1, Strategy::kZero3, Strategy::kFsdp2}) {
    for (int t : {2, 8}) {
      for (bool sp : {false, true}) {
        ZeroConfig z;
        z.strategy = strategy;
        z.framework = FrameworkOf(strategy);
        z.train_micro_batch_size_per_gpu = 2;
        const Schedule s = BuildSchedule(m, z, RankShape(c, Tp(t, sp)));
        // The feasibility check's bound on a schedule's size (feasibility.h) holds with the TP ops.
        EXPECT_LE(static_cast<double>(s.ops.size()), EstimateScheduleOps(m, z)) << StrategyName(strategy);
        const double x = 2.0 * 2 * m.seq_len * m.hidden;
        const double unit = (t - 1.0) / t * x * m.layers;
        const PassBytes b = TensorBytes(s, /*blocks=*/true);
        EXPECT_DOUBLE_EQ(b.forward, 4 * unit) << StrategyName(strategy) << " t=" << t << " sp=" << sp;
        EXPECT_DOUBLE_EQ(b.recompute, 4 * unit) << StrategyName(strategy);
        EXPECT_DOUBLE_EQ(b.backward, (sp ? 6 : 4) * unit) << StrategyName(strategy);
        // Outside the blocks (sec. 1.3): the embedding's all-reduce (SP: reduce-scatter, and the all-gather
        // of its gradient), the logit layer's input gradient (SP: the all-gather of its input, again in the
        // backward, and the reduce-scatter of its gradient), the cross-entropy's three fp32 all-reduces.
        const PassBytes o = TensorBytes(s, /*blocks=*/false);
        const double one = (t - 1.0) / t * x;
        const double loss = 3 * 2.0 * (t - 1.0) / t * 4.0 * 2 * m.seq_len;
        EXPECT_DOUBLE_EQ(o.forward, 2 * one + loss) << StrategyName(strategy);
        EXPECT_DOUBLE_EQ(o.backward, sp ? 3 * one : 2 * one) << StrategyName(strategy);
      }
    }
  }
}

// Megatron's async input-gradient collective (layers.py): in a column-parallel layer's backward, the
// all-reduce depends on the input-gradient part and runs while the weight-gradient part computes; the compute
// stream waits for it only after that part.
TEST(TensorSchedule, TheInputGradientCollectiveOverlapsTheWeightGradientGemm) {
  const Schedule s =
      BuildSchedule(testing::Gpt18B(), ZeroConfig{}, RankShape(testing::PaperCluster(1, 4, 8), Tp(8, false)));
  int checked = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCollective || op.coll.group != GroupKind::kTensor || op.phase != Phase::kBackward)
      continue;
    const std::string& name = s.graph.modules[static_cast<size_t>(op.module)].name;
    if (!name.ends_with("query_key_value") && !name.ends_with("dense_h_to_4h")) continue;
    // Its dependency: the module's input-gradient part.
    bool on_input_part = false;
    for (int k = 0; k < op.num_deps; ++k) {
      const Op& d = s.ops[static_cast<size_t>(op.deps[static_cast<size_t>(k)])];
      if (d.kind == OpKind::kCompute) {
        on_input_part =
            s.compute_classes[static_cast<size_t>(d.compute_class)].part == BackwardPart::kInputGradient;
      }
    }
    EXPECT_TRUE(on_input_part) << name;
    // Next on the compute stream: the weight-gradient part, then the wait for the collective.
    ASSERT_LT(i + 2, s.ops.size());
    const Op& next = s.ops[i + 1];
    ASSERT_EQ(next.kind, OpKind::kCompute) << name;
    EXPECT_EQ(s.compute_classes[static_cast<size_t>(next.compute_class)].part, BackwardPart::kWeightGradient);
    EXPECT_EQ(s.ops[i + 2].kind, OpKind::kWait);
    ++checked;
  }
  EXPECT_EQ(checked, 2 * testing::Gpt18B().layers);
}

TEST(TensorSchedule, DataParallelCollectivesSpanTheDataParallelGroup) {
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  for (int t : {2, 8}) {
    const Schedule s = BuildSchedule(testing::Gpt18B(), ZeroConfig{}, RankShape(c, Tp(t, false)));
    const int d = c.total_gpus() / t;
    EXPECT_EQ(s.data_parallel_size(), d);
    EXPECT_EQ(s.param_shards, d);
    int dp = 0;
    for (const CollectiveSpec& k : s.collective_classes) {
      if (k.group == GroupKind::kGlobal) {
        EXPECT_EQ(k.group_size, d);
        ++dp;
      }
    }
    EXPECT_GT(dp, 0);
    EXPECT_EQ(GridOf(s).tensor, t);  // the grid the engines place its collectives on
    // One rank's share of the parameters: about 1/t of the whole model's (norms and row biases are whole).
    const Schedule whole = BuildSchedule(testing::Gpt18B(), ZeroConfig{}, c);
    EXPECT_LT(s.partitioned_elements * t, whole.partitioned_elements * 1.01);
    EXPECT_GT(s.partitioned_elements * t, whole.partitioned_elements);
  }
}

TEST(TensorSchedule, ATensorGroupStaysInsideItsNodeUnlessItIsLarger) {
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  CollectiveSpec tp;
  tp.kind = CollectiveKind::kAllReduce;
  tp.group = GroupKind::kTensor;
  tp.buffer_bytes = 1e6;
  for (int t : {2, 8, 16}) {
    tp.group_size = t;
    const Traffic traffic = CollectiveTraffic(tp, testing::PlacementFor(tp, c));
    const double total = c.total_gpus() * 2.0 * (t - 1.0) / t * tp.buffer_bytes;
    EXPECT_DOUBLE_EQ(traffic.intra_total_bytes + traffic.cross_total_bytes, total) << t;  // bytes conserved
    if (t <= c.gpus_per_node) {
      EXPECT_EQ(traffic.cross_total_bytes, 0) << t;
    } else {
      EXPECT_GT(traffic.cross_total_bytes, 0) << t;
    }
  }
  // The DP group of t = 8 on 8-GPU nodes: one rank per node, every byte through the NICs, and each node's
  // NICs carry the rings of its 8 tensor ranks.
  CollectiveSpec dp;
  dp.kind = CollectiveKind::kAllGather;
  dp.group = GroupKind::kGlobal;
  dp.group_size = 4;
  dp.buffer_bytes = 4e6;
  const Traffic traffic = CollectiveTraffic(dp, testing::PlacementFor(dp, c, /*tensor=*/8));
  EXPECT_EQ(traffic.intra_total_bytes, 0);
  EXPECT_DOUBLE_EQ(traffic.cross_total_bytes, c.total_gpus() * 3.0 / 4 * dp.buffer_bytes);
  EXPECT_DOUBLE_EQ(traffic.max_node_nic_bytes, 8 * 3.0 / 4 * dp.buffer_bytes);
}

TEST(TensorSchedule, MemoryIsOneTensorRanksShare) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  const Schedule whole = BuildSchedule(m, z, c);
  const Schedule tp = BuildSchedule(m, z, RankShape(c, Tp(8, true)));
  const MemoryBreakdown a = EstimateMemory(m, z, c, whole);
  const MemoryBreakdown b = EstimateMemory(m, z, c, tp);
  // ZeRO-1 keeps 16-bit parameters and gradients whole: per rank they shrink with t.
  EXPECT_LT(b.parameters_bytes * 8, a.parameters_bytes * 1.01);
  EXPECT_LT(b.gradients_bytes * 8, a.gradients_bytes * 1.01);
  // Sequence parallelism divides every activation by t (Korthikanti Table 2), the logits too.
  EXPECT_NEAR(b.activations_bytes * 8, a.activations_bytes, 1e-9 * a.activations_bytes);
}

}  // namespace
}  // namespace zerosim::model
