#include "sim/isolation.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "sim/replay.h"

namespace zerosim::sim {
StatusOr<std::string> RunInChild(const std::function<StatusOr<std::string>()>& work, ChildUsage* usage) {
  PoolOptions o;
  o.workers = 1;
  o.process_per_task = true;
  o.child_name = "simulation process";
  std::string result;
  const Status st = RunPool(
      1, o, [&](size_t) { return work(); },
      [&](size_t, std::string bytes) {
        result = std::move(bytes);
        return Status::Ok();
      },
      usage);
  if (!st.ok()) return st;
  return result;
}

StatusOr<SimResult> SimulateIsolated(const model::Schedule& s, const model::ClusterSpec& c,
                                     const model::Calibration& cal, const SimOptions& o, ChildUsage* usage) {
  StatusOr<std::string> bytes = RunInChild(
      [&]() -> StatusOr<std::string> {
        StatusOr<SimResult> r = SimulateSchedule(s, c, cal, o);
        if (!r.ok()) return r.status();
        return SerializeSimResult(*r);
      },
      usage);
  if (!bytes.ok()) return bytes.status();
  return DeserializeSimResult(*bytes);
}

StatusOr<std::vector<SimResult>> SimulateAll(const std::vector<const model::Schedule*>& schedules,
                                             const std::vector<std::string>& names,
                                             const model::ClusterSpec& c, const model::Calibration& cal,
                                             const SimOptions& o, int jobs) {
  PoolOptions po;
  po.workers = std::max(1, jobs);
  po.process_per_task = true;  // SimGrid's engine runs once per process
  po.child_name = "simulation process";
  po.task_name = [&names](size_t i) { return fmt::format("variant '{}'", names[i]); };
  std::vector<SimResult> results(schedules.size());
  const Status st = RunPool(
      schedules.size(), po,
      [&](size_t i) -> StatusOr<std::string> {
        StatusOr<SimResult> r = SimulateSchedule(*schedules[i], c, cal, o);
        if (!r.ok()) return Status::Error(fmt::format("variant '{}': {}", names[i], r.status().message()));
        return SerializeSimResult(*r);
      },
      [&](size_t i, std::string bytes) -> Status {
        StatusOr<SimResult> r = DeserializeSimResult(bytes);
        if (!r.ok()) return r.status();
        results[i] = std::move(r).value();
        return Status::Ok();
      });
  if (!st.ok()) return st;
  return results;
}

}  // namespace zerosim::sim
