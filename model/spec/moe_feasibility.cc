// What the engines model of a mixture-of-experts model (feasibility.h CheckMoeModelled): the refusals of the
// layouts, strategies and recompute policies MoE blocks and expert parallelism are not modelled with.
#include <fmt/format.h>

#include "model/spec/feasibility.h"

namespace zerosim::model {

std::vector<Problem> CheckMoeModelled(const ModelSpec& m, const ParallelLayout& l, const ZeroConfig& z,
                                      bool rlhf) {
  if (!IsMoe(m)) return {};
  auto refuse = [](const char* key, std::string message) {
    return std::vector<Problem>{{key, std::move(message), ProblemKind::kNotModelled}};
  };
  // Tensor parallelism beside MoE blocks: only with the expert grid folded (ETP 1: each rank runs whole
  // experts on its s/t tokens, parallel_layout.h expert_folded), which needs sequence parallelism
  // (Megatron-Core: "During training, when using Mixture of Experts with tensor parallelism, sequence
  // parallelism must be used", transformer_config.py). Experts split over tensor ranks (ETP = t > 1) are not
  // modelled.
  if (l.tensor > 1) {
    if (l.expert_tensor_size() != 1) {
      return refuse(
          "expert_tensor",
          fmt::format("an MoE model with tensor {} and expert tensor parallelism {} (every expert's "
                      "GEMMs split over the tensor ranks) is not modelled: set expert_tensor = 1 "
                      "(Megatron-Core's MoE parallel folding: whole experts per rank)",
                      l.tensor, l.expert_tensor_size()));
    }
    if (!l.sequence_parallel) {
      return refuse("sequence_parallel",
                    "an MoE model with tensor > 1 needs sequence_parallel = true (Megatron-Core requires "
                    "it for MoE with tensor parallelism)");
    }
    if (m.shared_expert_ffn % l.tensor != 0) {
      return {{"tensor",
               fmt::format("tensor {} does not divide the shared experts' width {} (a column-parallel fc1, "
                           "Megatron-Core's SharedExpertMLP)",
                           l.tensor, m.shared_expert_ffn)}};
    }
    // expert = 1 beside expert_tensor = 1 is refused at expert_tensor (CheckLayout).
  }
  if (rlhf) return refuse("rlhf", "RLHF phases of an MoE model are not modelled");
  if (RecomputeOf(z) == RecomputePolicy::kSelectiveOp) {
    return refuse("activation_checkpointing",
                  "torchtitan's op-level selective recompute of MoE blocks is not modelled");
  }
  if (m.first_dense_layers > 0 && l.virtual_stages > 1) {
    return refuse("virtual_stages",
                  "interleaved virtual stages with dense blocks first (first_dense_layers) are "
                  "not modelled: a stage's chunks would mix dense and MoE blocks");
  }
  if (l.moe_token_dispatcher == MoeDispatcher::kFlex) {
    return refuse(
        "moe_token_dispatcher_type",
        "the flex dispatcher (DeepEP / HybridEP's fused dispatch and combine kernels) is not modelled: "
        "alltoall or allgather");
  }
  if (l.expert > 1) {
    const StrategyTraits& traits = TraitsOf(z.strategy);
    if (traits.parameters != ShardOver::kNone || HasShardGroup(z.strategy)) {
      return refuse("expert",
                    fmt::format("expert parallelism with strategy \"{}\" is not modelled: it runs "
                                "with zero1 or zero2 (Megatron-Core's distributed optimizer), whose "
                                "parameters are whole on every rank",
                                StrategyName(z.strategy)));
    }
    if (z.zero_quantized_gradients) {
      return refuse("zero_quantized_gradients", "qgZ with expert parallelism is not modelled");
    }
  }
  return {};
}

}  // namespace zerosim::model
