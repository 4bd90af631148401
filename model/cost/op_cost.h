// Durations of the ops that run on one GPU or its host (everything but collectives, whose time depends
// on the network and is the evaluators' own business).
//   compute: its compute class's pass time (compute_cost.h: GEMMs with wave quantization, attention,
//            memory-bound kernels, kernel gaps); an op without a class (built by hand in tests) runs its
//            FLOPs at the GPU's GEMM rate, peak * gemm efficiency
//   kernel:  alpha + bytes / beta from the calibration fit                         (kernel_cost.h)
//   memory:  bytes / device copy bandwidth                                         (kernel_cost.h)
//   host:    its stated seconds; wait: zero
#pragma once

#include <vector>

#include "model/cost/compute_cost.h"
#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

struct LocalCostModel {
  double effective_flops = 0;  // peak * GEMM efficiency, FLOP/s: the GEMM rate (and the sim's GPU host speed)
  ComputeRates rates;
  std::vector<ComputeTime> class_time;  // per Schedule::compute_classes
  const Calibration* calibration = nullptr;
};

LocalCostModel MakeLocalCostModel(const Schedule& s, const ClusterSpec& c, const Calibration& cal);

// Duration of a non-collective op; 0 for collectives.
double LocalOpDuration(const Op& op, const LocalCostModel& m);

// The compute stream's work of a schedule split by kind, seconds (the report's "why"): every compute op's
// class time summed (hand-built ops count as GEMM).
ComputeTime SumComputeParts(const Schedule& s, const LocalCostModel& m);

}  // namespace zerosim::model
