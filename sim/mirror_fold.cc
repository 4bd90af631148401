#include "sim/mirror_fold.h"

#include <algorithm>
#include <tuple>

namespace zerosim::sim {

int MirrorOf(int gpu, const Layout& l) {
  const int half = l.sim_gpus() / 2;
  return (gpu + half) % l.sim_gpus();
}

bool FlowsMirrorSymmetric(const std::vector<Flow>& flows, const Layout& l) {
  const int half = l.sim_gpus() / 2;
  using Key = std::tuple<int, int, double>;
  std::vector<Key> mirrored;
  std::vector<Key> second;
  for (const Flow& f : flows) {
    if (f.src < half) {
      mirrored.emplace_back(MirrorOf(f.src, l), MirrorOf(f.dst, l), f.bytes);
    } else {
      second.emplace_back(f.src, f.dst, f.bytes);
    }
  }
  std::sort(mirrored.begin(), mirrored.end());
  std::sort(second.begin(), second.end());
  return mirrored == second;
}

}  // namespace zerosim::sim
