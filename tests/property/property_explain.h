// Where the two engines part on one case of the property run (tests/property/property_check.h): the case's
// schedule timed by the analytic engine and replayed on SimGrid, per queue, op kind and purpose the summed
// durations each engine gives, and the ops where the gap between their finish times grows most. For finding
// the cause of an "engines agree" violation (`property_run --explain I`); asserts nothing.
#pragma once

#include <cstdint>
#include <string>

namespace zerosim::testing {

// The comparison for case `index` of `seed`, as text; an error's message when the case does not load,
// is infeasible or the replay fails.
std::string ExplainCase(uint64_t seed, int index);

}  // namespace zerosim::testing
