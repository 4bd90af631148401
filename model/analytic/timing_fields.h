// Timing's quantities (model/analytic/analytic.h) as one list, each named as its member is spelled: the
// scalars
// ("iteration_s", "compute_parts.gemm_s") and the series (per queue, per op). What reads or writes every
// quantity of a Timing reads this list instead of naming the members again: the fork boundary's encoding
// (sim/sim_result.cc writes each by name, and an unknown, repeated or missing name is an error) and the tests
// that fill every quantity. timing_fields.cc asserts the list covers every member of Timing and ComputeTime
// (model/aggregate_members.h): a member added there and not here fails the build.
//
// Adding a quantity to Timing: the member, one line here (its name and a reference to it), and the code that
// computes it in each engine (model/analytic/analytic.cc, sim/replay.cc).
#pragma once

#include <span>
#include <vector>

#include "model/analytic/analytic.h"

namespace zerosim::model {

// One scalar: its name and the member it names.
struct TimingScalar {
  const char* name;
  double& (*ref)(Timing& t);
  double Get(const Timing& t) const { return ref(const_cast<Timing&>(t)); }  // reads only
};

// One series: its name, its values, and setting them (false when `v` has the wrong length: queue_busy_s
// holds one value per queue, kNumQueues).
struct TimingSeries {
  const char* name;
  std::vector<double> (*get)(const Timing& t);
  bool (*set)(Timing& t, std::vector<double> v);
};

// The lists, in Timing's member order.
std::span<const TimingScalar> TimingScalars();
std::span<const TimingSeries> TimingSeriesList();

}  // namespace zerosim::model
