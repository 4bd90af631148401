// Configuration: one variant's configuration as the model evaluates it, passed whole to the checks
// (validate.h Validate), the evaluations (report/evaluate.h EvaluateAnalyticVariant,
// report/pipeline_evaluate.h, report/rlhf_evaluate.h, sim/sim_evaluate.h) and the reports built from them,
// instead of its parts one by one. Built where it is used: `{m, z, c, cal}` (data parallelism only), `{m, z,
// c, cal, l}`, or with designated members; io::ConfigurationOf (model/io/loaders.h) builds one for a
// scenario's variant.
#pragma once

#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/perturbations.h"
#include "model/spec/rlhf_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// The layout of a configuration that names none: t = p = 1.
inline const ParallelLayout kDataParallelLayout{};

// One variant's configuration as it will run: its model and settings on a cluster, against the calibration it
// is timed with, with the scenario's departures from a uniform cluster and, for an RLHF scenario, its
// phases' models. The fields refer to the caller's objects (a view: build it where it is used).
struct Configuration {
  const ModelSpec& model;
  const ZeroConfig& zero;
  const ClusterSpec& cluster;
  const Calibration& calibration;
  const ParallelLayout& layout = kDataParallelLayout;  // t = p = 1 unless given
  const Perturbations* perturbations = nullptr;        // none: a uniform cluster
  const RlhfSpec* rlhf = nullptr;                      // none: not an RLHF scenario
};

}  // namespace zerosim::model
