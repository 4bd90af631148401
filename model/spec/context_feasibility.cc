// Context parallelism's layout rules (feasibility.h CheckContextLayout, part of CheckLayout) and what the
// engines model of it (CheckContextModelled): the refusals of the models, strategies and runs a
// context-parallel layout is not modelled with.
#include <fmt/format.h>

#include "model/spec/feasibility.h"
#include "model/spec/problem_util.h"

namespace zerosim::model {

std::vector<Problem> CheckContextLayout(const ParallelLayout& l, const ModelSpec& m, int64_t gpus) {
  using checks::Add;
  std::vector<Problem> out;
  const int64_t t = l.tensor;
  const int64_t p = l.pipeline;
  // Context parallelism (parallel_layout.h `context`): c divides the data-parallel size d (Megatron-Core's
  // world is t x c x dp x p: parallel_state.py initialize_model_parallel), and each sequence splits into 2c
  // equal chunks (megatron/training/utils.py get_batch_on_this_cp_rank views it as [2c, s / 2c], the causal
  // load-balancing split); with sequence parallelism a rank's s/c tokens split again over t.
  if (l.context < 1) {
    Add(&out, "context", fmt::format("must be at least 1, got {}", l.context));
  } else if (l.context > 1) {
    if (gpus % (t * p) == 0 && (gpus / (t * p)) % l.context != 0) {
      Add(&out, "context",
          fmt::format("context parallelism {} does not divide the data-parallel size {} (GPUs / (tensor x "
                      "pipeline))",
                      l.context, gpus / (t * p)));
    }
    if (l.context_comm == ContextComm::kAllToAll) {
      // Ulysses' all-to-alls split the heads over c (deepspeed/sequence/layer.py: "heads must be divisible by
      // the sequence parallel size"; TE's a2a likewise for the query and the key/value heads), each TP
      // rank's.
      if (m.heads % t == 0 && KvHeads(m) % t == 0 &&
          ((m.heads / t) % l.context != 0 || (KvHeads(m) / t) % l.context != 0)) {
        Add(&out, "context_comm",
            fmt::format(
                "a2a splits each tensor rank's {} query and {} key/value heads over context {}: it does "
                "not divide them",
                m.heads / t, KvHeads(m) / t, l.context));
      }
    }
    if (m.seq_len % (2 * l.context) != 0) {
      Add(&out, "context",
          fmt::format("the {}-token sequence does not split into 2 x context = {} equal chunks (the causal "
                      "load-balancing split of Megatron's get_batch_on_this_cp_rank)",
                      m.seq_len, 2 * l.context));
    } else if (l.sequence_parallel && (m.seq_len / l.context) % t != 0) {
      Add(&out, "context",
          fmt::format("a context rank's {} tokens do not split over tensor {} (sequence parallelism)",
                      m.seq_len / l.context, t));
    }
  }
  return out;
}

std::vector<Problem> CheckContextModelled(const ModelSpec& m, const ParallelLayout& l, const ZeroConfig& z,
                                          bool rlhf) {
  if (l.context <= 1) return {};
  auto refuse = [](const char* key, std::string message) {
    return std::vector<Problem>{{key, std::move(message), ProblemKind::kNotModelled}};
  };
  // The ring exchange runs inside TransformerEngine's fused attention (AttnFuncWithCPAndKVP2P calls the
  // flash / cuDNN kernels on each key/value chunk); Megatron's unfused CoreAttention has no context parallel
  // path (transformer_config.py: context parallelism needs TE's DotProductAttention).
  if (m.attention != AttentionImpl::kFlash && m.attention != AttentionImpl::kFlash2) {
    return refuse("context",
                  "context parallelism runs inside the fused attention kernel (TransformerEngine's "
                  "AttnFuncWithCPAndKVP2P): it needs attention = \"flash\" or \"flash2\"");
  }
  if (IsMoe(m)) return refuse("context", "context parallelism of an MoE model is not modelled yet");
  if (m.sliding_window > 0) {
    return refuse("context", "context parallelism with sliding-window attention is not modelled");
  }
  if (rlhf) return refuse("rlhf", "RLHF phases with context parallelism are not modelled");
  // A context-parallel group is placed as a shard group of c DP ranks (model/builders/schedule_parts.cc); a
  // strategy with shard groups of its own (MiCS, HSDP, hpZ) would need a second such kind, and qgZ builds
  // its groups from world ranks.
  if (HasShardGroup(z.strategy) || z.zero_hpz_partition_size > 1) {
    return refuse("context",
                  fmt::format("context parallelism with strategy \"{}\"{} is not modelled: its "
                              "shard groups and the context-parallel groups would both be shard "
                              "groups",
                              StrategyName(z.strategy), z.zero_hpz_partition_size > 1 ? " and hpZ" : ""));
  }
  if (z.zero_quantized_gradients) {
    return refuse("zero_quantized_gradients", "qgZ with context parallelism is not modelled");
  }
  return {};
}

}  // namespace zerosim::model
