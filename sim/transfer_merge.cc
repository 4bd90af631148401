#include "sim/transfer_merge.h"

#include <unordered_map>
#include <utility>

namespace zerosim::sim {

namespace {

// FNV-1a over the wire bytes and the route's link indices.
uint64_t Key(uint64_t wire_bytes, const std::vector<int>& route) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  mix(wire_bytes);
  for (int link : route) mix(static_cast<uint64_t>(static_cast<uint32_t>(link)));
  return h;
}

}  // namespace

int64_t MergeIdenticalTransfers(std::vector<Transfer>* transfers,
                                const std::vector<const std::vector<int>*>& routes) {
  if (transfers->size() < 2) return 0;
  // Per key, the merged transfers holding it (index into `merged`); equal keys are checked link by link.
  std::unordered_map<uint64_t, std::vector<size_t>> by_key;
  by_key.reserve(transfers->size());
  std::vector<Transfer> merged;
  std::vector<const std::vector<int>*> merged_routes;
  merged.reserve(transfers->size());
  int64_t folded = 0;
  for (size_t i = 0; i < transfers->size(); ++i) {
    const Transfer& t = (*transfers)[i];
    std::vector<size_t>& same_key = by_key[Key(t.wire_bytes, *routes[i])];
    bool joined = false;
    for (size_t m : same_key) {
      if (merged[m].wire_bytes != t.wire_bytes || *merged_routes[m] != *routes[i]) continue;
      merged[m].count += t.count;
      folded += t.count;
      joined = true;
      break;
    }
    if (joined) continue;
    same_key.push_back(merged.size());
    merged.push_back(t);
    merged_routes.push_back(routes[i]);
  }
  *transfers = std::move(merged);
  return folded;
}

}  // namespace zerosim::sim
