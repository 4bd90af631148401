// One process pool for every place that runs work in forked children: the sweep's workers
// (study/sweep_runner.cc) and the sim engine's one simulation per process (isolation.h; SimGrid's engine is
// a process-wide singleton that cannot be reset, so each simulation needs a fresh process).
//
// Tasks 0..n-1 are handed out dynamically: each worker gets one task at a time and asks for the next when
// it sends its result, so a slow task holds one worker while the others drain the rest. Results reach the
// caller in task order whatever the number of workers and whichever finishes first, so output written from
// them is the same bytes for any worker count. Workers die with the parent (PR_SET_PDEATHSIG): killing
// the parent leaves no worker running. A leaf library (`zerosim_process_pool`: Status and fmt only).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "model/status.h"

namespace zerosim::sim {

// Resources the pool's children used (getrusage of each reaped child, summed).
struct ChildUsage {
  double max_rss_bytes = 0;  // the largest child's
  double cpu_s = 0;          // user + system, all children
};

struct PoolOptions {
  int workers = 1;  // at most this many children at once (at least 1)
  // Each task in a fresh child that exits after it (SimGrid); otherwise a worker runs task after task.
  bool process_per_task = false;
  // How errors name a task ("point 17"); none by default.
  std::function<std::string(size_t)> task_name;
  // How errors name a child ("simulation process"); default "worker process".
  std::string child_name = "worker process";
};

// Runs `work(i)` for i in 0..tasks-1 in child processes, and calls `deliver(i, bytes)` in the parent in
// increasing i with what each task returned. The parent's buffered stdio is flushed before forking; a
// child exits with _exit (no exit handlers of the parent run in it). Stops at the first failure, kills the
// remaining children and returns an error: a task's own error (its message as it is), a child that died or
// exited while running a task ("<child_name> died of signal 9 while running <task_name>", the task's name
// only when `task_name` is given), a failed fork or socket, or an error `deliver` returned. `usage`, if
// given, receives the children's resources.
Status RunPool(size_t tasks, const PoolOptions& options,
               const std::function<StatusOr<std::string>(size_t)>& work,
               const std::function<Status(size_t, std::string)>& deliver, ChildUsage* usage = nullptr);

}  // namespace zerosim::sim
