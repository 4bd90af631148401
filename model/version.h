// ZeroSim's version for provenance: the project version and `git describe` of the build's source tree.
#pragma once

namespace zerosim {

// E.g. "0.1.0+a1b2c3d-dirty". Generated at build time (cmake/version.cmake).
const char* Version();

}  // namespace zerosim
