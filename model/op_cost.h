// Durations of the ops that run on one GPU or its host (everything but collectives, whose time depends
// on the network and is the evaluators' own business).
//   compute: flops / (peak * GEMM efficiency at the micro-step's tokens per GPU)  (calibration.h)
//   kernel:  alpha + bytes / beta from the calibration fit                         (kernel_cost.h)
//   memory:  bytes / device copy bandwidth                                         (kernel_cost.h)
//   host:    its stated seconds; wait: zero
#pragma once

#include "model/calibration.h"
#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

struct LocalCostModel {
  double effective_flops = 0;  // peak * GEMM efficiency, FLOP/s
  const Calibration* calibration = nullptr;
};

LocalCostModel MakeLocalCostModel(const Schedule& s, const ClusterSpec& c, const Calibration& cal);

// Duration of a non-collective op; 0 for collectives.
double LocalOpDuration(const Op& op, const LocalCostModel& m);

}  // namespace zerosim::model
