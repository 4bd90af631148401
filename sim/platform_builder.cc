// Building a PlatformSpec's SimGrid 3.32 zones, links and routes (the platform of simgrid_platform.h's
// header: nodes as zones of GPU hosts with NVSwitch ports and rail NICs, under a star switch or a hierarchy
// of groups joined by aggregate uplinks). Zones come from the free functions sg4::create_*_zone (3.32; 4.x
// has NetZone::add_netzone_*), star routes take LinkInRoute lists.
#include "sim/platform_builder.h"

#include "model/placement/placement.h"

// version.h and xbt/log.h need s4u.hpp's declarations first.
// clang-format off
#include <simgrid/s4u.hpp>
// clang-format on

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace zerosim::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using Dir = sg4::LinkInRoute::Direction;

namespace {

// A zone's netpoint and the router through which its members reach the outside.
struct Attachment {
  NetPoint* netpoint = nullptr;
  NetPoint* gateway = nullptr;
};

class Builder {
 public:
  Builder(const PlatformSpec& spec, std::vector<sg4::Host*>* gpus, std::vector<LinkInfo>* links,
          std::unordered_map<const sg4::Link*, int>* index)
      : spec_(spec), gpus_(gpus), links_(links), index_(index) {}

  void Build() {
    sg4::NetZone* top = sg4::create_star_zone("fabric");
    const int top_level = static_cast<int>(spec_.levels.size());
    const int per_group = NodesPerGroup(top_level - 1);
    for (int first = 0; first < spec_.nodes; first += per_group) {
      // Mirrored (PlatformSpec::mirrored): the second top-level group takes the first's links, in the order
      // the first built them (the same construction, so the same order).
      recording_ = spec_.mirrored && first < spec_.nodes / 2;
      mirroring_ = spec_.mirrored && first >= spec_.nodes / 2;
      Attachment a = BuildGroup(top, top_level - 1, first);
      top->add_route(a.netpoint, nullptr, a.gateway, nullptr, UplinkOf(top, top_level - 1, first), true);
    }
    top->seal();
  }

 private:
  // Nodes under one group of `level` (-1: a node).
  int NodesPerGroup(int level) const {
    int n = 1;
    for (int l = 0; l <= level; ++l) n *= spec_.levels[static_cast<size_t>(l)].children;
    return n;
  }

  // Entry `i` of `factors`, or 1.
  static double FactorAt(const std::vector<double>& factors, int i) {
    return i >= 0 && static_cast<size_t>(i) < factors.size() ? factors[static_cast<size_t>(i)] : 1.0;
  }

  sg4::SplitDuplexLink* NewLink(sg4::NetZone* zone, const std::string& name, double bps, LinkTier tier) {
    if (mirroring_) return recorded_.at(next_recorded_++);
    sg4::SplitDuplexLink* l = zone->create_split_duplex_link(name, bps);
    if (recording_) recorded_.push_back(l);
    l->set_latency(0)->seal();
    for (bool up : {true, false}) {
      const sg4::Link* half = up ? l->get_link_up() : l->get_link_down();
      (*index_)[half] = static_cast<int>(links_->size());
      links_->push_back({tier, up, half->get_name()});
    }
    return l;
  }

  // The links from a group of `level` starting at node `first` to its parent zone `parent`: its aggregate
  // uplink, or nothing for a node (its NICs live inside the node zone).
  std::vector<sg4::LinkInRoute> UplinkOf(sg4::NetZone* parent, int level, int first) {
    if (level < 0) return {};
    const int group = first / NodesPerGroup(level);
    const std::string name = fmt::format("up{}-{}", level, group);
    double factor = 1;
    if (static_cast<size_t>(level) < spec_.uplink_factor.size()) {
      factor = FactorAt(spec_.uplink_factor[static_cast<size_t>(level)], group);
    }
    const double bps = spec_.levels[static_cast<size_t>(level)].uplink_Bps * factor;
    return {{NewLink(parent, name, bps, LinkTier::kUplink), Dir::UP}};
  }

  Attachment BuildGroup(sg4::NetZone* parent, int level, int first) {
    if (level < 0) return BuildNode(parent, first);
    sg4::NetZone* zone =
        sg4::create_star_zone(fmt::format("group{}-{}", level, first / NodesPerGroup(level)));
    zone->set_parent(parent);
    Attachment self;
    const int per_child = NodesPerGroup(level - 1);
    for (int c = 0; c < spec_.levels[static_cast<size_t>(level)].children; ++c) {
      const int child_first = first + c * per_child;
      Attachment a = BuildGroup(zone, level - 1, child_first);
      zone->add_route(a.netpoint, nullptr, a.gateway, nullptr, UplinkOf(zone, level - 1, child_first), true);
      // A router placed directly in a star zone cannot be routed to from a sub-zone in 3.32. A leaf's
      // gateway is therefore its first node's router (nodes join their leaf without links); above the
      // leaves, members join through their uplinks, so a member's router would put that member's uplink on
      // every route through the group: the group's gateway is the router of a zone of its own, joined
      // without links (its spine), which every member reaches through its own uplink.
      if (level == 0 && self.gateway == nullptr) self.gateway = a.gateway;
    }
    if (level > 0) {
      const std::string spine = fmt::format("spine{}-{}", level, first / NodesPerGroup(level));
      sg4::NetZone* z = sg4::create_full_zone(spine);
      z->set_parent(zone);
      self.gateway = z->create_router(spine + "-gw");
      z->seal();
      zone->add_route(z->get_netpoint(), nullptr, self.gateway, nullptr, {}, true);
    }
    zone->seal();
    self.netpoint = zone->get_netpoint();
    return self;
  }

  // A node: a full zone holding its GPUs, their links into the intra-node fabric (NVSwitch ports, PCIe links
  // with switch uplinks and a socket link, or mesh pair links: simgrid_platform.h), its NICs and its gateway.
  Attachment BuildNode(sg4::NetZone* parent, int node) {
    const int n = spec_.gpus_per_node;
    const std::string prefix = fmt::format("node{}", node);
    sg4::NetZone* zone = sg4::create_full_zone(prefix);
    zone->set_parent(parent);
    std::vector<sg4::Host*> hosts;
    std::vector<sg4::SplitDuplexLink*> ports;
    for (int g = 0; g < n; ++g) {
      sg4::Host* h = zone->create_host(fmt::format("{}-gpu{}", prefix, g),
                                       spec_.gpu_flops / FactorAt(spec_.node_slowdown, node));
      h->seal();
      hosts.push_back(h);
      (*gpus_)[static_cast<size_t>(node * n + g)] = h;
      // A mesh has no link per GPU: its pair links follow.
      if (spec_.fabric != NodeFabric::kMesh) {
        ports.push_back(
            NewLink(zone, fmt::format("{}-nvl{}", prefix, g), spec_.nvlink_Bps, LinkTier::kNvLink));
      }
    }
    std::vector<sg4::SplitDuplexLink*> nics;
    for (int r = 0; r < spec_.nics_per_node; ++r) {
      const double factor = FactorAt(spec_.nic_factor, node * spec_.nics_per_node + r);
      nics.push_back(
          NewLink(zone, fmt::format("{}-nic{}", prefix, r), spec_.nic_Bps * factor, LinkTier::kNic));
    }
    const auto netpoint = [&hosts](int g) { return hosts[static_cast<size_t>(g)]->get_netpoint(); };
    NetPoint* gateway = zone->create_router(prefix + "-gw");
    if (spec_.fabric == NodeFabric::kMesh) {
      AddMeshRoutes(zone, prefix, n, netpoint);
    } else if (spec_.fabric == NodeFabric::kPcie) {
      AddPcieRoutes(zone, prefix, ports, netpoint);
    } else {
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
          zone->add_route(netpoint(i), netpoint(j), nullptr, nullptr,
                          {{ports[static_cast<size_t>(i)], Dir::UP}, {ports[static_cast<size_t>(j)], Dir::DOWN}},
                          true);
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      // To the GPU's NIC: on a PCIe node through the GPU's own PCIe link (the NIC sits on its switch).
      const int rail = model::RailOf(i, n, spec_.nics_per_node);
      std::vector<sg4::LinkInRoute> out;
      if (spec_.fabric == NodeFabric::kPcie) out.emplace_back(ports[static_cast<size_t>(i)], Dir::UP);
      out.emplace_back(nics[static_cast<size_t>(rail)], Dir::UP);
      zone->add_route(netpoint(i), gateway, nullptr, nullptr, out, true);
    }
    zone->seal();
    return {zone->get_netpoint(), gateway};
  }

  // An NVLink mesh: a link per ordered pair, whose up half carries i -> j (its own direction of the pair's
  // NVLinks), so that every flow's intra-node bytes count once on an up half (LinkTier::kNvLink).
  template <typename Netpoint>
  void AddMeshRoutes(sg4::NetZone* zone, const std::string& prefix, int n, const Netpoint& netpoint) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i == j) continue;
        sg4::SplitDuplexLink* l =
            NewLink(zone, fmt::format("{}-nvl{}-{}", prefix, i, j), spec_.nvlink_Bps, LinkTier::kNvLink);
        zone->add_route(netpoint(i), netpoint(j), nullptr, nullptr, {{l, Dir::UP}}, false);
      }
    }
  }

  // A PCIe node: GPU i's link up, then (another switch) its switch's uplink up, (another socket) the socket
  // link, the peer switch's uplink down, the peer's link down. Switches and sockets in GPU order.
  template <typename Netpoint>
  void AddPcieRoutes(sg4::NetZone* zone, const std::string& prefix, const std::vector<sg4::SplitDuplexLink*>& ports,
                     const Netpoint& netpoint) {
    const int n = spec_.gpus_per_node;
    const int per_switch = spec_.gpus_per_switch;
    const int switches = n / per_switch;
    std::vector<sg4::SplitDuplexLink*> uplinks;
    for (int s = 0; s < switches; ++s) {
      uplinks.push_back(
          NewLink(zone, fmt::format("{}-pcisw{}", prefix, s), spec_.switch_uplink_Bps, LinkTier::kHost));
    }
    sg4::SplitDuplexLink* socket_link =
        spec_.sockets > 1 ? NewLink(zone, prefix + "-socket", spec_.socket_link_Bps, LinkTier::kHost) : nullptr;
    const int switches_per_socket = switches / spec_.sockets;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const int si = i / per_switch;
        const int sj = j / per_switch;
        std::vector<sg4::LinkInRoute> route = {{ports[static_cast<size_t>(i)], Dir::UP}};
        if (si != sj) {
          route.emplace_back(uplinks[static_cast<size_t>(si)], Dir::UP);
          // Socket 0 to socket 1 is the link's up direction (i < j: i's socket is the lower).
          if (si / switches_per_socket != sj / switches_per_socket) route.emplace_back(socket_link, Dir::UP);
          route.emplace_back(uplinks[static_cast<size_t>(sj)], Dir::DOWN);
        }
        route.emplace_back(ports[static_cast<size_t>(j)], Dir::DOWN);
        zone->add_route(netpoint(i), netpoint(j), nullptr, nullptr, route, true);
      }
    }
  }

  const PlatformSpec& spec_;
  bool recording_ = false;  // building the first half of a mirrored platform: keep its links in order
  bool mirroring_ = false;  // building the second half: reuse them in that order
  std::vector<sg4::SplitDuplexLink*> recorded_;
  size_t next_recorded_ = 0;
  std::vector<sg4::Host*>* gpus_;
  std::vector<LinkInfo>* links_;
  std::unordered_map<const sg4::Link*, int>* index_;
};

}  // namespace

void BuildPlatform(const PlatformSpec& spec, std::vector<simgrid::s4u::Host*>* gpus,
                   std::vector<LinkInfo>* links, std::unordered_map<const simgrid::s4u::Link*, int>* index) {
  Builder(spec, gpus, links, index).Build();
}

}  // namespace zerosim::sim
