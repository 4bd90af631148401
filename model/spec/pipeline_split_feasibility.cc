// The pipeline split's layout rules (feasibility.h CheckPipelineSplit, part of CheckLayout): the chunks
// divide the layers, or the layers with the embedding and the loss counted as Megatron-Core counts them
// (model/spec/pipeline_split.h).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "model/spec/feasibility.h"
#include "model/spec/pipeline_split.h"
#include "model/spec/problem_util.h"

namespace zerosim::model {

namespace {

// The first and (or) last stage's layers given (num_layers_in_first/last_pipeline_stage): Megatron-Core's
// TransformerConfig rules (the rest shared evenly by the other stages, each stage's layers divisible by v).
std::vector<Problem> CheckGivenEndStages(const ParallelLayout& l, const ModelSpec& m) {
  using checks::Add;
  std::vector<Problem> out;
  const int p = l.pipeline, v = l.virtual_stages, first = l.num_layers_in_first_pipeline_stage,
            last = l.num_layers_in_last_pipeline_stage;
  const char* key = first > 0 ? "num_layers_in_first_pipeline_stage" : "num_layers_in_last_pipeline_stage";
  if (p == 1) {
    Add(&out, key, "gives a pipeline stage's layers: it needs pipeline > 1");
    return out;
  }
  if (CountsEmbeddingOrLoss(l)) {
    Add(&out, key,
        "the first or last stage's layers given and the embedding or loss counted in the split at once: "
        "Megatron-Core takes one or the other");
    return out;
  }
  const int middle_stages = p - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
  const int rest = m.layers - first - last;
  if (rest < 0 || (middle_stages == 0 && rest != 0)) {
    Add(&out, key,
        fmt::format("the first and last stages' {} + {} layers {} the model's {}", first, last,
                    rest < 0 ? "exceed" : "do not make", m.layers));
    return out;
  }
  if (middle_stages > 0 && (rest % middle_stages != 0 || rest / middle_stages < 1)) {
    Add(&out, key,
        fmt::format(
            "the other {} stages cannot share the remaining {} of the model's {} layers evenly (at least "
            "one each)",
            middle_stages, rest, m.layers));
    return out;
  }
  // get_num_layers_to_build: each stage's layers over its v chunks ("number of layers at first stage ... must
  // be divisible by virtual pipeline parallel degree").
  for (int stage : {0, middle_stages > 0 ? 1 : 0, p - 1}) {
    const int n = StageLayers(m.layers, l, stage);
    if (n % v != 0) {
      Add(&out, "virtual_stages",
          fmt::format("pipeline stage {}'s {} layers do not split over virtual_stages {}", stage, n, v));
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<Problem> CheckPipelineSplit(const ParallelLayout& l, const ModelSpec& m) {
  using checks::Add;
  if (GivesEndStages(l)) return CheckGivenEndStages(l, m);
  std::vector<Problem> out;
  const int p = l.pipeline, v = l.virtual_stages, chunks = p * v;
  const int e = l.account_for_embedding_in_pipeline_split ? 1 : 0;
  const int o = l.account_for_loss_in_pipeline_split ? 1 : 0;
  // Megatron-Core's TransformerConfig.__post_init__ accepts the two flags only with a pipeline (they place
  // the embedding and the loss among pipeline stages).
  if (p == 1) {
    if (e == 1) {
      Add(&out, "account_for_embedding_in_pipeline_split",
          "counts the embedding as a layer of the pipeline split: it needs pipeline > 1");
    }
    if (o == 1) {
      Add(&out, "account_for_loss_in_pipeline_split",
          "counts the loss as a layer of the pipeline split: it needs pipeline > 1");
    }
    if (!out.empty()) return out;
  }
  // Each pipeline rank holds v chunks of L / (p v) layers: megatron/training/arguments.py:998 asserts
  // num_layers % pipeline_model_parallel_size == 0 ("number of layers should be divisible by the pipeline
  // parallel size"), and megatron/core/transformer/transformer_config.py:2315-2412 the split by v; with the
  // embedding and the loss counted, (L + e + o) % (p v) == 0 (get_transformer_layer_offset's units).
  const int units = m.layers + e + o;
  if (units % chunks != 0) {
    const char* flags = e + o == 2
                            ? "account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split"
                        : e == 1 ? "account_for_embedding_in_pipeline_split"
                                 : "account_for_loss_in_pipeline_split";
    std::string counted = e + o == 0 ? std::string("layers")
                                     : fmt::format("layers + {} ({} counted as layers: {})", e + o,
                                                   e + o == 2 ? "the embedding and the loss"
                                                              : (e == 1 ? "the embedding" : "the loss"),
                                                   flags);
    std::string hint;
    if (e + o == 0 && (m.layers + 2) % chunks == 0) {
      hint =
          "; Megatron-Core's account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split "
          "count the embedding and the loss as layers, and L + 2 divides";
    }
    // The key that decides: a flag when the chunks divide the layers without it.
    std::string key = v > 1 && units % p == 0 ? "virtual_stages" : "pipeline";
    if (e + o > 0 && m.layers % chunks == 0) {
      key = e == 1 ? "account_for_embedding_in_pipeline_split" : "account_for_loss_in_pipeline_split";
    }
    Add(&out, key,
        fmt::format("pipeline {} x virtual_stages {} = {} model chunks do not divide the model's {} {}{}", p,
                    v, chunks, m.layers, counted, hint));
    return out;
  }
  // A chunk of the embedding (loss) alone: Megatron builds it, ZeroSim's stage schedules need a layer in each
  // chunk.
  if (units / chunks - std::max(e, o) < 1) {
    Add(&out, e == 1 ? "account_for_embedding_in_pipeline_split" : "account_for_loss_in_pipeline_split",
        fmt::format(
            "{} layers + {} over {} chunks leave a chunk without a transformer layer, which ZeroSim does "
            "not model",
            m.layers, e + o, chunks));
  }
  return out;
}

}  // namespace zerosim::model
