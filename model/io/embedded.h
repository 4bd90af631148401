// Input files compiled into the binary (cmake/embed.cmake), so that `zerosim run` with no argument runs
// the default scenario anywhere. Keys are paths relative to the source tree.
#pragma once

#include <map>
#include <string>

namespace zerosim::io {

const std::map<std::string, std::string>& EmbeddedFiles();

// The scenario `zerosim run` runs when given none (a key of EmbeddedFiles()).
inline constexpr const char* kDefaultScenario = "scenarios/default.toml";

// The band table every report's band comes from (model/io/band_loader.h).
inline constexpr const char* kBandsFile = "kernels/calibration/bands.json";

}  // namespace zerosim::io
