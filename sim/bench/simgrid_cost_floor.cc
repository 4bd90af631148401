// What SimGrid 3.32 costs per activity when many actors run in lockstep: the floor under ZeroSim's full
// replay (sim/README.md, "The full replay"). A actors on A hosts (a ring of private links), each doing N
// steps of one kind; prints the CPU time (std::clock) per step. Built as build/sim/simgrid_cost_floor:
//   build/sim/simgrid_cost_floor 1024 1000 sleep; ... 1024 1000 exec; ... 1024 195 sendto; ... 1024 195
//   mailbox
// sleep: this_actor::sleep_for; exec: this_actor::execute; sendto: Comm::sendto_async + wait to the next
// host (detached: maestro's one list, A comms in flight); mailbox: put_async + wait to a mailbox whose
// permanent receiver is a daemon on the next host (the sender's own list), cleared every 64 comms.
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace sg4 = simgrid::s4u;

namespace {

// "h17" (a prefix and a number; built by appending: GCC 12 warns falsely on "h" + std::to_string(i)).
std::string Name(char prefix, int i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);
  if (argc < 4) return 2;
  const int actors = std::atoi(argv[1]);
  const int steps = std::atoi(argv[2]);
  const std::string kind = argv[3];
  sg4::NetZone* zone = sg4::create_full_zone("zone");
  std::vector<sg4::Host*> hosts;
  for (int i = 0; i < actors; ++i) hosts.push_back(zone->create_host(Name('h', i), 1e9)->seal());
  for (int i = 0; i < actors; ++i) {
    sg4::Link* l = zone->create_link(Name('l', i), 1e9)->set_latency(0)->seal();
    zone->add_route(hosts[i]->get_netpoint(), hosts[(i + 1) % actors]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(l)}, false);
  }
  zone->seal();
  std::vector<sg4::ActorPtr> receivers;
  for (int i = 0; i < actors; ++i) {
    receivers.push_back(sg4::Actor::create("rx", hosts[i], [] {
      sg4::Actor::self()->daemonize();
      sg4::Semaphore::create(0)->acquire();
    }));
  }
  static char payload = 0;
  for (int i = 0; i < actors; ++i) {
    sg4::Actor::create("a", hosts[i], [&, i] {
      sg4::Host* next = hosts[(i + 1) % actors];
      sg4::Mailbox* box = sg4::Mailbox::by_name(Name('b', i));
      box->set_receiver(receivers[(i + 1) % actors]);
      for (int k = 0; k < steps; ++k) {
        if (kind == "sleep") {
          sg4::this_actor::sleep_for(1e-6);
        } else if (kind == "exec") {
          sg4::this_actor::execute(1e3);
        } else if (kind == "sendto") {
          sg4::Comm::sendto_async(hosts[i], next, 1000)->wait();
        } else {
          box->put_async(&payload, 1000)->wait();
          if (k % 64 == 63) box->clear();
        }
      }
    });
  }
  const std::clock_t t0 = std::clock();
  e.run();
  const double s = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  std::printf("%s: %d actors x %d steps: %.2f s of CPU, %.3f us per step\n", kind.c_str(), actors, steps, s,
              s / (static_cast<double>(actors) * steps) * 1e6);
  return 0;
}
