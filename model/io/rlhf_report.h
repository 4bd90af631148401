// Output of RLHF variants (model/rlhf_evaluate.h): the per-phase table and the JSON `phases` list
// (docs/report.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/report.h"

namespace zerosim::io {

// One block per phase: a column per variant with time, per-GPU throughput and its ratio to the first variant
// of the same engine, compute and exposed communication, bytes per tier and memory per GPU (KV cache
// included); then the PPO step.
std::string FormatRlhfPhases(const std::vector<model::VariantReport>& variants);

// The `phases` list of a variant's JSON object.
nlohmann::ordered_json PhasesToJson(const std::vector<model::PhaseReport>& phases, int gpus);

}  // namespace zerosim::io
