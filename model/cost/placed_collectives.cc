#include "model/cost/placed_collectives.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/cost/nccl_channels.h"

namespace zerosim::model {

std::vector<PlacedCollective> PlaceCollectives(const Schedule& s, const ClusterSpec& c) {
  std::vector<PlacedCollective> out;
  out.reserve(s.collective_classes.size());
  const Placement placement(c, GridOf(s));  // the schedule's declared groups, once
  for (const CollectiveSpec& spec : s.collective_classes) {
    PlacedCollective p;
    p.ring = CollectiveTraffic(spec, placement);
    p.time = EstimateScheduledCollective(spec, placement);
    p.wire = WireTraffic(spec, p.time, placement);
    p.tier = WireTierScale(spec, p.time, placement);
    p.sm_share = CollectiveSmShare(spec, p.time, placement);
    p.tuned = IsTunedAllReduce(spec, c);
    out.push_back(p);
  }
  return out;
}

std::string ScheduleShapeMismatch(const Schedule& s, const ClusterSpec& c) {
  if (s.nodes == c.nodes && s.gpus_per_node == c.gpus_per_node) return "";
  return fmt::format("the schedule was built for {} nodes x {} GPUs, the cluster has {} x {}", s.nodes,
                     s.gpus_per_node, c.nodes, c.gpus_per_node);
}

TierVolumes WireVolumes(const Schedule& s, const ClusterSpec& c) {
  return WireVolumes(s, PlaceCollectives(s, c));
}

TierVolumes WireVolumes(const Schedule& s, const std::vector<PlacedCollective>& placed) {
  // The placement's bytes (SumTraffic's sum, in its order), then each tuned all-reduce's difference.
  // The collectives' classes and purposes in op order, read once from the ops (a few percent of them), so
  // that the two passes sum in op order without walking every op twice.
  std::vector<std::pair<int32_t, Purpose>> collectives;
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kCollective) collectives.emplace_back(op.coll.collective_class, op.purpose);
  }
  TierVolumes v;
  for (const auto& [cls, purpose] : collectives) {
    const Traffic& ring = placed[static_cast<size_t>(cls)].ring;
    const auto i = static_cast<size_t>(purpose);
    v.cross_node[i] += ring.cross_total_bytes;
    v.intra_node[i] += ring.intra_total_bytes;
  }
  for (const auto& [cls, purpose] : collectives) {
    const PlacedCollective& k = placed[static_cast<size_t>(cls)];
    if (!k.tuned) continue;
    const auto i = static_cast<size_t>(purpose);
    v.cross_node[i] += k.wire.cross_total_bytes - k.ring.cross_total_bytes;
    v.intra_node[i] += k.wire.intra_total_bytes - k.ring.intra_total_bytes;
  }
  return v;
}

}  // namespace zerosim::model
