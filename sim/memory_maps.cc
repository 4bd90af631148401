#include "sim/memory_maps.h"

#include <fstream>

#include <fmt/format.h>

namespace zerosim::sim {

long ReadMaxMapCount() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long v = 0;
  return (in >> v) ? v : 0;
}

Status CheckMemoryMaps(int actors, long max_map_count) {
  // Each SimGrid actor runs on its own mmap'ed stack with an mprotect'ed guard page (SimGrid 3.32
  // src/kernel/context/Context.cpp / SwappedContext.cpp: "Failed to protect stack" when mprotect fails): about
  // two memory maps an actor, and the process keeps its own (libraries, heap) beside them.
  constexpr long kMapsPerActor = 2;
  constexpr long kProcessMaps = 2000;
  const long needed = kMapsPerActor * actors + kProcessMaps;
  if (max_map_count <= 0 || needed <= max_map_count) return Status();
  return Status::Error(fmt::format(
      "the replay needs {} SimGrid actors, about {} memory maps, and this machine allows {} (vm.max_map_count): "
      "raise it (sudo sysctl -w vm.max_map_count={}) or replay fewer ranks (--reduction classes or symmetric "
      "give every rank's result; tests/sim/rank_class_test.cc)",
      actors, needed, max_map_count, 2 * needed));
}

}  // namespace zerosim::sim
