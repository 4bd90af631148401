// Every SimGrid 3.32 call of ZeroSim (see the header). Written against the 3.32 API: zones are created by
// the free functions sg4::create_*_zone (NetZone::add_netzone_* in 4.x), star routes take LinkInRoute
// lists, and host-to-host transfers are Comm::sendto_async.
#include "sim/simgrid_platform.h"

#include "sim/link_meter.h"
#include "sim/platform_builder.h"

// version.h and xbt/log.h need s4u.hpp's declarations first.
// clang-format off
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/simix.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>
// clang-format on

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace zerosim::sim {

namespace sg4 = simgrid::s4u;
using Dir = sg4::LinkInRoute::Direction;

namespace {

constexpr const char* kNetworkConfig = "network/model:CM02, network/crosstraffic:0, network/TCP-gamma:0";

bool engine_created = false;

}  // namespace

struct Signal::Impl {
  sg4::SemaphorePtr semaphore = sg4::Semaphore::create(0);
};

Signal::Signal() : impl_(std::make_unique<Impl>()) {}
Signal::~Signal() = default;
void Signal::Wait() { impl_->semaphore->acquire(); }
void Signal::Notify() { impl_->semaphore->release(); }

struct Platform::Impl {
  // What the links carried (link_meter.h): created after the engine, before the links; declared first so
  // that it outlives the engine, whose signal it subscribes to.
  std::unique_ptr<LinkMeter> meter;
  std::unique_ptr<sg4::Engine> engine;
  std::vector<sg4::Host*> gpus;
  std::unordered_map<const sg4::Link*, int> link_index;
  std::unordered_map<uint64_t, std::vector<int>> routes;
  std::unordered_map<int, std::vector<sg4::ExecPtr>> loads;
  int next_load = 0;
  // The network model as a resource model: the set of its running actions (Transfer::count).
  simgrid::kernel::resource::Model* network = nullptr;
  // TransferAll's callers waiting for their transfers: per call, the transfers still running and the
  // semaphore it waits on; per running transfer's network action, its call's.
  struct Pending {
    size_t running = 0;
    sg4::SemaphorePtr arrived = sg4::Semaphore::create(0);
  };
  std::unordered_map<const void*, Pending*> awaited;
};

Platform::Platform(const PlatformSpec& spec) : spec_(spec), impl_(std::make_unique<Impl>()) {}
Platform::~Platform() = default;

StatusOr<std::unique_ptr<Platform>> Platform::Create(const PlatformSpec& spec) {
  if (engine_created) {
    return Status::Error("SimGrid's engine was already created in this process (one simulation per process)");
  }
  if (spec.nodes <= 0 || spec.gpus_per_node <= 0 || spec.nics_per_node <= 0 || spec.gpu_flops <= 0 ||
      spec.nvlink_Bps <= 0 || spec.nic_Bps <= 0) {
    return Status::Error("platform: nodes, GPUs, NICs, speeds and bandwidths must be positive");
  }
  if (spec.fabric == NodeFabric::kPcie) {
    const int per = spec.gpus_per_switch;
    const int switches = per > 0 ? spec.gpus_per_node / per : 0;
    if (per <= 0 || spec.gpus_per_node % per != 0 || !(spec.switch_uplink_Bps > 0) || spec.sockets < 1 ||
        spec.sockets > 2 || switches % spec.sockets != 0 || (spec.sockets > 1 && !(spec.socket_link_Bps > 0))) {
      return Status::Error(
          "platform: a PCIe node needs switches of equal GPUs over 1 or 2 sockets, with positive uplinks and "
          "socket link");
    }
  }
  int per_top_group = 1;
  for (const FabricLevel& l : spec.levels) {
    if (l.children <= 0 || l.uplink_Bps <= 0)
      return Status::Error("platform: fabric levels need children and uplinks");
    per_top_group *= l.children;
  }
  for (const std::vector<double>* factors : {&spec.node_slowdown, &spec.nic_factor}) {
    for (double f : *factors) {
      if (!(f > 0)) return Status::Error("platform: slowdowns and bandwidth factors must be positive");
    }
  }
  for (const std::vector<double>& level : spec.uplink_factor) {
    for (double f : level) {
      if (!(f > 0)) return Status::Error("platform: bandwidth factors must be positive");
    }
  }
  if (spec.mirrored && (spec.nodes != 2 * per_top_group || !spec.node_slowdown.empty() ||
                        !spec.nic_factor.empty() || !spec.uplink_factor.empty())) {
    return Status::Error("platform: a mirrored platform is two top-level groups without perturbations");
  }
  if (spec.nodes % per_top_group != 0) {
    return Status::Error(
        fmt::format("platform: {} nodes do not fill groups of {} nodes", spec.nodes, per_top_group));
  }
  engine_created = true;
  std::unique_ptr<Platform> p(new Platform(spec));
  xbt_log_control_set("root.thres:critical");
  static char arg0[] = "zerosim";
  static char* argv[] = {arg0, nullptr};
  int argc = 1;
  p->impl_->engine = std::make_unique<sg4::Engine>(&argc, argv);
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config(fmt::format("contexts/stack-size:{}", spec.actor_stack_kib));
  // The user's settings last, so they override ZeroSim's (docs: README "--cfg"). SimGrid reports an unknown
  // key or a bad value by throwing (xbt/config.cpp); a bad log setting is ignored with a warning.
  for (const std::string& c : spec.simgrid_cfg) {
    try {
      sg4::Engine::set_config(c);
    } catch (const std::exception& e) {
      // SimGrid's message goes on to list every key; its first line says what is wrong.
      const std::string what = e.what();
      return Status::Error(fmt::format("--cfg {}: SimGrid refuses it: {} (see SimGrid's --help-cfg)", c,
                                       what.substr(0, what.find('\n'))));
    }
  }
  for (const std::string& l : spec.simgrid_log) xbt_log_control_set(l.c_str());

  // The link-load plugin, where it measures, must start before any link exists (link_meter.h).
  p->impl_->meter = std::make_unique<LinkMeter>(spec.link_load_plugin);
  p->impl_->gpus.resize(static_cast<size_t>(spec.nodes * spec.gpus_per_node));
  BuildPlatform(spec, &p->impl_->gpus, &p->links_, &p->impl_->link_index);
  std::vector<const sg4::Link*> link_by_index(p->links_.size());
  for (const auto& [link, index] : p->impl_->link_index) link_by_index[static_cast<size_t>(index)] = link;
  p->impl_->meter->Track(p->links_, link_by_index);

  // A transfer's network action left STARTED (TransferAll): its caller wakes when the last of its call's
  // has. In maestro, where Semaphore::release runs at once (simix.hpp: simcall_answered's fast path).
  Impl* waits = p->impl_.get();
  sg4::Link::on_communication_state_change_cb([waits](simgrid::kernel::resource::NetworkAction& action,
                                                      simgrid::kernel::resource::Action::State prev) {
    if (prev != simgrid::kernel::resource::Action::State::STARTED) return;
    auto it = waits->awaited.find(static_cast<const void*>(&action));
    if (it == waits->awaited.end()) return;
    Impl::Pending* pending = it->second;
    waits->awaited.erase(it);
    if (--pending->running == 0) pending->arrived->release();
  });

  const double intra = spec.intra_efficiency;
  const double inter = spec.inter_efficiency;
  p->impl_->engine->get_netzone_root()->get_network_model()->set_bw_factor_cb(
      [intra, inter](double, const sg4::Host* src, const sg4::Host* dst, const std::vector<sg4::Link*>&,
                     const std::unordered_set<sg4::NetZone*>&) {
        return src->get_englobing_zone() == dst->get_englobing_zone() ? intra : inter;
      });
  // SimGrid 3.32's NetworkCm02Model is both the NetworkModelIntf the zone hands out and a resource Model.
  p->impl_->network = dynamic_cast<simgrid::kernel::resource::Model*>(
      p->impl_->engine->get_netzone_root()->get_network_model());
  if (p->impl_->network == nullptr) return Status::Error("platform: SimGrid's network model is not a Model");
  return p;
}

double Platform::CarriedBytes(int link) const { return impl_->meter->CarriedBytes(link); }

double Platform::BandwidthFactor(int src, int dst) const {
  // The callback's test (same englobing zone) by index: each node's zone holds exactly its GPUs.
  return src / spec_.gpus_per_node == dst / spec_.gpus_per_node ? spec_.intra_efficiency
                                                                : spec_.inter_efficiency;
}

const std::vector<int>& Platform::Route(int src, int dst) {
  const uint64_t key = (static_cast<uint64_t>(src) << 32) | static_cast<uint32_t>(dst);
  auto it = impl_->routes.find(key);
  if (it != impl_->routes.end()) return it->second;
  std::vector<sg4::Link*> route;
  double latency = 0;
  impl_->gpus[static_cast<size_t>(src)]->route_to(impl_->gpus[static_cast<size_t>(dst)], route, &latency);
  std::vector<int> ids;
  ids.reserve(route.size());
  for (const sg4::Link* l : route) ids.push_back(impl_->link_index.at(l));
  return impl_->routes.emplace(key, std::move(ids)).first->second;
}

void Platform::Spawn(const std::string& name, int gpu, std::function<void()> body) {
  sg4::Actor::create(name, impl_->gpus[static_cast<size_t>(gpu)], std::move(body));
}

StatusOr<double> Platform::Run() {
  impl_->engine->run();
  if (impl_->meter->unfinished() > 0) {
    return Status::Error(
        fmt::format("sim: {} transfers were never seen finishing by the link-load meter (a bug)",
                    impl_->meter->unfinished()));
  }
  return sg4::Engine::get_clock();
}

double Platform::Now() { return sg4::Engine::get_clock(); }

void Platform::Compute(double flops) { sg4::this_actor::execute(flops); }

void Platform::Delay(double seconds) { sg4::this_actor::sleep_for(seconds); }

namespace {

// Finds the network actions of the comms `comms` just started (the model's started set, from the back:
// Comm's start appends its action there, resource/Action.cpp: Action::Action; other actors' comms of the
// same instant may lie between them), and gives action i the max-min sharing penalty `penalties[i]` where
// it is not 1 (its share is 1 / penalty times that of a comm of penalty 1 on every link they share).
// SimGrid 3.32 has no s4u call for a comm's weight (Comm::set_rate is a bound, and ignored for host-to-host
// comms); the network action holds it (kernel::resource::Action::set_sharing_penalty, which updates its LMM
// variable). CM02 creates a zero-latency comm's variable with penalty 1 and never resets it
// (network_cm02.cpp: communicate, comm_action_set_variable), and the solver weighs each element by
// consumption / penalty and gives the variable min_usage / penalty (lmm/maxmin.cpp: solve), so k comms of
// one route are one comm of k times their bytes at penalty 1 / k. All of it in one simcall, at the instant
// the comms started (no solve has run since). Returns the actions, in the order of `comms`.
std::vector<simgrid::kernel::resource::Action*> FindActions(simgrid::kernel::resource::Model* network,
                                                            const std::vector<sg4::CommPtr>& comms,
                                                            const std::vector<double>& penalties) {
  std::vector<simgrid::kernel::resource::Action*> found(comms.size(), nullptr);
  simcall_run_answered(
      [&] {
        std::unordered_map<const void*, size_t> wanted;
        wanted.reserve(comms.size());
        for (size_t i = 0; i < comms.size(); ++i) wanted.emplace(comms[i]->get_impl(), i);
        auto* actions = network->get_started_action_set();
        for (auto it = actions->rbegin(); it != actions->rend() && !wanted.empty(); ++it) {
          auto w = wanted.find(it->get_activity());
          if (w == wanted.end()) continue;
          if (penalties[w->second] != 1.0) it->set_sharing_penalty(penalties[w->second]);
          found[w->second] = &*it;
          wanted.erase(w);
        }
      },
      nullptr);
  for (const auto* a : found)
    xbt_assert(a != nullptr, "zerosim: a transfer's SimGrid action was not found among the running ones");
  return found;
}

}  // namespace

void Platform::TransferAll(const std::vector<Transfer>& transfers) {
  std::vector<sg4::CommPtr> comms;
  std::vector<double> penalties;
  std::vector<const Transfer*> started;
  comms.reserve(transfers.size());
  bool weighted = false;
  for (const Transfer& t : transfers) {
    if (t.wire_bytes == 0) continue;
    const int count = std::max(1, t.count);
    comms.push_back(sg4::Comm::sendto_async(impl_->gpus[static_cast<size_t>(t.src)],
                                            impl_->gpus[static_cast<size_t>(t.dst)],
                                            t.wire_bytes * static_cast<uint64_t>(count)));
    penalties.push_back(1.0 / count);
    started.push_back(&t);
    weighted = weighted || count > 1;
  }
  const bool wait_each = spec_.wait_each_transfer;
  std::vector<simgrid::kernel::resource::Action*> actions;
  if (!comms.empty() && (weighted || impl_->meter->wants_actions() || !wait_each)) {
    actions = FindActions(impl_->network, comms, penalties);
    if (impl_->meter->wants_actions()) {
      for (size_t i = 0; i < actions.size(); ++i) {
        const Transfer& t = *started[i];
        impl_->meter->Started(actions[i], &Route(t.src, t.dst), BandwidthFactor(t.src, t.dst));
      }
    }
  }
  if (wait_each || comms.empty()) {
    for (const sg4::CommPtr& c : comms) c->wait();
    return;
  }
  // One wake when the last transfer has arrived, not a wait per comm: each wait is a simcall, and its
  // completion scans the caller's own list of activities (CommImpl::finish, v3.32: issuer's
  // activities_.remove), which holds the NCCL load of every member GPU the caller started
  // (StartGpuLoad): one scan of the members per comm. The comms are detached (Comm::sendto_init), so
  // none needs a wait to be freed; no action can finish before the next solve, after this call.
  Impl::Pending pending;
  pending.running = actions.size();
  for (const auto* a : actions) impl_->awaited.emplace(static_cast<const void*>(a), &pending);
  pending.arrived->acquire();
}

namespace {

// A background load runs for at most this long at full speed; a collective never lasts that long.
constexpr double kLoadHorizonS = 1e4;
// The load's weight against other computations on its GPU: it gets its bound whenever it asks for it.
constexpr double kLoadPriority = 1e6;

}  // namespace

int Platform::StartGpuLoad(const std::vector<int>& gpus, double fraction) {
  std::vector<sg4::ExecPtr> execs;
  for (int g : gpus) {
    sg4::Host* host = impl_->gpus[static_cast<size_t>(g)];
    const double speed = host->get_speed();
    sg4::ExecPtr e = sg4::Exec::init();
    e->set_host(host)->set_flops_amount(speed * kLoadHorizonS)->set_bound(fraction * speed);
    e->set_priority(kLoadPriority)->start();
    execs.push_back(std::move(e));
  }
  const int handle = impl_->next_load++;
  impl_->loads.emplace(handle, std::move(execs));
  return handle;
}

std::vector<double> Platform::StopGpuLoad(int handle) {
  std::vector<double> seconds;
  auto it = impl_->loads.find(handle);
  if (it == impl_->loads.end()) return seconds;
  for (const sg4::ExecPtr& e : it->second) {
    const double speed = e->get_host()->get_speed();
    seconds.push_back((speed * kLoadHorizonS - e->get_remaining()) / speed);
    e->cancel();
  }
  impl_->loads.erase(it);
  return seconds;
}

void Platform::AddBackgroundFlow(int src, int dst, double rate_Bps) {
  // Mailbox comms between two daemon actors (Comm::set_rate is honoured for them in 3.32, not for
  // sendto); daemons are killed, and their comm cancelled, when the last replay actor returns.
  const int id = impl_->next_load++;
  sg4::Mailbox* box = sg4::Mailbox::by_name(fmt::format("background{}", id));
  static char payload = 0;
  constexpr uint64_t kEndless = uint64_t{1} << 62;
  sg4::Actor::create(fmt::format("bg{}-send", id), impl_->gpus[static_cast<size_t>(src)], [box, rate_Bps] {
    sg4::Actor::self()->daemonize();
    sg4::CommPtr c = box->put_init(&payload, kEndless);
    if (rate_Bps > 0) c->set_rate(rate_Bps);
    c->wait();
  });
  sg4::Actor::create(fmt::format("bg{}-recv", id), impl_->gpus[static_cast<size_t>(dst)], [box] {
    sg4::Actor::self()->daemonize();
    box->get<char>();
  });
}

std::string SimGridVersion() {
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  return fmt::format("{}.{}.{}", major, minor, patch);
}

const char* SimGridNetworkConfig() { return kNetworkConfig; }

}  // namespace zerosim::sim
