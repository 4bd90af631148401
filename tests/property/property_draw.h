// Random scenarios for the property run (tests/property/property_check.h): a topology, a model and a scenario
// of one variant, written as the input files a user would write (docs/inputs.md) and loaded by the loaders.
// Every strategy (model/spec/strategy.h), every layout (data parallel, tensor, tensor + sequence, pipeline
// with 1F1B or GPipe, interleaved 1F1B, tensor x pipeline) and every fabric (single switch, two- and
// three-level fat tree, rail-optimized) on four GPU generations and three NCCL releases. Case `index` of
// `seed` depends on nothing else: a violation found in a long run is reproduced by its index alone.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace zerosim::testing {

struct DrawnCase {
  std::string label;  // one line: GPU, cluster, fabric, strategy, layout
  // s.toml (the scenario), t.toml (the topology), m.toml (the model) and the shipped calibration the
  // topology names (calibration/<gpu>.json, read from the source tree).
  std::map<std::string, std::string> files;
  bool single_switch = false;  // the fabric is one switch (nothing but the queues' own traffic contends)
};

// The `index`-th case of the run seeded with `seed`.
DrawnCase DrawCase(uint64_t seed, int index);

}  // namespace zerosim::testing
