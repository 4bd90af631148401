// Pieces every schedule builder shares (schedule_builder.cc, zero12_builder.cc, fsdp_builder.cc): the
// schedule's frame (world, graph, micro-steps), the compute classes of the module passes, the module trace
// with each parameter's last backward use, one module pass's compute op, the optimizer step and the final
// indexing. Internal to the model library.
#pragma once

#include <vector>

#include "model/fetch_coordinator.h"
#include "model/model_spec.h"
#include "model/op_emitter.h"
#include "model/placement.h"
#include "model/schedule.h"
#include "model/zero_config.h"

namespace zerosim::model {

struct ScheduleFrame {
  std::vector<TraceStep> trace;     // one forward + backward pass (BuildTrace)
  std::vector<int> last_backward;   // per parameter: the trace step of its last backward use (-1: none)
  std::vector<int> forward_class;   // per module: its forward pass's compute class
  std::vector<int> backward_class;  // per module: its backward pass's compute class
};

// Fills the schedule's frame fields (world size, hardware queues, micro-steps, tokens, graph, partitioned
// elements, the shard group size) and returns the trace and compute classes.
ScheduleFrame BeginSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, Schedule* s);

// Emits trace step `ts`'s compute (Megatron's count: backward twice the forward, a recompute once) after
// `deps`; returns the op.
int EmitModuleCompute(const Schedule& s, const ScheduleFrame& f, const TraceStep& ts, OpEmitter* emit,
                      std::initializer_list<int> deps);

// The parameters whose gradients are final at trace step `step` (their last backward use), into `out`.
void ReadyGradients(const Schedule& s, const ScheduleFrame& f, int step, std::vector<int>* out);

// The optimizer step: fused Adam over the rank's 1 / optimizer_shards of the parameters, on the compute
// stream (AdamStepBytesPerParam per element: 28 bytes in mixed precision, precision.h); returns the op.
int EmitOptimizerStep(const ZeroConfig& z, Schedule* s, OpEmitter* emit);

// Compacts the ops (Schedule::compact; the last step of every builder).
void FinishSchedule(Schedule* s);

}  // namespace zerosim::model
