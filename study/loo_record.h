// A calibration set's out-of-sample predictions: `zerosim fit SCENARIO... --loo --write-loo` writes, beside each
// scenario, `<scenario>.loo.json` with every fitted point's leave-one-model-size-out prediction (the fit on the
// other model sizes, study/fit.h LeaveOneModelOut); `zerosim validate` reads it so that the bands
// (study/bands.h) are built from out-of-sample residuals of the calibration set too, never its in-sample spread.
//
//   {"format": "zerosim-loo-1", "command": "zerosim fit ...", "scenario": "scenarios/calibration/h100_bf16.toml",
//    "points": [{"variant": "...", "metric": "tokens_per_s_per_gpu", "published": 1384, "predicted": 1402.5}, ...]}
#pragma once

#include <string>
#include <vector>

#include "model/status.h"
#include "study/validation.h"

namespace zerosim::study {

// "scenarios/calibration/h100_bf16.toml" -> "scenarios/calibration/h100_bf16.loo.json".
std::string LooRecordPath(const std::string& scenario_path);

// The record of `predicted` (the held-out points of every fold) that belong to `scenario_path`.
std::string LooRecordJson(const std::vector<PointResult>& predicted, const std::string& scenario_path,
                          const std::string& command);

// Sets `simulated_out_of_sample` of the points of `scenario_path` among `points` from its record. No record:
// nothing set, ok. A record that does not parse, or that lacks one of the scenario's points (stale: rerun the
// fit command it names), is an error.
Status ApplyLooRecord(const std::string& scenario_path, std::vector<PointResult>* points);

}  // namespace zerosim::study
