// Pipeline parallelism in the analytic engine (model/report/pipeline_evaluate.h, issue 22 item 2): each stage
// is its slice of the model on its nodes, the bubble comes out of the pipeline schedule run with the stages'
// measured pass times, memory is the binding stage's with its chunks in flight, and the point-to-point
// bytes are counted.
#include <gtest/gtest.h>

#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/report/pipeline_evaluate.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/precision.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// A small GPT whose logit layer is light (vocabulary 1024), so that its stages are nearly uniform.
ModelSpec SmallGpt() {
  ModelSpec m = testing::Gpt(16, 2048, 16);
  m.vocab = 1024;
  return m;
}

ZeroConfig Zero1(int micro_batches) {
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  z.gradient_accumulation_steps = micro_batches;
  z.train_micro_batch_size_per_gpu = 1;
  z.activation_checkpointing = false;
  return z;
}

ParallelLayout Pp(int t, int p, int v = 1) {
  ParallelLayout l;
  l.tensor = t;
  l.pipeline = p;
  l.virtual_stages = v;
  l.schedule = v > 1 ? PipelineSchedule::kInterleaved1F1B : PipelineSchedule::k1F1B;
  return l;
}

// 8 nodes of 8 V100, 4 x 100 Gbps per node.
ClusterSpec Cluster() { return testing::PaperCluster(4, 8, 8); }

VariantReport Evaluate(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                       const ParallelLayout& l) {
  EXPECT_TRUE(testing::Validate(m, z, c, l).empty()) << DescribeProblems(testing::Validate(m, z, c, l));
  VariantReport r = EvaluateAnalyticVariant("pp", {m, z, c, testing::TestCalibration(), l});
  EXPECT_TRUE(r.invariant_violation.empty()) << r.invariant_violation;
  return r;
}

TEST(PipelineEvaluate, StagesHoldTheirSliceOfTheParameters) {
  for (bool tied : {true, false}) {
    ModelSpec m = testing::Gpt(16, 2048, 16);
    m.tied_embeddings = tied;
    const ParallelLayout l = Pp(1, 4);
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
      const ModelSpec s = StageModel(m, l, i);
      EXPECT_EQ(s.layers, 4);
      EXPECT_EQ(s.has_embedding, i == 0);
      EXPECT_EQ(s.has_head, i == 3);
      sum += TotalParams(s);
    }
    // A tied logit layer on the last stage keeps its own copy of the word embedding (Megatron's shared
    // embedding): V h more than the model.
    const double copy = tied ? static_cast<double>(m.vocab) * m.hidden : 0.0;
    EXPECT_DOUBLE_EQ(sum, TotalParams(m) + copy) << "tied " << tied;
  }
}

TEST(PipelineEvaluate, BubbleIsTheSchedulesAndShrinksWithMicroBatchesAndChunks) {
  const ModelSpec m = SmallGpt();
  // Fast NICs (8 x 400 Gbps per node), so that the sends stay about 1% of a pass.
  ClusterSpec c = Cluster();
  c.nic = {8, 400e9 / 8};
  const int p = 4;
  double last_fraction = 1;
  for (int micro : {4, 8, 16, 32}) {
    const ZeroConfig z = Zero1(micro);
    const VariantReport r = Evaluate(m, z, c, Pp(1, p));
    ASSERT_TRUE(Ran(r));
    // Uneven stages and the sends only add to (p - 1) / m. Blocking sends (Megatron's default) hold a
    // stage for each of its sends, which its busy time does not count: 2 per micro-batch in the steady
    // state, `sends` of its passes' time (its m passes take no more than its serial schedule, iteration -
    // bubble), plus as much on the ramp's (p - 1) / m. The last stage's head (a vocabulary of 1024: its
    // logit GEMM and loss are about 1% of four blocks) paces the other stages: up to 1% more.
    const double ideal = (p - 1.0) / micro;
    const double p2p_s = P2pSeconds(P2pBytes(m, z, Pp(1, p)), c, Pp(1, p));
    const double sends = 2.0 * micro * p2p_s / (r.iteration_time_s - r.pipeline_bubble_s);
    EXPECT_LT(sends, 0.01) << micro;  // the sends stay a small part of a pass on these NICs
    EXPECT_GE(r.pipeline_bubble_fraction, ideal * 0.999) << micro;
    EXPECT_LE(r.pipeline_bubble_fraction, ideal * (1 + sends) + sends + 0.01) << micro;
    EXPECT_LT(r.pipeline_bubble_fraction, last_fraction);
    last_fraction = r.pipeline_bubble_fraction;
    EXPECT_GT(r.pipeline_bubble_s, 0);
    EXPECT_LT(r.pipeline_bubble_s, r.iteration_time_s);
  }
  // Interleaving v chunks divides the bubble by about v (Narayanan et al. 2021 sec. 2.2.2).
  const VariantReport flat = Evaluate(m, Zero1(8), c, Pp(1, p));
  const VariantReport interleaved = Evaluate(m, Zero1(8), c, Pp(1, p, 2));
  EXPECT_LT(interleaved.pipeline_bubble_s, 0.7 * flat.pipeline_bubble_s);
  EXPECT_LT(interleaved.iteration_time_s, flat.iteration_time_s);
}

// overlap_p2p_comm (Megatron-Core's interleaved schedule with asynchronous sends): a stage no longer waits for
// its own sends, so only the receiver's dependency pays the transfer; the passes themselves do not change.
// Refused without interleaving, as Megatron-LM turns it off there.
TEST(PipelineEvaluate, AsynchronousSendsOfTheInterleavedScheduleShortenTheBubbleOnly) {
  const ModelSpec m = SmallGpt();
  const ClusterSpec c = Cluster();  // 4 x 100 Gbps per node: sends that matter
  const ParallelLayout blocking = Pp(1, 4, 2);
  ParallelLayout overlapped = blocking;
  overlapped.overlap_p2p_comm = true;
  const VariantReport a = Evaluate(m, Zero1(8), c, blocking);
  const VariantReport b = Evaluate(m, Zero1(8), c, overlapped);
  ASSERT_TRUE(Ran(a) && Ran(b));
  EXPECT_LT(b.iteration_time_s, a.iteration_time_s);
  EXPECT_LT(b.pipeline_bubble_s, a.pipeline_bubble_s);
  EXPECT_NEAR(b.compute_s, a.compute_s, 1e-9 * a.compute_s);
  EXPECT_DOUBLE_EQ(b.bytes.cross_node.pipeline, a.bytes.cross_node.pipeline);
  // Never below the uniform-stage bubble (p - 1) / (m v) of free transfers.
  EXPECT_GE(b.pipeline_bubble_fraction, 3.0 / 16 * 0.999);
  ParallelLayout flat = Pp(1, 4);
  flat.overlap_p2p_comm = true;
  bool refused = false;
  for (const Problem& p : testing::Validate(m, Zero1(8), c, flat)) refused = refused || p.key == "overlap_p2p_comm";
  EXPECT_TRUE(refused);
}

TEST(PipelineEvaluate, AStagesMemoryIsItsSliceAndItsChunksInFlight) {
  const ModelSpec m = SmallGpt();
  const ClusterSpec c = Cluster();
  const ZeroConfig z = Zero1(8);
  const VariantReport whole = Evaluate(m, z, c, Pp(1, 1));
  const VariantReport piped = Evaluate(m, z, c, Pp(1, 4));
  // Parameters: a quarter of the blocks (plus the embedding on the first stage, the binding one).
  EXPECT_LT(piped.memory.parameters_bytes, 0.3 * whole.memory.parameters_bytes);
  EXPECT_GT(piped.memory.parameters_bytes, 0.25 * whole.memory.parameters_bytes);
  // 1F1B's first stage holds p micro-batches of its L / p blocks (no recompute): as many blocks as the
  // whole model's one micro-batch, without the logits.
  ModelSpec stage = m;
  stage.layers = m.layers / 4;
  EXPECT_DOUBLE_EQ(piped.memory.activations_bytes,
                   4 * ActivationBytes(stage, 1, RecomputePolicy::kNone, 1, ParallelLayout{}));
  // GPipe holds all m micro-batches.
  ParallelLayout gpipe = Pp(1, 4);
  gpipe.schedule = PipelineSchedule::kGPipe;
  const VariantReport g = Evaluate(m, z, c, gpipe);
  EXPECT_DOUBLE_EQ(g.memory.activations_bytes,
                   8 * ActivationBytes(stage, 1, RecomputePolicy::kNone, 1, ParallelLayout{}));
}

TEST(PipelineEvaluate, SendsAreCountedAcrossNodes) {
  const ModelSpec m = SmallGpt();
  const ClusterSpec c = Cluster();
  for (const ParallelLayout& l : {Pp(1, 4), Pp(2, 2), Pp(1, 2, 2)}) {
    const ZeroConfig z = Zero1(8);
    const VariantReport r = Evaluate(m, z, c, l);
    const int d = l.data_parallel(c.total_gpus());
    // Per (tp, dp) chain (t d of them), (p v - 1) m activations forward and as many gradients back, each
    // b s h 2 / t bytes; and the tied embedding's gradient all-reduce between the first and the last stage,
    // V / t x h 16-bit elements per rank of the two stages.
    const double per_send = 1.0 * m.seq_len * m.hidden * 2 / l.tensor;
    const double sync = 2.0 * l.tensor * d * (m.vocab / l.tensor) * m.hidden * 2;
    EXPECT_DOUBLE_EQ(EmbeddingSyncTraffic(m, z, c, l).cross_total_bytes, sync);
    EXPECT_DOUBLE_EQ(r.bytes.cross_node.pipeline,
                     2.0 * (l.pipeline * l.virtual_stages - 1) * 8 * per_send * l.tensor * d + sync);
    EXPECT_EQ(r.bytes.intra_node.pipeline, 0);
    EXPECT_EQ(r.layout, l);
    EXPECT_EQ(r.gpus, c.total_gpus());
  }
}

TEST(PipelineEvaluate, ATiedEmbeddingIsAllReducedBetweenTheFirstAndLastStage) {
  // Megatron's finalize_model_grads: the shared word embedding's gradient, V / t x h per rank, once per
  // iteration between the first and the last stage. Untied, there is none; tied, it ends the first and
  // last stage's iteration as exposed communication (the heavy logit layer of a 51,200 vocabulary).
  ModelSpec tied = testing::Gpt(16, 2048, 16);
  ModelSpec untied = tied;
  untied.tied_embeddings = false;
  const ClusterSpec c = Cluster();
  const ZeroConfig z = Zero1(8);
  EXPECT_EQ(EmbeddingSyncTraffic(untied, z, c, Pp(1, 4)).cross_total_bytes, 0);
  EXPECT_EQ(EmbeddingSyncTraffic(tied, z, c, Pp(1, 1)).cross_total_bytes, 0);
  const Traffic sync = EmbeddingSyncTraffic(tied, z, c, Pp(1, 4));
  EXPECT_GT(sync.cross_total_bytes, 0);
  EXPECT_EQ(sync.inter_steps, 2);
  const VariantReport r = Evaluate(tied, z, c, Pp(1, 4));
  const VariantReport u = Evaluate(untied, z, c, Pp(1, 4));
  EXPECT_GT(r.bytes.cross_node.pipeline, u.bytes.cross_node.pipeline);
  EXPECT_NEAR(r.bytes.cross_node.pipeline - u.bytes.cross_node.pipeline, sync.cross_total_bytes,
              1e-9 * sync.cross_total_bytes);
}

TEST(PipelineEvaluate, MoreBandwidthIsNeverSlower) {
  const ModelSpec m = SmallGpt();
  ClusterSpec c = Cluster();
  const ZeroConfig z = Zero1(8);
  double last = Evaluate(m, z, c, Pp(1, 4)).iteration_time_s;
  for (double scale : {2.0, 4.0}) {
    c.nic.bandwidth_Bps = 100e9 / 8 * scale;
    const double t = Evaluate(m, z, c, Pp(1, 4)).iteration_time_s;
    EXPECT_LE(t, last * (1 + 1e-12)) << scale;
    last = t;
  }
}

TEST(PipelineEvaluate, ThroughputCountsOneCopyOfTheModel) {
  // The d = P / (t p) data-parallel replicas each train their micro-batches: tokens per iteration are
  // d m b s, and the TFLOPs are the whole model's over all P GPUs.
  const ModelSpec m = SmallGpt();
  const ClusterSpec c = Cluster();
  const ZeroConfig z = Zero1(8);
  const VariantReport r = Evaluate(m, z, c, Pp(1, 4));
  const double d = c.total_gpus() / 4.0;
  EXPECT_DOUBLE_EQ(r.tokens_per_s, d * 8 * m.seq_len / r.iteration_time_s);
  EXPECT_DOUBLE_EQ(r.tflops_per_gpu * 1e12,
                   IterationFlops(m, z, static_cast<int>(d)) / (r.iteration_time_s * c.total_gpus()));
  EXPECT_EQ(r.model, m);
}

TEST(PipelineEvaluate, PipelinesRunDeepSpeedsZero1AndFsdp2) {
  const ModelSpec m = SmallGpt();
  const ClusterSpec c = Cluster();
  EXPECT_TRUE(testing::Validate(m, Zero1(8), c, Pp(1, 4)).empty());
  ZeroConfig fsdp2 = Zero1(8);
  fsdp2.strategy = Strategy::kFsdp2;
  fsdp2.framework = Framework::kFsdp;
  EXPECT_TRUE(testing::Validate(m, fsdp2, c, Pp(2, 4)).empty())
      << DescribeProblems(testing::Validate(m, fsdp2, c, Pp(2, 4)));
  // FSDP1's strategies: torch.distributed.pipelining composes with FSDP2 (and DDP) only.
  ZeroConfig fsdp1 = fsdp2;
  fsdp1.strategy = Strategy::kFsdpFullShard;
  const std::vector<Problem> problems = testing::Validate(m, fsdp1, c, Pp(1, 4));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems.front().kind, ProblemKind::kNotModelled);
  EXPECT_NE(problems.front().message.find("FSDP2"), std::string::npos) << problems.front().message;
}

// FSDP2 in a pipeline stage (torchtitan's 3D; fsdp_builder.cc): each unit gathered once per iteration, in
// the first micro-batch's forward; no backward all-gather; the gradients kept unsharded to the last
// micro-batch's backward, then every unit reduce-scattered once.
TEST(PipelineEvaluate, Fsdp2InAStageGathersOnceAndReducesAfterTheLastBackward) {
  const ModelSpec m = SmallGpt();
  const ClusterSpec c = Cluster();
  ZeroConfig z = Zero1(4);
  z.strategy = Strategy::kFsdp2;
  z.framework = Framework::kFsdp;
  const ParallelLayout l = Pp(1, 4);
  const ModelSpec stage = StageModel(m, l, 1);  // a middle stage: 4 blocks, no embedding or head
  RankShape shape(StageCluster(c, l), ParallelLayout{});
  shape.pipeline_stage = true;
  const Schedule s = BuildSchedule(stage, z, shape);
  const int units = stage.layers + 1;  // the blocks and the (empty) root
  int gathers = 0, reduces = 0, last_backward_compute = -1;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind == OpKind::kCompute && op.phase == Phase::kBackward)
      last_backward_compute = static_cast<int>(i);
  }
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCollective) continue;
    if (op.coll.kind == CollectiveKind::kAllGather) {
      ++gathers;
      EXPECT_EQ(op.micro_step, 0);
      EXPECT_EQ(op.purpose, Purpose::kForwardAllGather);
    }
    if (op.coll.kind == CollectiveKind::kReduceScatter) {
      ++reduces;
      EXPECT_EQ(op.micro_step, 3);
      EXPECT_GT(static_cast<int>(i), last_backward_compute);
    }
  }
  EXPECT_EQ(gathers, stage.layers);  // the root holds no parameters on a middle stage
  EXPECT_EQ(reduces, stage.layers);
  EXPECT_LE(gathers, units);
  // The whole stage stays gathered, and its gradients accumulate unsharded in the reduce dtype (the model's
  // 16 bits by default).
  EXPECT_DOUBLE_EQ(s.peak_gathered_bytes, 2.0 * TotalParams(stage));
  EXPECT_DOUBLE_EQ(s.accumulated_gradient_bytes, GradientReduceBytes(z.precision) * TotalParams(stage));
  // The same stage outside a pipeline: gathers in every micro-batch's forward and backward, reduces in each.
  const Schedule plain = BuildSchedule(stage, z, RankShape(StageCluster(c, l), ParallelLayout{}));
  int plain_gathers = 0;
  for (const Op& op : plain.ops)
    plain_gathers += op.kind == OpKind::kCollective && op.coll.kind == CollectiveKind::kAllGather;
  EXPECT_EQ(plain_gathers, 2 * 4 * stage.layers);
  EXPECT_EQ(plain.accumulated_gradient_bytes, 0);
  // Evaluated as a pipeline, both engines' composition runs it.
  const VariantReport r = Evaluate(m, z, c, l);
  ASSERT_TRUE(Ran(r)) << r.infeasible_reason;
  EXPECT_GT(r.pipeline_bubble_s, 0);
  EXPECT_GE(r.memory.buffers_bytes, 2.0 * TotalParams(stage));
}

// The stages are built from the split: with a logit layer as heavy as several blocks (vocabulary 64K at h
// 2048), the last stage binds; counting the loss as a layer moves a block off it, counting the embedding
// moves one onto it, so the first pipeline is faster than the second, and both train the same 7-layer model.
TEST(PipelineEvaluate, StagesAreBuiltFromTheCountedSplit) {
  ModelSpec m = testing::Gpt(7, 2048, 16);
  m.vocab = 65536;
  ParallelLayout loss = Pp(1, 2);
  loss.account_for_loss_in_pipeline_split = true;
  ParallelLayout embedding = Pp(1, 2);
  embedding.account_for_embedding_in_pipeline_split = true;
  EXPECT_EQ(StageModel(m, loss, 0).layers, 4);
  EXPECT_EQ(StageModel(m, loss, 1).layers, 3);
  EXPECT_TRUE(StageModel(m, loss, 1).has_head);
  EXPECT_EQ(StageModel(m, embedding, 0).layers, 3);
  EXPECT_EQ(StageModel(m, embedding, 1).layers, 4);
  const VariantReport a = Evaluate(m, Zero1(8), Cluster(), loss);
  const VariantReport b = Evaluate(m, Zero1(8), Cluster(), embedding);
  EXPECT_LT(a.iteration_time_s, b.iteration_time_s);
  // The same model and tokens: FLOPs per iteration agree, so TFLOPs follow the times.
  EXPECT_NEAR(a.tflops_per_gpu * a.iteration_time_s, b.tflops_per_gpu * b.iteration_time_s,
              1e-9 * a.tflops_per_gpu * a.iteration_time_s);
}

}  // namespace
}  // namespace zerosim::model
