#include "model/report/pipeline_evaluate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "model/analytic/analytic.h"
#include "model/builders/pipeline_schedule.h"
#include "model/builders/schedule_builder.h"
#include "model/cost/collective_time.h"
#include "model/cost/placed_collectives.h"
#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/spec/pipeline_split.h"
#include "model/spec/precision.h"
#include "model/units.h"

namespace zerosim::model {
namespace {

// One micro-batch's forward and backward on a stage's compute stream: the mean over the micro-batches of
// the span from its first compute op's start to its last compute op's end, per phase (the recompute is
// part of the backward).
StagePassTimes MeasurePasses(const Schedule& s, const Timing& t, int micro_batches) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> fwd_begin(static_cast<size_t>(micro_batches), inf), fwd_end(fwd_begin.size(), -inf);
  std::vector<double> bwd_begin(fwd_begin), bwd_end(fwd_end);
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCompute || op.queue != Queue::kCompute) continue;
    if (op.micro_step < 0 || op.micro_step >= micro_batches) continue;
    const auto k = static_cast<size_t>(op.micro_step);
    const bool backward = op.phase == Phase::kBackward || op.phase == Phase::kRecompute;
    if (op.phase == Phase::kOptimizer) continue;
    std::vector<double>& begin = backward ? bwd_begin : fwd_begin;
    std::vector<double>& end = backward ? bwd_end : fwd_end;
    begin[k] = std::min(begin[k], t.start_s[i]);
    end[k] = std::max(end[k], t.finish_s[i]);
  }
  StagePassTimes p;
  for (int k = 0; k < micro_batches; ++k) {
    const auto kk = static_cast<size_t>(k);
    if (fwd_end[kk] > fwd_begin[kk]) p.forward_s += fwd_end[kk] - fwd_begin[kk];
    if (bwd_end[kk] > bwd_begin[kk]) p.backward_s += bwd_end[kk] - bwd_begin[kk];
  }
  p.forward_s /= micro_batches;
  p.backward_s /= micro_batches;
  return p;
}

// Each of a stage's v chunks' share of its forward and of its backward pass: the compute stream's op time of
// the chunk's blocks (and of the embedding on the first chunk, the final norm, logit layer and loss on the
// last: the modules before the first block and after the last) over the stage's, summed over the
// micro-batches. With equal chunks and neither end, 1/v each.
std::vector<StagePassTimes> ChunkShares(const Schedule& s, const Timing& t, const ModelSpec& m,
                                        const ParallelLayout& l, int stage, int micro_batches) {
  const int v = l.virtual_stages;
  // The chunk of each stage-local block.
  std::vector<int> chunk_of;
  for (int c = 0; c < v; ++c) {
    for (int k = 0; k < ChunkLayers(m.layers, l, stage, c); ++k) chunk_of.push_back(c);
  }
  int first_block = -1;
  for (size_t i = 0; i < s.graph.modules.size() && first_block < 0; ++i) {
    if (s.graph.modules[i].layer >= 0) first_block = static_cast<int>(i);
  }
  auto chunk_of_module = [&](int module) {
    const int layer = s.graph.modules[static_cast<size_t>(module)].layer;
    if (layer >= 0 && layer < static_cast<int>(chunk_of.size())) return chunk_of[static_cast<size_t>(layer)];
    return module < first_block ? 0 : v - 1;
  };
  std::vector<StagePassTimes> share(static_cast<size_t>(v));
  StagePassTimes total;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCompute || op.queue != Queue::kCompute || op.module < 0) continue;
    if (op.micro_step < 0 || op.micro_step >= micro_batches || op.phase == Phase::kOptimizer) continue;
    const double d = t.finish_s[i] - t.start_s[i];
    StagePassTimes& c = share[static_cast<size_t>(chunk_of_module(op.module))];
    const bool backward = op.phase == Phase::kBackward || op.phase == Phase::kRecompute;
    (backward ? c.backward_s : c.forward_s) += d;
    (backward ? total.backward_s : total.forward_s) += d;
  }
  for (StagePassTimes& c : share) {
    c.forward_s = total.forward_s > 0 ? c.forward_s / total.forward_s : 1.0 / v;
    c.backward_s = total.backward_s > 0 ? c.backward_s / total.backward_s : 1.0 / v;
  }
  return share;
}

// One distinct stage: its slice's schedule, serial timing, pass times and report.
struct StageRun {
  ModelSpec model;
  std::unique_ptr<Schedule> own;       // the schedule when no cache holds it
  const Schedule* schedule = nullptr;  // the cache's or `own`
  Timing timing;
  StagePassTimes passes;
  std::vector<StagePassTimes> chunk_shares;  // ChunkShares
  TierVolumes volumes;
};

// The stages whose slices differ: the first, a middle one (p > 2) and the last; kind_of[i] indexes
// `representative`, the stage each distinct slice is built for.
struct DistinctStages {
  std::vector<int> kind_of;
  std::vector<int> representative;
};

DistinctStages Distinct(int p) {
  DistinctStages d;
  d.kind_of.resize(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) {
    const int kind = i == 0 ? 0 : (i == p - 1 ? (p > 2 ? 2 : 1) : 1);
    d.kind_of[static_cast<size_t>(i)] = kind;
    if (kind == static_cast<int>(d.representative.size())) d.representative.push_back(i);
  }
  return d;
}

// One stage's ranks: the layout's tensor parallelism, no pipeline.
RankShape StageShape(const ClusterSpec& stage_cluster, const ParallelLayout& l) {
  ParallelLayout stage_layout = l;
  stage_layout.pipeline = 1;
  stage_layout.virtual_stages = 1;
  stage_layout.schedule = PipelineSchedule::k1F1B;
  RankShape shape(stage_cluster, stage_layout);
  shape.pipeline_stage = true;
  return shape;
}

const Schedule& StageSchedule(const ModelSpec& stage_model, const ZeroConfig& z, const RankShape& shape,
                              ScheduleCache* cache, Schedule* own) {
  if (cache != nullptr) return cache->Get(stage_model, z, shape);
  *own = BuildSchedule(stage_model, z, shape);
  return *own;
}

// What stage `stage` holds of its activations: the chunks in flight over `micro_batches` (MaxChunksInFlight
// of the layout's schedule), each L / (p v) blocks.
PipelineResidency StageResidency(const ModelSpec& m, const ParallelLayout& l, int stage, int micro_batches) {
  // The stage's largest chunk: with the embedding or the loss counted in the split, its first (last) chunk
  // holds a layer fewer, which this bounds from above.
  return {
      MostChunkLayers(m.layers, l, stage),
      static_cast<double>(MaxChunksInFlight(l.schedule, l.pipeline, l.virtual_stages, micro_batches, stage))};
}

PhaseBytes Plus(const PhaseBytes& a, const PhaseBytes& b) {
  return PhaseBytes{a.forward_allgather + b.forward_allgather,
                    a.backward_allgather + b.backward_allgather,
                    a.gradient_reduce + b.gradient_reduce,
                    a.tensor_parallel + b.tensor_parallel,
                    a.pipeline + b.pipeline,
                    a.expert_parallel + b.expert_parallel,
                    a.context_parallel + b.context_parallel};
}

}  // namespace

ModelSpec StageModel(const ModelSpec& m, const ParallelLayout& l, int stage) {
  ModelSpec s = m;
  s.layers = StageLayers(m.layers, l, stage);
  // The stage's first block, where it decides which blocks are MoE (dense blocks first; interleaved virtual
  // stages are refused with them, feasibility.cc); left at the model's otherwise, so that equal stages share
  // a cached schedule.
  if (IsMoe(m) && m.first_dense_layers > 0) {
    s.layer_offset = m.layer_offset + StageFirstLayer(m.layers, l, stage);
  }
  s.has_embedding = m.has_embedding && stage == 0;
  s.has_head = m.has_head && stage == l.pipeline - 1;
  return s;
}

ClusterSpec StageCluster(const ClusterSpec& c, const ParallelLayout& l) {
  ClusterSpec s = c;
  s.nodes = c.nodes / l.pipeline;
  return s;
}

double P2pBytes(const ModelSpec& m, const ZeroConfig& z, const ParallelLayout& l) {
  // A context-parallel rank sends its s/c tokens (parallel_layout.h `context`).
  return z.train_micro_batch_size_per_gpu * l.rank_tokens(m.seq_len) * m.hidden * BytesPerElement(m.dtype) /
         l.tensor;
}

Traffic P2pTraffic(double bytes, const ClusterSpec& c, const ParallelLayout& l) {
  const int stage_nodes = c.nodes / l.pipeline;
  Traffic t;
  t.cross_total_bytes = bytes * c.total_gpus();
  t.max_node_nic_bytes = bytes * c.gpus_per_node;
  // Fat tree: the nodes of a leaf whose next-stage peer (stage_nodes further on, consecutive placement)
  // sits under another leaf send up its uplinks, min(stage nodes, leaf nodes) of them.
  const int leaf = c.fabric.nodes_per_leaf;
  if (c.fabric.kind == FabricKind::kFatTree && leaf > 0 && c.nodes > leaf) {
    t.max_leaf_uplink_bytes = bytes * c.gpus_per_node * std::min(stage_nodes, leaf);
  }
  t.inter_steps = 1;
  return t;
}

Traffic EmbeddingSyncTraffic(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                             const ParallelLayout& l) {
  Traffic t;
  if (!m.tied_embeddings || l.pipeline < 2) return t;
  // V / t rows of h (the vocabulary rounded up to a multiple of t, as the module graph splits it) in the
  // gradient's reduce format; a two-rank ring all-reduce sends 2 (2 - 1) / 2 of the buffer per rank.
  const double rows = std::ceil(static_cast<double>(m.vocab) / l.tensor);
  const double buffer = rows * m.hidden * GradientReduceBytes(z.precision);
  const int stage_ranks = c.total_gpus() / l.pipeline;
  t.cross_total_bytes = 2.0 * stage_ranks * buffer;
  t.max_node_nic_bytes = buffer * c.gpus_per_node;
  t.ring_rank_bytes = buffer;
  // Fat tree: the first stage's nodes and the last's sit p - 1 stages apart, under other leaves unless a
  // leaf holds them both.
  const int stage_nodes = c.nodes / l.pipeline;
  const int leaf = c.fabric.nodes_per_leaf;
  if (c.fabric.kind == FabricKind::kFatTree && leaf > 0 && c.nodes > leaf) {
    t.max_leaf_uplink_bytes = buffer * c.gpus_per_node * std::min(stage_nodes, leaf);
  }
  t.inter_steps = 2;  // 2 (g - 1) ring steps
  return t;
}

double P2pSeconds(double bytes, const ClusterSpec& c, const ParallelLayout& l) {
  return EstimateCollective(P2pTraffic(bytes, c, l), c).seconds;
}

MemoryBreakdown PipelineMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const ParallelLayout& l, int micro_batches, ScheduleCache* cache) {
  const ClusterSpec stage_cluster = StageCluster(c, l);
  const RankShape shape = StageShape(stage_cluster, l);
  MemoryBreakdown fullest;
  for (int stage : Distinct(l.pipeline).representative) {
    const ModelSpec stage_model = StageModel(m, l, stage);
    Schedule own;
    const Schedule& s = StageSchedule(stage_model, z, shape, cache, &own);
    const MemoryBreakdown b =
        EstimateMemory(stage_model, z, stage_cluster, s, StageResidency(m, l, stage, micro_batches));
    if (b.total_bytes > fullest.total_bytes) fullest = b;
  }
  return fullest;
}

VariantReport EvaluatePipelineVariant(const std::string& name, const Configuration& v, ScheduleCache* cache) {
  AnalyticEngine engine(v.calibration);
  // The analytic engine's stage timings and send times cannot fail.
  return ComposePipeline(name, v, engine, cache).value();
}

StatusOr<VariantReport> ComposePipeline(const std::string& name, const Configuration& config, Engine& engine,
                                        ScheduleCache* cache) {
  const ModelSpec& m = config.model;
  const ZeroConfig& z = config.zero;
  const ClusterSpec& c = config.cluster;
  const ParallelLayout& l = config.layout;
  const int p = l.pipeline, v = l.virtual_stages, mb = z.gradient_accumulation_steps;
  const ClusterSpec stage_cluster = StageCluster(c, l);
  const RankShape shape = StageShape(stage_cluster, l);
  const DistinctStages distinct = Distinct(p);
  const std::vector<int>& kind_of = distinct.kind_of;
  const std::vector<int>& representative = distinct.representative;
  std::vector<StageRun> runs;
  for (int stage : representative) {
    StageRun r;
    r.model = StageModel(m, l, stage);
    // The cache keeps at least its capacity's last schedules (model/report/evaluate.h), more than the three
    // here.
    if (cache != nullptr) {
      r.schedule = &cache->Get(r.model, z, shape);
    } else {
      r.own = std::make_unique<Schedule>(BuildSchedule(r.model, z, shape));
      r.schedule = r.own.get();
    }
    StatusOr<TimedSchedule> timed = engine.Time(*r.schedule, stage_cluster, /*timeline=*/true);
    if (!timed.ok())
      return Status::Error(fmt::format("pipeline stage {}: {}", stage, timed.status().message()));
    r.timing = std::move(timed->timing);
    r.volumes = timed->volumes;
    r.passes = MeasurePasses(*r.schedule, r.timing, mb);
    r.chunk_shares = ChunkShares(*r.schedule, r.timing, m, l, stage, mb);
    runs.push_back(std::move(r));
  }

  // The pipeline of chunk passes (model/builders/pipeline_schedule.h).
  const double p2p_bytes = P2pBytes(m, z, l);
  StatusOr<double> sent = engine.SendSeconds(p2p_bytes, c, l);
  if (!sent.ok()) return Status::Error(fmt::format("pipeline sends: {}", sent.status().message()));
  const double p2p_s = *sent;
  // Per virtual stage (chunk c of stage i at c p + i): the stage's passes in its chunks' shares.
  std::vector<StagePassTimes> chunk_times(static_cast<size_t>(p * v));
  for (int i = 0; i < p; ++i) {
    const StageRun& r = runs[static_cast<size_t>(kind_of[static_cast<size_t>(i)])];
    for (int chunk = 0; chunk < v; ++chunk) {
      const StagePassTimes& share = r.chunk_shares[static_cast<size_t>(chunk)];
      chunk_times[static_cast<size_t>(chunk * p + i)] = {r.passes.forward_s * share.forward_s,
                                                         r.passes.backward_s * share.backward_s};
    }
  }
  const PipelineTimeline pipe = RunPipeline(l.schedule, p, v, mb, chunk_times, p2p_s, !l.overlap_p2p_comm);

  // The shared embedding's gradient all-reduce ends the first and the last stage's iteration (Megatron's
  // finalize_model_grads: after the data-parallel reduction). NCCL's cost model in either engine.
  const Traffic sync = EmbeddingSyncTraffic(m, z, c, l);
  const double sync_s = sync.cross_total_bytes > 0 ? EstimateCollective(sync, c).seconds : 0.0;
  auto sync_of_stage = [&](int i) { return i == 0 || i == p - 1 ? sync_s : 0.0; };

  // Each stage's iteration: its pipeline finish + what its serial schedule spends beyond its passes.
  int critical = 0;
  double iteration_s = 0;
  for (int i = 0; i < p; ++i) {
    const auto si = static_cast<size_t>(i);
    const StageRun& r = runs[static_cast<size_t>(kind_of[si])];
    const double beyond = std::max(0.0, r.timing.iteration_s - pipe.busy_s[si]);
    const double stage_s = pipe.finish_s[si] + beyond + sync_of_stage(i);
    if (stage_s > iteration_s) {
      iteration_s = stage_s;
      critical = i;
    }
  }

  // Per distinct stage, its report with the pipeline's iteration (memory and invariants on its own
  // schedule and cluster); the binding stage's memory, the critical stage's time split.
  std::vector<VariantReport> stage_reports;
  for (size_t k = 0; k < runs.size(); ++k) {
    const StageRun& r = runs[k];
    const int stage = representative[k];
    Timing t = r.timing;
    t.iteration_s = iteration_s;
    // The embedding's all-reduce is exposed communication of the first and last stage, not bubble.
    const double bubble = iteration_s - r.timing.iteration_s - sync_of_stage(stage);
    t.exposed_comm_s = r.timing.exposed_comm_s + sync_of_stage(stage);
    VariantReport sr = AssembleVariant(name, engine.name(), r.model, z, stage_cluster, *r.schedule, t,
                                       r.volumes, StageResidency(m, l, stage, mb));
    sr.pipeline_bubble_s = std::max(0.0, bubble);
    stage_reports.push_back(std::move(sr));
  }
  VariantReport out = stage_reports[static_cast<size_t>(kind_of[static_cast<size_t>(critical)])];
  out.model = m;
  out.layout = l;
  out.gpus = c.total_gpus();
  SetThroughput(&out, m, z, c, l.batch_parallel(c.total_gpus()));
  // Bytes: every stage's (each distinct stage as many times as it occurs), plus the point-to-point sends:
  // per (tp, dp) chain, (p v - 1) m activations forward and as many gradients backward, all across nodes.
  out.bytes = {};
  std::string violations;
  for (int i = 0; i < p; ++i) {
    const VariantReport& sr = stage_reports[static_cast<size_t>(kind_of[static_cast<size_t>(i)])];
    out.bytes.cross_node = Plus(out.bytes.cross_node, sr.bytes.cross_node);
    out.bytes.intra_node = Plus(out.bytes.intra_node, sr.bytes.intra_node);
  }
  out.bytes.cross_node.pipeline =
      2.0 * (p * v - 1) * mb * p2p_bytes * l.tensor * l.data_parallel(c.total_gpus()) +
      sync.cross_total_bytes;
  out.memory = {};
  out.feasible = true;
  out.infeasible_reason.clear();
  for (const VariantReport& sr : stage_reports) {
    if (sr.memory.total_bytes > out.memory.total_bytes) out.memory = sr.memory;
    if (!sr.invariant_violation.empty()) {
      violations += fmt::format("{}{}", violations.empty() ? "" : "; ", sr.invariant_violation);
    }
  }
  out.num_ops = 0;
  for (const StageRun& r : runs) out.num_ops += static_cast<int>(r.schedule->ops.size());
  out.pipeline_bubble_s =
      stage_reports[static_cast<size_t>(kind_of[static_cast<size_t>(critical)])].pipeline_bubble_s;
  out.pipeline_bubble_fraction = pipe.stage_bubble_fraction[static_cast<size_t>(critical)];
  if (out.memory.total_bytes > out.memory.hbm_bytes) {
    out.feasible = false;
    out.infeasible_reason =
        fmt::format("needs {:.1f} GiB per GPU on its fullest pipeline stage, the {} has {:.1f} GiB",
                    out.memory.total_bytes / kGiB, c.gpu.name, out.memory.hbm_bytes / kGiB);
  }
  out.invariant_violation = violations;
  return out;
}

}  // namespace zerosim::model
