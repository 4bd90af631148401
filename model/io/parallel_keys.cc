#include "model/io/parallel_keys.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "model/feasibility.h"

namespace zerosim::io {

model::ParallelLayout ReadParallelKeys(TableReader* t, const model::ParallelLayout& base) {
  model::ParallelLayout l = base;
  l.tensor = static_cast<int>(t->IntOr("tensor", l.tensor, 1, model::kMaxGpus));
  l.sequence_parallel = t->BoolOr("sequence_parallel", l.sequence_parallel);
  l.pipeline = static_cast<int>(t->IntOr("pipeline", l.pipeline, 1, model::kMaxLayers));
  l.virtual_stages = static_cast<int>(t->IntOr("virtual_stages", l.virtual_stages, 1, model::kMaxLayers));
  l.tensor_across_nodes = t->BoolOr("tensor_across_nodes", l.tensor_across_nodes);
  if (std::optional<std::string> name = t->OptionalString("schedule")) {
    if (std::optional<model::PipelineSchedule> s = model::ParsePipelineSchedule(*name)) {
      l.schedule = *s;
    } else {
      t->Fail("schedule", fmt::format("unknown schedule \"{}\" (1f1b, interleaved_1f1b, gpipe)", *name));
    }
  } else if (t->Has("virtual_stages")) {
    // "interleaved_1f1b" is implied by virtual_stages > 1 (Megatron picks the interleaved schedule exactly
    // then: megatron/core/pipeline_parallel/schedules.py get_forward_backward_func).
    if (l.virtual_stages > 1) {
      l.schedule = model::PipelineSchedule::kInterleaved1F1B;
    } else if (l.schedule == model::PipelineSchedule::kInterleaved1F1B) {
      l.schedule = model::PipelineSchedule::k1F1B;
    }
  }
  return l;
}

}  // namespace zerosim::io
