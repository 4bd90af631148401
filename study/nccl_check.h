// The network model against published NCCL measurements: every point of scenarios/published/nccl_points.json
// (written by scripts/nccl_points_to_checks.py from ../shared/validation/nccl_points.json) timed by ZeroSim's
// NCCL cost model (model/cost/collective_time.h) on a cluster built from the point's own description, and its
// bus bandwidth compared with the measured one. Evidence, not fitting material.
#pragma once

#include <string>

#include "model/status.h"

namespace zerosim::study {

// The per-point table and the per-source summary (n, median |error|, mean signed error), as text. Errors: an
// unreadable or malformed file, naming the JSON path.
StatusOr<std::string> CheckNcclPoints(const std::string& path);

}  // namespace zerosim::study
