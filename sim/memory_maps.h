// Whether this machine can hold a replay's SimGrid actors: each runs on its own mmap'ed stack with a guard
// page, so a replay of tens of thousands of actors (--reduction full at 8,192 GPUs) can exhaust vm.max_map_count
// and SimGrid aborts mid-run ("Failed to protect stack"). SimulateSchedule (replay.h) checks before it spawns.
#pragma once

#include "model/status.h"

namespace zerosim::sim {

// The memory maps a replay of `actors` SimGrid actors needs (a stack and its guard page each, and the process's
// own) against `max_map_count` (vm.max_map_count; 0: unknown, no check): an error saying what to do when it is
// short, instead of SimGrid's abort ("Failed to protect stack") mid-run. SimulateSchedule calls it.
Status CheckMemoryMaps(int actors, long max_map_count);
// /proc/sys/vm/max_map_count, 0 where unreadable.
long ReadMaxMapCount();

}  // namespace zerosim::sim
