// OpEmitter: appends ops to a Schedule in host issue order, tracking the tail of every queue. Used by
// the pieces of BuildSchedule that emulate DeepSpeed (fetch_coordinator, gradient_reducer); not part of
// the public model API.
//
// Every GPU op automatically depends on the host's latest op: a kernel cannot start before the host
// thread has issued it. The builder declares the schedule's hpZ group when it makes its emitter (`hpz_size`,
// written to Schedule::hpz_group_size: 1 for builders without hpZ); no group size is read from emitted ops.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "model/placement/placement.h"
#include "model/schedule/schedule.h"

namespace zerosim::model {

class OpEmitter {
 public:
  // `s` has its frame (schedule_parts.h SetScheduleFrame: its ranks and layout): the groups' sizes are those
  // of its grid (placement.h GridOf), on which the engines place its collectives.
  OpEmitter(Schedule* s, int hpz_size);

  // Context stamped on every op emitted from now on.
  void SetContext(Phase phase, int micro_step, int module) {
    phase_ = phase;
    micro_step_ = micro_step;
    module_ = module;
  }
  Phase phase() const { return phase_; }

  // Last op issued on `q`, or -1.
  int tail(Queue q) const { return tail_[static_cast<int>(q)]; }

  // Host work of `seconds`, after `dep` (a GPU op the host synchronises on) if dep >= 0. Emits nothing
  // (and returns the host's last op) for zero seconds and no dep: such an op would change no time.
  int Host(double seconds, int dep = -1);
  // Compute of `flops` (Megatron's count) whose duration is that of `compute_class`.
  int Compute(double flops, int compute_class, std::initializer_list<int> deps);
  int Kernel(Queue q, const KernelSpec& k, std::initializer_list<int> deps);
  int Memory(Queue q, double bytes, std::initializer_list<int> deps);
  int Wait(Queue q, std::initializer_list<int> deps);
  // A collective on NCCL queue `q` over `group` (its size from the shape: placement.h GroupSize; with
  // tensor parallelism the data-parallel kinds lie inside the rank's DP group of d = P / t ranks), in its
  // collective class (ClassifyCollective). Where its bytes go is the engines' to derive (traffic.h).
  int Collective(Queue q, CollectiveKind kind, GroupKind group, double buffer_bytes, double element_bytes,
                 Purpose purpose, std::initializer_list<int> deps);

  int group_size(GroupKind g) const;

 private:
  int Append(Op op, std::initializer_list<int> deps);

  Schedule* s_;
  int tail_[kNumQueues];
  Phase phase_ = Phase::kForward;
  int micro_step_ = 0;
  int module_ = -1;
};

}  // namespace zerosim::model
