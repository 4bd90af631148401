// The SimGrid 3.32 side of the link meter (see the header): the link-load plugin's calls and the
// subscription to network actions' state changes.
#include "sim/link_meter.h"

// xbt/log.h and the plugin need s4u.hpp's declarations first.
// clang-format off
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/plugins/load.h>
#include <simgrid/s4u.hpp>
// clang-format on

namespace zerosim::sim {

using simgrid::kernel::resource::Action;

LinkMeter::LinkMeter(bool plugin) : plugin_(plugin) {
  if (plugin_) sg_link_load_plugin_init();
}

void LinkMeter::Track(const std::vector<LinkInfo>& links,
                      const std::vector<const simgrid::s4u::Link*>& by_index) {
  by_index_ = by_index;
  tracked_.assign(links.size(), false);
  for (size_t i = 0; i < links.size(); ++i) {
    const LinkInfo& info = links[i];
    if (info.up && (info.tier == LinkTier::kNic || info.tier == LinkTier::kNvLink)) {
      if (plugin_) sg_link_load_track(by_index_[i]);
      tracked_[i] = true;
    }
  }
  if (plugin_) return;
  carried_.assign(links.size(), 0.0);
  // A network action leaving STARTED. The callback names it as a NetworkAction, whose definition 3.32 does
  // not install; it is known by its address, which is its Action base's (single inheritance), as Started
  // was told it. Other actions (a second job's stream) are not counted.
  simgrid::s4u::Link::on_communication_state_change_cb(
      [this](simgrid::kernel::resource::NetworkAction& action, Action::State prev) {
        if (prev != Action::State::STARTED) return;
        auto it = in_flight_.find(static_cast<const void*>(&action));
        if (it == in_flight_.end()) return;
        Finished(it->second);
        in_flight_.erase(it);
      });
}

void LinkMeter::Started(const Action* action, const std::vector<int>* route, double factor) {
  in_flight_.emplace(static_cast<const void*>(action), Running{action, route, factor});
}

double LinkMeter::CarriedBytes(int link) const {
  const auto i = static_cast<size_t>(link);
  if (!tracked_[i]) return 0.0;
  return plugin_ ? sg_link_get_cum_load(by_index_[i]) : carried_[i];
}

void LinkMeter::Finished(const Running& r) {
  const double moved = r.action->get_cost() - r.action->get_remains_no_update();
  for (int l : *r.route) {
    const auto i = static_cast<size_t>(l);
    if (tracked_[i]) carried_[i] += moved / r.factor;
  }
}

}  // namespace zerosim::sim
