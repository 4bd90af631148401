// Output of RLHF variants (model/report/rlhf_evaluate.h): the per-phase table and the JSON `phases` list
// (docs/report.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/report/report.h"

namespace zerosim::io {

// One block per phase: a column per variant with time, per-GPU throughput and its ratio to the first variant
// of the same engine, compute and exposed communication, bytes per tier and memory per GPU (KV cache
// included); then the PPO step. A variant that does not fit shows its memory and "-" for the rest.
std::string FormatRlhfPhases(const std::vector<model::VariantReport>& variants);

// The `phases` list of a variant's JSON object; without `ran` (the variant does not fit, model::Ran) each
// phase has its name, composition and memory only.
nlohmann::ordered_json PhasesToJson(const std::vector<model::PhaseReport>& phases, int gpus, bool ran);

}  // namespace zerosim::io
