// Loading a scenario (from disk, or the embedded default) and evaluating all its variants into a Report.
// Shared by the subcommands that evaluate scenarios.
#pragma once

#include <string>

#include "model/io/loaders.h"
#include "model/report.h"
#include "model/status.h"

namespace zerosim::cli {

enum class Engine { kAnalytic };

// `path` empty: the embedded default scenario.
StatusOr<io::Scenario> LoadScenarioOrDefault(const std::string& path);

// Evaluates every variant of `s` with `engine`.
model::Report EvaluateScenario(const io::Scenario& s, Engine engine);

}  // namespace zerosim::cli
