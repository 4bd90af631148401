#include "model/placed_collectives.h"

#include "model/nccl_channels.h"

namespace zerosim::model {

std::vector<PlacedCollective> PlaceCollectives(const Schedule& s, const ClusterSpec& c) {
  std::vector<PlacedCollective> out;
  out.reserve(s.collective_classes.size());
  for (const CollectiveSpec& spec : s.collective_classes) {
    PlacedCollective p;
    p.ring = CollectiveTraffic(spec, c);
    p.time = EstimateScheduledCollective(spec, c);
    p.wire = WireTraffic(spec, p.time, c);
    p.tier = WireTierScale(spec, p.time, c);
    p.sm_share = CollectiveSmShare(spec, p.time, c);
    p.tuned = IsTunedAllReduce(spec, c);
    out.push_back(p);
  }
  return out;
}

TierVolumes WireVolumes(const Schedule& s, const ClusterSpec& c) {
  // The placement's bytes, then each tuned all-reduce's difference, op by op.
  TierVolumes v = SumTraffic(s, c);
  const std::vector<PlacedCollective> placed = PlaceCollectives(s, c);
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const PlacedCollective& k = placed[static_cast<size_t>(op.coll.collective_class)];
    if (!k.tuned) continue;
    const auto i = static_cast<size_t>(op.purpose);
    v.cross_node[i] += k.wire.cross_total_bytes - k.ring.cross_total_bytes;
    v.intra_node[i] += k.wire.intra_total_bytes - k.ring.intra_total_bytes;
  }
  return v;
}

}  // namespace zerosim::model
