// Internal to model/spec's feasibility checks (feasibility.cc, cluster_checks.cc): how a check records a
// problem against the input key that decides it (feasibility.h Problem).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/spec/feasibility.h"

namespace zerosim::model::checks {

inline void Add(std::vector<Problem>* out, std::string key, std::string message) {
  out->push_back({std::move(key), std::move(message)});
}

// `key` must lie in [min, max].
inline void Range(std::vector<Problem>* out, const char* key, int64_t v, int64_t min, int64_t max) {
  if (v < min || v > max) Add(out, key, fmt::format("must be between {} and {}, got {}", min, max, v));
}

}  // namespace zerosim::model::checks
