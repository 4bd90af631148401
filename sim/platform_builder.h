// Building the SimGrid zones, links and routes of a PlatformSpec: internal to sim/, called by
// Platform::Create (simgrid_platform.cc) under the engine it created. Besides simgrid_platform.cc and
// link_meter.cc, the one file that calls SimGrid.
#pragma once

#include <unordered_map>
#include <vector>

#include "sim/simgrid_platform.h"

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace zerosim::sim {

// Creates the platform of `spec` under the current SimGrid engine: `gpus` gets a host per GPU (platform
// order), `links` every link with its tier, `index` each SimGrid link's position in `links`.
void BuildPlatform(const PlatformSpec& spec, std::vector<simgrid::s4u::Host*>* gpus,
                   std::vector<LinkInfo>* links, std::unordered_map<const simgrid::s4u::Link*, int>* index);

}  // namespace zerosim::sim
