#include "model/spec/parallel_layout.h"

#include <array>

#include "model/enum_names.h"

namespace zerosim::model {

namespace {

// PipelineSchedule's order.
constexpr std::array<const char*, 3> kScheduleNames = {"1f1b", "interleaved_1f1b", "gpipe"};

}  // namespace

const char* PipelineScheduleName(PipelineSchedule s) { return NameOf(kScheduleNames, s); }

namespace {
constexpr std::array<const char*, 3> kContextCommNames = {"p2p", "a2a", "all_gather"};
}  // namespace

const char* ContextCommName(ContextComm c) { return NameOf(kContextCommNames, c); }

constexpr std::array<const char*, 3> kMoeDispatcherNames = {"alltoall", "allgather", "flex"};

const char* MoeDispatcherName(MoeDispatcher d) { return NameOf(kMoeDispatcherNames, d); }

std::optional<MoeDispatcher> ParseMoeDispatcher(std::string_view name) {
  return ValueNamed<MoeDispatcher>(kMoeDispatcherNames, name);
}

std::optional<ContextComm> ParseContextComm(std::string_view name) {
  return ValueNamed<ContextComm>(kContextCommNames, name);
}

std::optional<PipelineSchedule> ParsePipelineSchedule(std::string_view name) {
  return ValueNamed<PipelineSchedule>(kScheduleNames, name);
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
