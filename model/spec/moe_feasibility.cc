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
  if (l.tensor > 1) {
    return refuse("tensor",
                  "an MoE model with tensor > 1 (expert tensor parallelism, the MoE block's sequence "
                  "gather) is not modelled yet: MoE models run with tensor = 1");
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
