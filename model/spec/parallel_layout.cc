#include "model/spec/parallel_layout.h"

namespace zerosim::model {

const char* PipelineScheduleName(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::k1F1B:
      return "1f1b";
    case PipelineSchedule::kInterleaved1F1B:
      return "interleaved_1f1b";
    case PipelineSchedule::kGPipe:
      return "gpipe";
  }
  return "?";
}

std::optional<PipelineSchedule> ParsePipelineSchedule(std::string_view name) {
  if (name == "1f1b") return PipelineSchedule::k1F1B;
  if (name == "interleaved_1f1b") return PipelineSchedule::kInterleaved1F1B;
  if (name == "gpipe") return PipelineSchedule::kGPipe;
  return std::nullopt;
}

void ParallelLayout::SetVirtualStages(int v) {
  virtual_stages = v;
  if (v > 1) {
    schedule = PipelineSchedule::kInterleaved1F1B;
  } else if (schedule == PipelineSchedule::kInterleaved1F1B) {
    schedule = PipelineSchedule::k1F1B;
  }
}

}  // namespace zerosim::model
