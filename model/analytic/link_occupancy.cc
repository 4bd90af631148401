#include "model/analytic/link_occupancy.h"

#include <algorithm>
#include <limits>

namespace zerosim::model {

double LinkOccupancy::ReserveOn(std::vector<std::pair<double, double>>& busy, double start_s,
                                double demand_s) {
  if (!(demand_s > 0)) return start_s;
  // The first interval still busy at start_s (or later).
  auto first = std::partition_point(busy.begin(), busy.end(),
                                    [&](const std::pair<double, double>& iv) { return iv.second < start_s; });
  size_t i = static_cast<size_t>(first - busy.begin());
  size_t from = i;
  double begin = start_s;
  if (from > 0 && busy[from - 1].second >= start_s) {  // ends exactly at start_s: merge with it
    --from;
    begin = busy[from].first;
  }
  if (i < busy.size() && busy[i].first <= start_s) begin = std::min(begin, busy[i].first);
  double t = start_s;
  double remaining = demand_s;
  while (remaining > 0) {
    if (i < busy.size() && busy[i].first <= t) {  // busy: wait for its end
      t = std::max(t, busy[i].second);
      ++i;
      continue;
    }
    const double gap_end = i < busy.size() ? busy[i].first : std::numeric_limits<double>::infinity();
    if (gap_end - t >= remaining) {
      t += remaining;
      remaining = 0;
    } else {
      remaining -= gap_end - t;
      t = gap_end;
    }
  }
  const double served = t;
  double end = t;
  if (i < busy.size() && busy[i].first <= t) {  // the next interval starts where this one ends: merge
    end = std::max(end, busy[i].second);
    ++i;
  }
  busy.erase(busy.begin() + static_cast<std::ptrdiff_t>(from), busy.begin() + static_cast<std::ptrdiff_t>(i));
  busy.insert(busy.begin() + static_cast<std::ptrdiff_t>(from), {begin, end});
  return served;
}

double LinkOccupancy::Reserve(double start_s, const Demand& demand) {
  double done = start_s;
  for (int k = 0; k < kNumTrafficTiers; ++k)
    done = std::max(done, ReserveOn(busy_[static_cast<size_t>(k)], start_s, demand[static_cast<size_t>(k)]));
  return done;
}

double LinkOccupancy::BusySeconds(TrafficTier tier) const {
  double sum = 0;
  for (const auto& [b, e] : busy_[static_cast<size_t>(tier)]) sum += e - b;
  return sum;
}

LinkOccupancy::Demand CollectiveLinkDemand(const Traffic& t, const ClusterSpec& c,
                                           const CollectiveTime& time) {
  // The protocol's factor as the replay applies it (sim/replay.cc: wire bytes = bytes / factor).
  const double factor = time.params.bandwidth_factor > 0 ? time.params.bandwidth_factor : 1.0;
  LinkOccupancy::Demand d{};
  auto term = [&](double bytes, double link_Bps, double efficiency) {
    if (!(bytes > 0) || !(link_Bps > 0)) return 0.0;
    return std::min(time.seconds, bytes / (link_Bps * efficiency * factor));
  };
  d[static_cast<size_t>(TrafficTier::kNic)] =
      term(t.max_node_nic_bytes, c.node_nic_Bps(), c.nccl.inter_bandwidth_efficiency);
  d[static_cast<size_t>(TrafficTier::kGpuPort)] =
      term(t.max_gpu_port_bytes, c.intra.bandwidth_Bps, c.nccl.intra_bandwidth_efficiency);
  d[static_cast<size_t>(TrafficTier::kLeafUplink)] =
      term(t.max_leaf_uplink_bytes, LeafUplinkBps(c), c.nccl.inter_bandwidth_efficiency);
  return d;
}

}  // namespace zerosim::model
