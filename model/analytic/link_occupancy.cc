#include "model/analytic/link_occupancy.h"

#include <algorithm>
#include <limits>

namespace zerosim::model {

namespace {

// Books `demand_s` of the tier's idle time from `start_s` on, first come first served; returns when it has
// been served.
double ServeInIdleTime(std::vector<std::pair<double, double>>& busy, double start_s, double demand_s) {
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

// Marks [begin, end) busy, merged with the intervals it overlaps or touches.
void MarkBusy(std::vector<std::pair<double, double>>& busy, double begin, double end) {
  auto first = std::partition_point(busy.begin(), busy.end(),
                                    [&](const std::pair<double, double>& iv) { return iv.second < begin; });
  auto last = first;
  while (last != busy.end() && last->first <= end) {
    begin = std::min(begin, last->first);
    end = std::max(end, last->second);
    ++last;
  }
  first = busy.erase(first, last);
  busy.insert(first, {begin, end});
}

}  // namespace

double LinkOccupancy::ReserveOn(int tier, double start_s, double demand_s, int owner,
                                std::vector<Delayed>* delayed) {
  if (!(demand_s > 0)) return start_s;
  std::vector<std::pair<double, double>>& busy = busy_[static_cast<size_t>(tier)];
  std::vector<Booking>& bookings = bookings_[static_cast<size_t>(tier)];
  // The bookings still running at start_s, and where each begins and ends from then on.
  std::vector<Booking> running;
  std::vector<std::pair<double, int>> events;
  for (const Booking& b : bookings) {
    if (b.end_s <= start_s) continue;  // finished before this one starts: it cannot be slowed any more
    running.push_back(b);
    events.push_back({std::max(b.begin_s, start_s), +1});
    events.push_back({b.end_s, -1});
  }
  std::sort(events.begin(), events.end());
  // Walk the tier from start_s in segments of constant state: idle (full rate), or busy with k >= 1 flows
  // (1/(k + 1); busy time no running booking accounts for, bytes given up before, counts as one flow).
  struct Shared {
    double begin_s, end_s, taken_s;  // a busy segment, and the link time this collective took of it
    int k;                           // flows it shared it with
  };
  std::vector<Shared> shared;
  double taken = 0;
  size_t i = static_cast<size_t>(
      std::partition_point(busy.begin(), busy.end(),
                           [&](const std::pair<double, double>& iv) { return iv.second <= start_s; }) -
      busy.begin());
  size_t e = 0;
  int k = 0;
  double t = start_s;
  double remaining = demand_s;
  while (remaining > 0) {
    while (e < events.size() && events[e].first <= t) k += events[e++].second;
    while (i < busy.size() && busy[i].second <= t) ++i;
    const bool in_busy = i < busy.size() && busy[i].first <= t;
    double next = std::numeric_limits<double>::infinity();
    if (i < busy.size()) next = in_busy ? busy[i].second : busy[i].first;
    if (e < events.size()) next = std::min(next, events[e].first);
    const int flows = std::max(1, k);
    const double rate = in_busy ? 1.0 / (flows + 1) : 1.0;
    const double take = std::min(remaining, (next - t) * rate);
    const double until = take < remaining ? next : t + take / rate;
    if (in_busy) {
      shared.push_back({t, until, take, flows});
      taken += take;
    }
    remaining -= take;
    t = until;
  }
  const double served = t;
  // The tier carries this collective's idle-time part now and, in its next idle time, the link time the
  // others gave up (`taken`): every demand booked in full.
  MarkBusy(busy, start_s, served);
  ServeInIdleTime(busy, served, taken);
  // Each of the k flows of a shared segment gives up taken / k of it (its 1/k of the link became
  // 1/(k + 1)) and finishes later by as much.
  for (Booking& b : running) {
    double delay = 0;
    for (const Shared& g : shared) {
      const double overlap = std::min(b.end_s, g.end_s) - std::max(b.begin_s, g.begin_s);
      if (overlap > 0 && g.end_s > g.begin_s) delay += g.taken_s * overlap / (g.end_s - g.begin_s) / g.k;
    }
    if (!(delay > 0)) continue;
    b.end_s += delay;
    if (delayed != nullptr) delayed->push_back({b.owner, b.end_s});
  }
  running.push_back({owner, start_s, served});
  bookings = std::move(running);
  return served;
}

double LinkOccupancy::Reserve(double start_s, const Demand& demand, int owner,
                              std::vector<Delayed>* delayed) {
  double done = start_s;
  for (int k = 0; k < kNumTrafficTiers; ++k)
    done = std::max(done, ReserveOn(k, start_s, demand[static_cast<size_t>(k)], owner, delayed));
  return done;
}

double LinkOccupancy::LastBusyEnd() const {
  double end = 0;
  for (const auto& tier : busy_) {
    if (!tier.empty()) end = std::max(end, tier.back().second);
  }
  return end;
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
