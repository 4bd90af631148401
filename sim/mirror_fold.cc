#include "sim/mirror_fold.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

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

Status CheckMirrorSymmetricOnce(const model::CollectiveSpec& coll, const std::vector<Flow>& flows,
                                const Layout& l, std::vector<int>* checked) {
  const int key = static_cast<int>(coll.kind) * model::kNumGroupKinds + static_cast<int>(coll.group);
  if (std::find(checked->begin(), checked->end(), key) != checked->end()) return Status::Ok();
  if (!FlowsMirrorSymmetric(flows, l)) {
    return Status::Error(fmt::format(
        "sim: a {} over the {} group is not mirror-symmetric on the folded platform (a bug; --reduction "
        "classes avoids the fold)",
        model::CollectiveKindName(coll.kind), model::GroupKindName(coll.group)));
  }
  checked->push_back(key);
  return Status::Ok();
}

}  // namespace zerosim::sim
