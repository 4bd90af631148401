// The inventory of published runs (scenarios/published/cases.json, written by
// scripts/published_runs_to_scenarios.py from ../shared/validation/published_runs.json): every case, whether
// a scenario runs it exactly, with approximations (listed), or not at all (and why). `zerosim validate`
// prints its counts for the scenarios it ran (issue 10's target: how many published runs run without
// approximation, how many still cannot, and why).
#pragma once

#include <string>
#include <vector>

#include "model/status.h"

namespace zerosim::study {

// A summary of the inventory `json_text` (from `path`, for messages) for the scenarios in `validated` (file
// names; a case counts as run only when its scenario was validated): cases run without approximation, run
// with approximations (each reason with its count), cannot run (each reason with its count), not validated
// this time. Errors: malformed JSON or a case without its fields.
StatusOr<std::string> FormatPublishedInventory(const std::string& json_text, const std::string& path,
                                               const std::vector<std::string>& validated);

// FormatPublishedInventory for every directory of `scenario_files` that holds a cases.json, concatenated
// ("" when none does).
StatusOr<std::string> PublishedInventories(const std::vector<std::string>& scenario_files);

}  // namespace zerosim::study
