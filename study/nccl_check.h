// The network model against published NCCL measurements: every point of scenarios/published/nccl_points.json
// (written by scripts/nccl_points_to_checks.py from ../shared/validation/nccl_points.json) timed by ZeroSim's
// NCCL cost model (model/cost/collective_time.h) on a cluster built from the point's own description, and its
// bus bandwidth compared with the measured one. Evidence, not fitting material.
#pragma once

#include <string>
#include <vector>

#include "model/status.h"

namespace zerosim::study {

// One source's points (or "all" of them): bus-bandwidth errors, ZeroSim over measured minus 1.
struct NcclSummary {
  std::string source;  // the source and its benchmark, as the table names it; "all" for every point
  int n = 0;
  double median_abs = 0;
  double worst_abs = 0;
  double mean_signed = 0;
};

struct NcclCheck {
  std::string table;                 // the per-point table and the per-source summary, as text
  std::vector<NcclSummary> sources;  // per source in the table's order, then "all"
};

// Every point of the file timed and compared. Errors: an unreadable or malformed file, naming the JSON path.
StatusOr<NcclCheck> CheckNcclPoints(const std::string& path);

}  // namespace zerosim::study
