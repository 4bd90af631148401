// The `[rlhf]` section of a scenario (docs/inputs.md): DeepSpeed-Chat's step-3 settings and the other three
// models, into model::RlhfSpec. Strict like every loader: unknown keys, bad values and settings ZeroSim does
// not model are errors naming file, line and key.
#pragma once

#include <optional>
#include <string>

#include "model/io/file_source.h"
#include "model/io/table_reader.h"
#include "model/spec/model_spec.h"
#include "model/spec/rlhf_spec.h"
#include "model/status.h"

namespace zerosim::io {

// Reads `[rlhf]` from `root` (the scenario's root table) when present; `actor` is the scenario's model with
// its training settings (the other models take its dtype and attention implementation; the reference model is
// the actor unless `reference_model` names another). A referenced model file that fails to load sets
// `status`.
std::optional<model::RlhfSpec> ReadRlhf(TableReader* root, const FileSource& fs, const std::string& path,
                                        const model::ModelSpec& actor, Status* status);

}  // namespace zerosim::io
