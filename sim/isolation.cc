#include "sim/isolation.h"

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

}  // namespace zerosim::sim
