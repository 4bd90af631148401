// Bands on every answer (model/report/band.h): attaching the shipped table's band to each variant of a
// report, building the table from validation points (`zerosim validate --write-bands`), and checking it out of
// sample (each validation group's points against the bands built without that group).
#pragma once

#include <string>
#include <vector>

#include "model/report/band.h"
#include "model/report/report.h"
#include "model/spec/calibration.h"
#include "model/status.h"
#include "study/validation.h"

namespace zerosim::study {

// Sets every variant's band from `table` by its key (GPU family of the report's cluster, framework, regime);
// infeasible variants get none. `cal` says whether the compute is derived from another family's fit. An error
// (an invariant, naming the variant) when a headline would lie outside its band (model::HeadlineInsideBand).
Status AttachBands(const model::BandTable& table, const model::Calibration& cal, model::Report* r);
// The same for one variant run on a GPU named `gpu_name` (plan's settings, which are no report's).
Status AttachBand(const model::BandTable& table, const model::Calibration& cal, const std::string& gpu_name,
                  model::VariantReport* v);

// The spread between software generations of one GPU (the widening off the calibrated ground,
// BandTable::derived_widening): over the calibration files of `calibrations` holding two or more empirical
// compute sets, the largest ratio of their GEMM efficiencies, each taken at the part's default power limit (a set
// fitted on capped parts is scaled by the power model, model/spec/gpu_power.h); 1.1 when no file holds two. `how` says which file and sets gave it.
double GenerationSpread(const std::vector<model::Calibration>& calibrations, std::string* how);

// The table from the analytic engine's throughput points (TFLOPs and tokens/s per GPU; speedups and volumes
// carry no band), out of sample (PointResult::OutOfSampleRatio): per band key and parent, the 5th, 50th and 95th
// percentiles of published / simulated.
model::BandTable BuildBandTable(const std::vector<PointResult>& points, double derived_widening);

// Out-of-sample coverage per validation group: each point against the band its key gets (BandFor, with the
// parent fallback and the widening) from the table built without its whole group (leave one group out), against
// the 80% target; the shipped band of each key beside it.
struct GroupCoverage {
  std::string group;
  std::string band_key;
  int n = 0;
  int inside = 0;           // points inside their band built without their group
  std::string from;         // the group the left-out band came from (most points')
  model::Band shipped;      // the band a variant of this key gets from the full table
};
std::vector<GroupCoverage> BandCoverage(const std::vector<PointResult>& points, double derived_widening);
std::string FormatBandCoverage(const std::vector<PointResult>& points, double derived_widening);

}  // namespace zerosim::study
