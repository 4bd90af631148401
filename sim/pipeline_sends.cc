#include "sim/pipeline_sends.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "model/cost/collective_time.h"
#include "model/report/pipeline_evaluate.h"
#include "sim/collective_plan.h"
#include "sim/isolation.h"
#include "sim/simgrid_platform.h"

namespace zerosim::sim {

StatusOr<double> SimulateSendStep(const model::ClusterSpec& c, const model::ParallelLayout& l, double bytes,
                                  const SimOptions& o) {
  if (l.pipeline < 2 || c.nodes % l.pipeline != 0) {
    return Status::Error(
        fmt::format("pipeline sends: {} stages on {} nodes do not hold whole nodes", l.pipeline, c.nodes));
  }
  SimOptions whole = o;
  whole.reduction = Reduction::kFull;
  const Layout layout = MakeLayout(c, model::RankGrid{.tensor = l.tensor}, whole);
  // Nothing computes: the GPUs' speed does not matter, but the platform needs one.
  StatusOr<PlatformSpec> spec = MakePlatformSpec(c, layout, c.gpu.peak_flops, o.actor_stack_kib);
  if (!spec.ok()) return spec.status();
  PlatformSpec with_options = *spec;
  with_options.simgrid_cfg = o.simgrid_cfg;
  with_options.simgrid_log = o.simgrid_log;
  StatusOr<std::unique_ptr<Platform>> created = Platform::Create(with_options);
  if (!created.ok()) return created.status();
  Platform& platform = **created;

  // NCCL's protocol for the step, as the analytic send time picks it (model/report/pipeline_evaluate.h).
  const model::CollectiveTime t = model::EstimateCollective(model::P2pTraffic(bytes, c, l), c);
  const auto wire = static_cast<uint64_t>(std::llround(bytes / t.params.bandwidth_factor));
  // Ranks ordered tp-dp-pp (model/placement/placement.h): stage i holds ranks [i S, (i + 1) S), S = P / p,
  // and a rank's peer on the next stage is S further on, the same local GPU of a node S / N further on.
  const int stage_ranks = c.total_gpus() / l.pipeline;
  std::vector<Transfer> transfers;
  for (int i = 0; i + 1 < l.pipeline; i += 2) {
    for (int r = i * stage_ranks; r < (i + 1) * stage_ranks; ++r) {
      transfers.push_back({r, r + stage_ranks, wire});  // the activation forward
      transfers.push_back({r + stage_ranks, r, wire});  // the gradient back
    }
  }
  platform.Spawn("pipeline sends", 0, [&] {
    Platform::Delay(t.latency_s);
    platform.TransferAll(transfers);
  });
  return platform.Run();
}

StatusOr<double> SimulateSendStepIsolated(const model::ClusterSpec& c, const model::ParallelLayout& l,
                                          double bytes, const SimOptions& o) {
  StatusOr<std::string> text = RunInChild([&]() -> StatusOr<std::string> {
    StatusOr<double> s = SimulateSendStep(c, l, bytes, o);
    if (!s.ok()) return s.status();
    return fmt::format("{}", *s);  // the shortest text that reads back to the same double
  });
  if (!text.ok()) return text.status();
  char* end = nullptr;
  const double seconds = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0') {
    return Status::Error(fmt::format("pipeline sends: the simulation process sent '{}'", *text));
  }
  return seconds;
}

}  // namespace zerosim::sim
