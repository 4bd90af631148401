// Bands on every answer (model/report/band.h): attaching the shipped table's band to each variant of a
// report, and building the table from validation points (`zerosim validate --write-bands`).
#pragma once

#include <string>
#include <vector>

#include "model/report/band.h"
#include "model/report/report.h"
#include "model/spec/calibration.h"
#include "study/validation.h"

namespace zerosim::study {

// Sets every variant's band from `table` by its key (GPU family of the report's cluster, framework, regime);
// infeasible variants get none. `cal` says whether the compute is derived from another family's fit.
void AttachBands(const model::BandTable& table, const model::Calibration& cal, model::Report* r);
// The same for one variant run on a GPU named `gpu_name` (plan's settings, which are no report's).
void AttachBand(const model::BandTable& table, const model::Calibration& cal, const std::string& gpu_name,
                model::VariantReport* v);

// The table from the analytic engine's throughput points (TFLOPs and tokens/s per GPU; speedups and volumes
// carry no band): per band key, the 5th and 95th percentiles of published / simulated.
model::BandTable BuildBandTable(const std::vector<PointResult>& points);

// Per validation group: n and the coverage, the share of its throughput points whose published / simulated lies
// inside the band of its key built without that point (leave one point out), against the 80% target.
std::string FormatBandCoverage(const std::vector<PointResult>& points);

}  // namespace zerosim::study
