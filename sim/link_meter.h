// What the platform's links carried (Platform::CarriedBytes): bytes of link capacity per tracked link,
// measured one of two ways. Tracked are the egress halves of the NIC and NVSwitch-port links (LinkInfo::up
// of LinkTier::kNic and kNvLink); every other link reads 0.
//  - The meter (the default): when a transfer's network action leaves STARTED (finished, failed or
//    cancelled; Action::finish sets its remains first), each tracked link of the transfer's route is charged
//    what SimGrid moved of it (the action's cost less what remains, in payload bytes) over the transfer's
//    bandwidth factor, as the link's load counts it. Exact at any rate change, and no route computation
//    beyond the platform's cached routes. A second job's streams (Platform::AddBackgroundFlow) are not
//    registered, so they are not counted.
//  - SimGrid's link-load plugin (PlatformSpec::link_load_plugin; src/plugins/link_load.cpp): the reference
//    the meter is tested against. It recomputes each comm's route at its start and its completion
//    (CommImpl::get_traversed_links, a full route_to: a fifth of the run on a large fat tree) and integrates
//    a link's usage only at those instants, each interval at the usage read at its end, so it errs where a
//    flow's rate changes in between (a flow elsewhere ending): 0.6% more than the flows' bytes on the
//    three-level fat tree of 256 nodes per pod. It counts every comm on the link, a second job's included.
// The SimGrid side of the meter (the plugin's calls, the state-change signal) lives in link_meter.cc; this
// header names SimGrid's types by forward declaration only.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "sim/simgrid_platform.h"

namespace simgrid::kernel::resource {
class Action;
}  // namespace simgrid::kernel::resource
namespace simgrid::s4u {
class Link;
}  // namespace simgrid::s4u

namespace zerosim::sim {

class LinkMeter {
 public:
  // Measures with SimGrid's link-load plugin (`plugin`) or with the meter. With the plugin, starts it: call
  // after SimGrid's engine exists and before any link does (sg_link_load_plugin_init's precondition).
  explicit LinkMeter(bool plugin);
  LinkMeter(const LinkMeter&) = delete;
  LinkMeter& operator=(const LinkMeter&) = delete;

  // Tracks the NIC and NVSwitch-port egress halves among `links` (by index), whose SimGrid links are
  // `by_index` (same indices). With the meter, subscribes to SimGrid's communication state changes: the
  // meter must then outlive the simulation's run. Call once, after the platform is built.
  void Track(const std::vector<LinkInfo>& links, const std::vector<const simgrid::s4u::Link*>& by_index);

  // Whether Started must be told of each transfer's network action (the meter; the plugin finds comms
  // itself).
  bool wants_actions() const { return !plugin_; }

  // With the meter: a transfer's network action `action` has started over `route` (link indices; the caller
  // keeps the vector alive until the run ends) at bandwidth factor `factor`. Call at the instant it started,
  // from inside the simulation.
  void Started(const simgrid::kernel::resource::Action* action, const std::vector<int>* route, double factor);

  // Bytes of capacity link `link` has carried so far (0 for an untracked link).
  double CarriedBytes(int link) const;

  // Transfers told to Started and not yet seen leaving STARTED. After a run, anything but 0 is a bug.
  size_t unfinished() const { return in_flight_.size(); }

 private:
  // A running transfer: its network action, its route, its bandwidth factor.
  struct Running {
    const simgrid::kernel::resource::Action* action = nullptr;
    const std::vector<int>* route = nullptr;
    double factor = 1;
  };

  // The action of `r` has left STARTED: charges its route's tracked links.
  void Finished(const Running& r);

  bool plugin_ = false;
  std::vector<bool> tracked_;                        // by link index
  std::vector<const simgrid::s4u::Link*> by_index_;  // the plugin's links, by index
  std::vector<double> carried_;                      // the meter: capacity bytes by link index
  // The running transfers by the address of their network action, until it leaves STARTED.
  std::unordered_map<const void*, Running> in_flight_;
};

}  // namespace zerosim::sim
