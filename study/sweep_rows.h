// The rows of a sweep's output (docs/sweeps.md): per point and variant, the sweep, the point and its axes,
// the variant's fields named as `run --format jsonl` names them (model/io/report_fields.h), the cost with
// prices, and the provenance (version, input hashes, calibration kinds).
#pragma once

#include <string>
#include <vector>

#include "model/io/sweep.h"
#include "model/report.h"
#include "study/sweep_grid.h"

namespace zerosim::study {

// The JSON lines of one point, newline-terminated; `sweep_hash` (SweepFingerprint, sweep_resume.h), when
// given, is carried by every row so that a resumed output can be checked.
std::string PointRows(const io::SweepSpec& spec, const SweepPoint& p,
                      const std::vector<model::VariantReport>& reports, const std::string& sweep_hash = "");

}  // namespace zerosim::study
