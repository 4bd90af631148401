// The [perturbations] section of a scenario: departures from a uniform cluster that the sim engine
// replays (model::Perturbations): slow nodes, degraded links, a second job's traffic. Keys: docs/inputs.md.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "model/io/table_reader.h"
#include "model/spec/perturbations.h"
#include "model/status.h"

namespace zerosim::io {

// Reads `doc`'s optional [perturbations] table (marking it known in `root`): indices non-negative,
// slowdowns positive, bandwidth factors in (0, 1], rates positive, known link kinds. Errors go to `status`
// with file, line and key. Whether the nodes, NICs, GPUs and fabric groups named exist is a question about
// the cluster the scenario runs on (after `--set nodes=`, a sweep's topology): model::CheckPerturbations,
// part of model::Validate, which the scenario loader reports at the entry's line.
model::Perturbations ReadPerturbations(TableReader* root, const toml::table& doc, const std::string& path,
                                       Status* status);

}  // namespace zerosim::io
