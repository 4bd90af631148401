// What the engines model of context parallelism (feasibility.h CheckContextModelled): the refusals of the
// models, strategies and runs a context-parallel layout is not modelled with.
#include <fmt/format.h>

#include "model/spec/feasibility.h"

namespace zerosim::model {

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
