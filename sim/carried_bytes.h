// The bytes-conservation check of a replay: what SimGrid's links carried (Platform::CarriedBytes, measured
// by the platform's link meter or SimGrid's link-load plugin, link_meter.h) against what the schedule's
// flows planned for them (SimStats::*_capacity_bytes_planned, summed by the replay as it hands flows to
// SimGrid). A lost or doubled flow shows as a mismatch.
#pragma once

#include "model/status.h"
#include "sim/sim_options.h"
#include "sim/sim_result.h"
#include "sim/simgrid_platform.h"

namespace zerosim::sim {

// Adds the capacity bytes every NIC and NVSwitch-port link of `platform` carried to `stats`
// (nic_capacity_bytes_measured, nvlink_capacity_bytes_measured). Call after the run.
void AddCarriedBytes(const Platform& platform, SimStats* stats);

// Error unless each tier's measured capacity bytes in `stats` equal the planned ones within
// 1e-3 * max(1, planned). Checked only for the job alone under ZeroSim's own SimGrid settings:
// with a second job's streams (o.perturbations.background) or user settings (o.simgrid_cfg) it passes.
Status CheckBytesConserved(const SimStats& stats, const SimOptions& o);

}  // namespace zerosim::sim
