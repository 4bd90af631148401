// The [perturbations] section of a scenario: departures from a uniform cluster that the sim engine
// replays (model::Perturbations): slow nodes, degraded links, a second job's traffic. Keys: docs/inputs.md.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "model/cluster_spec.h"
#include "model/io/table_reader.h"
#include "model/perturbations.h"
#include "model/status.h"

namespace zerosim::io {

// Reads `doc`'s optional [perturbations] table (marking it known in `root`) against cluster `c`: node,
// rail and fabric group indices must exist, slowdowns be positive, bandwidth factors in (0, 1], rates
// positive. Errors go to `status` with file, line and key.
model::Perturbations ReadPerturbations(TableReader* root, const toml::table& doc, const std::string& path,
                                     const model::ClusterSpec& c, Status* status);

}  // namespace zerosim::io
