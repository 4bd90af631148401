#include "model/io/parallel_keys.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "model/spec/feasibility.h"

namespace zerosim::io {

model::ParallelLayout ReadParallelKeys(TableReader* t, const model::ParallelLayout& base) {
  model::ParallelLayout l = base;
  l.tensor = static_cast<int>(t->IntOr("tensor", l.tensor, 1, model::kMaxGpus));
  l.sequence_parallel = t->BoolOr("sequence_parallel", l.sequence_parallel);
  l.tp_comm_overlap = t->BoolOr("tp_comm_overlap", l.tp_comm_overlap);
  l.pipeline = static_cast<int>(t->IntOr("pipeline", l.pipeline, 1, model::kMaxLayers));
  l.virtual_stages = static_cast<int>(t->IntOr("virtual_stages", l.virtual_stages, 1, model::kMaxLayers));
  l.tensor_across_nodes = t->BoolOr("tensor_across_nodes", l.tensor_across_nodes);
  l.overlap_p2p_comm = t->BoolOr("overlap_p2p_comm", l.overlap_p2p_comm);
  l.account_for_embedding_in_pipeline_split =
      t->BoolOr("account_for_embedding_in_pipeline_split", l.account_for_embedding_in_pipeline_split);
  l.account_for_loss_in_pipeline_split =
      t->BoolOr("account_for_loss_in_pipeline_split", l.account_for_loss_in_pipeline_split);
  l.num_layers_in_first_pipeline_stage = static_cast<int>(t->IntOr(
      "num_layers_in_first_pipeline_stage", l.num_layers_in_first_pipeline_stage, 1, model::kMaxLayers));
  l.num_layers_in_last_pipeline_stage = static_cast<int>(t->IntOr(
      "num_layers_in_last_pipeline_stage", l.num_layers_in_last_pipeline_stage, 1, model::kMaxLayers));
  l.expert = static_cast<int>(t->IntOr("expert", l.expert, 1, model::kMaxGpus));
  l.expert_tensor = static_cast<int>(t->IntOr("expert_tensor", l.expert_tensor, 1, model::kMaxGpus));
  l.expert_load_imbalance = t->NumberOr("expert_load_imbalance", l.expert_load_imbalance, 1.0, 1e3);
  l.context = static_cast<int>(t->IntOr("context", l.context, 1, model::kMaxGpus));
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
  if (std::optional<std::string> name = t->OptionalString("schedule")) {
    if (std::optional<model::PipelineSchedule> s = model::ParsePipelineSchedule(*name)) {
      l.schedule = *s;
    } else {
      t->Fail("schedule", fmt::format("unknown schedule \"{}\" (1f1b, interleaved_1f1b, gpipe)", *name));
    }
  } else if (t->Has("virtual_stages")) {
    l.SetVirtualStages(l.virtual_stages);  // the schedule virtual_stages implies
  }
  return l;
}

}  // namespace zerosim::io
