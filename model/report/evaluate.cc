#include "model/report/evaluate.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/cost/nccl_allreduce.h"
#include "model/cost/placed_collectives.h"
#include "model/report/invariants.h"
#include "model/report/memory.h"
#include "model/report/pipeline_evaluate.h"
#include "model/builders/schedule_builder.h"
#include "model/units.h"

namespace zerosim::model {
namespace {

PhaseBytes ToPhaseBytes(const std::array<double, kNumPurposes>& by_purpose) {
  PhaseBytes b;
  b.forward_allgather = by_purpose[static_cast<size_t>(Purpose::kForwardAllGather)];
  b.backward_allgather = by_purpose[static_cast<size_t>(Purpose::kBackwardAllGather)];
  b.gradient_reduce = by_purpose[static_cast<size_t>(Purpose::kGradientReduce)];
  b.tensor_parallel = by_purpose[static_cast<size_t>(Purpose::kTensorParallel)];
  b.expert_parallel = by_purpose[static_cast<size_t>(Purpose::kExpertParallel)];
  b.context_parallel = by_purpose[static_cast<size_t>(Purpose::kContextParallel)];
  return b;
}

}  // namespace

double CrossNodeVolumeInM(const VariantReport& v, int nodes) {
  return v.bytes.cross_node.total() / (nodes * 2.0 * TotalParams(v.model));
}

double ModelFlopsPerToken(const ModelSpec& m) {
  // PaLM (Chowdhery et al. 2022), appendix B: 6 N for the parameters' forward and backward, 12 l h s for the
  // attention scores and their product with V (non-causal count, as PaLM and llm-foundry write it). For an
  // MoE model N is the parameters a token uses (ActiveParams), as torchtitan's MoE models count it
  // (docs/design/moe_cp_sources.md (a)).
  const double n = IsMoe(m) ? ActiveParams(m) : TotalParams(m);
  if (m.sliding_window > 0) {  // 12 (a d) per key a query attends to: each block's span (AttentionSpan)
    double spans = 0;
    for (int i = 0; i < m.layers; ++i) spans += AttentionSpan(m, i);
    return 6.0 * n + 12.0 * QueryWidth(m) * spans;
  }
  return 6.0 * n +
         12.0 * m.layers * QueryWidth(m) * m.seq_len;  // 12 l (a d) s: torchtitan's heads x head_dim
}

double MegatronModelFlopsPerToken(const ModelSpec& m, bool causal) {
  // The header's formula per token (batch x seq = 1).
  const double l = m.layers, h = m.hidden, a = m.heads, g = KvHeads(m), s = m.seq_len, f = m.ffn_hidden;
  // Megatron's query_projection_to_hidden_size_ratio, kv_channels x heads / h: 1 unless the model's head_dim
  // says otherwise (model_spec.h QueryWidth).
  const double q_over_h = QueryWidth(m) / h;
  const double gated = MlpMatrices(m) == 3 ? 1.5 : 1.0;
  const double scores = causal ? 0.5 : 1.0;
  // A sliding window's blocks multiply the keys they attend to: the blocks' mean span in place of s.
  double span = s;
  if (m.sliding_window > 0) {
    span = 0;
    for (int i = 0; i < m.layers; ++i) span += AttentionSpan(m, i) / m.layers;
  }
  const double attention = (1.0 + g / a + scores * span / h) * q_over_h;
  // An MoE model's MLP term is Megatron's h [f_d L_dense + (k f_e + f_s) L_moe] (training.py
  // transformer_flops), the blocks' widths averaged.
  double mlp = f / h * gated;
  if (IsMoe(m)) {
    double width = 0;
    for (int i = 0; i < m.layers; ++i) width += MlpWidthOfLayer(m, i) / m.layers;
    mlp = width / h * gated;
  }
  const double logit = static_cast<double>(m.vocab) / (2.0 * l * h);
  return 12.0 * l * h * h * (attention + mlp + logit);
}

double HeadlineModelTflopsPerGpu(const VariantReport& v, double flops_per_token) {
  return v.gpus > 0 ? flops_per_token * v.tokens_per_s * v.band.center / v.gpus / kTera : 0.0;
}

double IterationFlops(const ModelSpec& m, const ZeroConfig& z, int world_size) {
  const double tokens = static_cast<double>(world_size) * z.train_micro_batch_size_per_gpu * m.seq_len *
                        z.gradient_accumulation_steps;
  if (z.activation_checkpointing) return TrainingFlops(m, tokens, true);
  // torchtitan's selective policies' recomputed forward work (model_spec.h RecomputeFlopsPerLayer): per
  // block, or per checkpointed block for selective_block. Megatron's selective recompute stays uncounted, as
  // before (its unfused-core recompute is in the schedule's time only).
  const RecomputePolicy policy = RecomputeOf(z);
  if (policy != RecomputePolicy::kSelectiveOp && policy != RecomputePolicy::kSelectiveBlock)
    return TrainingFlops(m, tokens, false);
  if (IsMoe(m) || m.sliding_window > 0) {
    // Block by block: selective_block checkpoints blocks n, 2n, ... counting from 1 (BeginSchedule's rule).
    double recompute = 0;
    for (int i = 0; i < m.layers; ++i) {
      const bool checkpointed =
          policy != RecomputePolicy::kSelectiveBlock ||
          (z.recompute_block_interval >= 1 && (i + 1) % z.recompute_block_interval == 0);
      if (checkpointed) recompute += RecomputeFlopsOfLayer(m, i, tokens, policy);
    }
    return TrainingFlops(m, tokens, false) + recompute;
  }
  const double blocks = policy == RecomputePolicy::kSelectiveBlock
                            ? CheckpointedBlocks(m, policy, z.recompute_block_interval)
                            : static_cast<double>(m.layers);
  return TrainingFlops(m, tokens, false) + blocks * RecomputeFlopsPerLayer(m, tokens, policy);
}

void SetThroughput(VariantReport* r, const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                   int data_parallel) {
  const int p = c.total_gpus();
  const double t = r->iteration_time_s;
  // The d data-parallel ranks each train their own micro-batches; a tensor group's t ranks and a pipeline's
  // stages share theirs (Megatron: global batch = micro-batch x accumulation x d), and so do a
  // context-parallel group's c ranks: `data_parallel` is d / c (ParallelLayout::batch_parallel).
  const int d = data_parallel;
  r->tflops_per_gpu = IterationFlops(m, z, d) / (t * p) / kTera;
  r->tokens_per_s = static_cast<double>(d) * z.train_micro_batch_size_per_gpu * m.seq_len *
                    z.gradient_accumulation_steps / t;
  const double model_flops_per_gpu_s = ModelFlopsPerToken(m) * r->tokens_per_s / p;
  r->mfu = model_flops_per_gpu_s / c.gpu.peak_flops;
  r->mfu_fp8_peak =
      z.precision.fp8_gemms && c.gpu.fp8_peak_flops > 0 ? model_flops_per_gpu_s / c.gpu.fp8_peak_flops : 0;
}

VariantReport AssembleVariant(const std::string& name, const std::string& engine, const ModelSpec& m,
                              const ZeroConfig& z, const ClusterSpec& c, const Schedule& s, const Timing& t,
                              const TierVolumes& v, const PipelineResidency& residency) {
  VariantReport r;
  r.name = name;
  r.engine = engine;
  r.zero = z;
  r.model = m;
  r.layout = s.layout();
  r.iteration_time_s = t.iteration_s;
  const int p = c.total_gpus();
  SetThroughput(&r, m, z, c, r.layout.batch_parallel(p));
  r.exposed_comm_s = t.exposed_comm_s;
  r.compute_s = t.compute_s;
  r.optimizer_s = t.optimizer_s;
  r.gpu_side_s = t.gpu_side_s;
  // The exposed time's parts add up to it: side-stream work that ran while the compute stream idled is
  // useful GPU time taken off the exposed time, so the SM time NCCL held can exceed what is left exposed
  // (an FSDP2 step on one GPU: 270 ns held, 0 exposed); the part reported is at most the exposed time.
  r.comm_interference_s = std::min(t.interference_s, t.exposed_comm_s);
  r.gemm_s = t.compute_parts.gemm_s;
  r.attention_s = t.compute_parts.attention_s;
  r.memory_bound_s = t.compute_parts.memory_s;
  r.kernel_gaps_s = t.compute_parts.launch_s;
  // The exposed time's parts add up to it: a compute op held by the one hardware queue can wait while
  // side-stream work (useful GPU time, not exposed) runs, so the blocked time counts as exposed only up to
  // what the NCCL SM share leaves of the exposed time.
  r.queue_blocking_s = std::min(t.queue_blocking_s, std::max(0.0, t.exposed_comm_s - r.comm_interference_s));
  r.waiting_for_data_s = std::max(0.0, t.exposed_comm_s - r.comm_interference_s - r.queue_blocking_s);
  r.gpus = p;
  r.bytes.cross_node = ToPhaseBytes(v.cross_node);
  r.bytes.intra_node = ToPhaseBytes(v.intra_node);
  r.memory = EstimateMemory(m, z, c, s, residency);
  r.num_ops = static_cast<int>(s.ops.size());
  if (r.memory.total_bytes > r.memory.hbm_bytes) {
    r.feasible = false;
    r.infeasible_reason = fmt::format("needs {:.1f} GiB per GPU, the {} has {:.1f} GiB",
                                      r.memory.total_bytes / kGiB, c.gpu.name, r.memory.hbm_bytes / kGiB);
  }
  r.invariant_violation = CheckInvariants(r, c, s, t, v);
  return r;
}

namespace {

// Schedule `s` of `v` timed by `engine` on the whole cluster and assembled.
StatusOr<VariantReport> TimeAndAssemble(const std::string& name, const Configuration& v, const Schedule& s,
                                        Engine& engine) {
  StatusOr<TimedSchedule> t = engine.Time(s, v.cluster, /*timeline=*/false);
  if (!t.ok()) return t.status();
  return AssembleVariant(name, engine.name(), v.model, v.zero, v.cluster, s, t->timing, t->volumes);
}

}  // namespace

StatusOr<VariantReport> EvaluateVariant(const std::string& name, const Configuration& v, Engine& engine,
                                        ScheduleCache* cache) {
  if (v.layout.pipeline > 1) return ComposePipeline(name, v, engine, cache);
  const RankShape shape(v.cluster, v.layout);
  if (cache != nullptr) return TimeAndAssemble(name, v, cache->Get(v.model, v.zero, shape), engine);
  return TimeAndAssemble(name, v, BuildSchedule(v.model, v.zero, shape), engine);
}

VariantReport EvaluateAnalyticVariant(const std::string& name, const Configuration& v, ScheduleCache* cache) {
  AnalyticEngine engine(v.calibration);
  return EvaluateVariant(name, v, engine, cache).value();  // the analytic engine cannot fail
}

VariantReport EvaluateAnalyticVariant(const std::string& name, const Configuration& v, const Schedule& s) {
  AnalyticEngine engine(v.calibration);
  return TimeAndAssemble(name, v, s, engine).value();
}

const Schedule& ScheduleCache::Get(const ModelSpec& m, const ZeroConfig& z, const RankShape& shape) {
  ++clock_;
  for (Entry& e : entries_) {
    if (e.shape == shape && e.z == z && e.m == m) {
      e.last_use = clock_;
      return e.s;
    }
  }
  ++builds_;
  Entry* slot = nullptr;
  if (entries_.size() < capacity_) {
    entries_.push_back(Entry{m, z, shape, {}, 0});
    slot = &entries_.back();
  } else {
    slot = &*std::min_element(entries_.begin(), entries_.end(),
                              [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
    slot->m = m;
    slot->z = z;
    slot->shape = shape;
  }
  slot->s = BuildSchedule(m, z, shape);
  slot->last_use = clock_;
  return slot->s;
}

}  // namespace zerosim::model
