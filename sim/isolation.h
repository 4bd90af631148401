// One simulation per process: SimGrid's engine is a process-wide singleton that cannot be reset (its
// clock and models survive a second Engine). These helpers run work in a forked child and bring its
// result back through a pipe, so that one process can run many simulations one after the other.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/status.h"
#include "sim/process_pool.h"
#include "sim/sim_options.h"
#include "sim/sim_result.h"

namespace zerosim::sim {

// Forks (the process pool, process_pool.h, with one task in one fresh child); the child runs `work` and
// sends back its bytes or its error, then exits without running the parent's exit handlers. Returns what
// the child sent, or an error if it failed or died ("simulation process died of signal 9"). `usage`, if
// given, receives the child's resources.
StatusOr<std::string> RunInChild(const std::function<StatusOr<std::string>()>& work,
                                 ChildUsage* usage = nullptr);

// SimulateSchedule (replay.h) in a child process.
StatusOr<SimResult> SimulateIsolated(const model::Schedule& s, const model::ClusterSpec& c,
                                     const model::Calibration& cal, const SimOptions& o,
                                     ChildUsage* usage = nullptr);

// SimulateSchedule of every entry of `schedules`, each in its own fresh child process, up to `jobs`
// children at once (the process pool, process_pool.h). Results come back in the order of `schedules`, the
// same bytes for any `jobs` (each replay is deterministic and alone in its process). An error names the
// failing entry by `names` (same length as `schedules`), e.g. "variant 'zero++': ...".
StatusOr<std::vector<SimResult>> SimulateAll(const std::vector<const model::Schedule*>& schedules,
                                             const std::vector<std::string>& names, const model::ClusterSpec& c,
                                             const model::Calibration& cal, const SimOptions& o, int jobs);

}  // namespace zerosim::sim
