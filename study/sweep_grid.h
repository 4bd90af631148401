// A sweep's grid: the points of a parsed sweep (model/io/sweep.h). Points are numbered 0..n-1 in a fixed
// order: the axes in their enumeration order (the schedule-shaping axes first, then those that only change
// bandwidths), the last axis varying fastest; points failing a constraint are dropped. A point is a
// cluster and the base scenario's variants with the axis values applied; a combination that cannot run
// (an hpZ size that does not divide the GPUs per node, NICs that do not divide them) is still a point,
// marked infeasible with the reason from the model's one feasibility check (model/spec/feasibility.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/io/loaders.h"
#include "model/io/sweep.h"
#include "model/status.h"

namespace zerosim::study {

struct SweepPoint {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> axes;  // key, value text
  model::ClusterSpec cluster;
  model::Calibration calibration;
  std::vector<io::Variant> variants;
  std::string infeasible;  // non-empty: why no variant of the point can run (its axes' values)
  // Per variant (same order as `variants`): why that variant cannot run on the point
  // (model/spec/feasibility.h), "" when it can. One variant's problem (ZeRO++'s hpZ on fewer GPUs per node)
  // leaves the others to run.
  std::vector<std::string> variant_infeasible;
  // The files the point's numbers come from (the base scenario's unless a topology or model axis chose
  // another), for the rows' provenance.
  model::InputFile topology_file;
  model::InputFile model_file;
  model::InputFile calibration_file;
};

// Expands the grid of `s` into s->product_index: the product of the axes (at most io::kMaxSweepPoints),
// less the points that fail [constraints]. Errors: a product too large, no point left, an owned cluster
// whose NIC bandwidth has no price.
Status ExpandSweep(io::SweepSpec* s);

// io::ParseSweep then ExpandSweep: a sweep ready to run.
StatusOr<io::SweepSpec> LoadSweep(const io::FileSource& fs, const std::string& path);

// The number of points of an expanded sweep.
size_t PointCount(const io::SweepSpec& s);
// Point `index` (< PointCount) of an expanded sweep, with its feasibility.
SweepPoint MakePoint(const io::SweepSpec& s, size_t index);

// `base` with one-parameter what-ifs applied (io::ParseSettings), e.g. "nic.bandwidth=200Gbps",
// "nodes=48", "zero_quantized_gradients=false". The scenario's name records them. Errors: an unknown key, a
// bad value, a key given twice, a combination that cannot run.
StatusOr<io::Scenario> ApplySettings(const io::FileSource& fs, const io::Scenario& base,
                                     const std::vector<std::string>& settings);

// Ok when at least one variant of `s` can run on its cluster and calibration (io::ValidateVariant);
// otherwise an error "WHAT: no variant can run: variant "V": reasons". For the callers that loaded a scenario
// without its configuration check (io::LoadOptions) and applied what-ifs described by `what`.
Status CheckSomeVariantRuns(const io::Scenario& s, const std::string& what);

}  // namespace zerosim::study
