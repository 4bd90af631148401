#include "model/io/parallel_keys.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "model/spec/feasibility.h"

namespace zerosim::io {

const std::vector<ParallelKey>& ParallelKeys() {
  using T = KeyType;
  using model::ParallelLayout;
  static const std::vector<ParallelKey> keys = {
      {"tensor", T::kInt, 1, model::kMaxGpus,
       [](ParallelLayout* l, double v) { l->tensor = static_cast<int>(v); }},
      {"sequence_parallel", T::kBool, 0, 1,
       [](ParallelLayout* l, double v) { l->sequence_parallel = v != 0; }},
      {"tp_comm_overlap", T::kBool, 0, 1, [](ParallelLayout* l, double v) { l->tp_comm_overlap = v != 0; }},
      {"pipeline", T::kInt, 1, model::kMaxLayers,
       [](ParallelLayout* l, double v) { l->pipeline = static_cast<int>(v); }},
      // The schedule it implies, unless the table names one (ReadParallelKeys reads `schedule` after).
      {"virtual_stages", T::kInt, 1, model::kMaxLayers,
       [](ParallelLayout* l, double v) { l->SetVirtualStages(static_cast<int>(v)); }},
      {"tensor_across_nodes", T::kBool, 0, 1,
       [](ParallelLayout* l, double v) { l->tensor_across_nodes = v != 0; }},
      {"overlap_p2p_comm", T::kBool, 0, 1, [](ParallelLayout* l, double v) { l->overlap_p2p_comm = v != 0; }},
      {"account_for_embedding_in_pipeline_split", T::kBool, 0, 1,
       [](ParallelLayout* l, double v) { l->account_for_embedding_in_pipeline_split = v != 0; }},
      {"account_for_loss_in_pipeline_split", T::kBool, 0, 1,
       [](ParallelLayout* l, double v) { l->account_for_loss_in_pipeline_split = v != 0; }},
      {"num_layers_in_first_pipeline_stage", T::kInt, 1, model::kMaxLayers,
       [](ParallelLayout* l, double v) { l->num_layers_in_first_pipeline_stage = static_cast<int>(v); }},
      {"num_layers_in_last_pipeline_stage", T::kInt, 1, model::kMaxLayers,
       [](ParallelLayout* l, double v) { l->num_layers_in_last_pipeline_stage = static_cast<int>(v); }},
      {"expert", T::kInt, 1, model::kMaxGpus,
       [](ParallelLayout* l, double v) { l->expert = static_cast<int>(v); }},
      {"expert_tensor", T::kInt, 1, model::kMaxGpus,
       [](ParallelLayout* l, double v) { l->expert_tensor = static_cast<int>(v); }},
      {"expert_load_imbalance", T::kNumber, 1.0, 1e3,
       [](ParallelLayout* l, double v) { l->expert_load_imbalance = v; }},
      {"context", T::kInt, 1, model::kMaxGpus,
       [](ParallelLayout* l, double v) { l->context = static_cast<int>(v); }},
  };
  return keys;
}

model::ParallelLayout ReadParallelKeys(TableReader* t, const model::ParallelLayout& base) {
  model::ParallelLayout l = base;
  ReadKeys(t, ParallelKeys(), &l);
  if (std::optional<std::string> name = t->OptionalString("context_comm")) {
    if (std::optional<model::ContextComm> c = model::ParseContextComm(*name)) {
      l.context_comm = *c;
    } else {
      t->Fail("context_comm",
              fmt::format("unknown context_comm \"{}\" (p2p: TransformerEngine's ring; a2a: "
                          "DeepSpeed-Ulysses' all-to-alls; all_gather: PyTorch's context_parallel, "
                          "torchtitan's default)",
                          *name));
    }
  }
  if (std::optional<std::string> name = t->OptionalString("moe_token_dispatcher_type")) {
    if (std::optional<model::MoeDispatcher> d = model::ParseMoeDispatcher(*name)) {
      l.moe_token_dispatcher = *d;
    } else {
      t->Fail(
          "moe_token_dispatcher_type",
          fmt::format("unknown moe_token_dispatcher_type \"{}\" (alltoall, allgather, flex: Megatron-Core's "
                      "names)",
                      *name));
    }
  }
  if (std::optional<std::string> name = t->OptionalString("schedule")) {
    if (std::optional<model::PipelineSchedule> s = model::ParsePipelineSchedule(*name)) {
      l.schedule = *s;
    } else {
      t->Fail("schedule", fmt::format("unknown schedule \"{}\" (1f1b, interleaved_1f1b, gpipe)", *name));
    }
  }
  return l;
}

}  // namespace zerosim::io
