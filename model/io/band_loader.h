// The band table (model/report/band.h) as `zerosim validate --write-bands` writes it:
// kernels/calibration/bands.json, compiled into the binary (model/io/embedded.h) so every report carries its
// band wherever it runs.
//
//   {"format": "zerosim-bands-1", "about": "...", "derived_widening": 1.2, "min_points": 10,
//    "groups": [{"key": "A100 fsdp compute", "n": 34, "low": 0.91, "high": 1.08, "median": 0.99,
//                "sources": "..."}, ...]}
// `median` (default 1) and `min_points` (default 10) may be absent; a group's key may be a parent ("A100") or
// "" (every point).
#pragma once

#include <string>

#include "model/report/band.h"
#include "model/status.h"

namespace zerosim::io {

// Errors name `path` and the key.
StatusOr<model::BandTable> ParseBands(const std::string& text, const std::string& path);

// The table compiled into the binary (kernels/calibration/bands.json), parsed once.
const model::BandTable& ShippedBands();

// The table as JSON text (what --write-bands writes; ParseBands reads it back).
std::string BandsJson(const model::BandTable& table, const std::string& about);

}  // namespace zerosim::io
