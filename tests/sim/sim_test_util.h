// Helpers for the SimGrid replay tests: hand-made schedules of a few collectives, and running them.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "model/analytic/analytic.h"
#include "model/cost/collective_time.h"
#include "model/cost/nccl_allreduce.h"
#include "model/placement/placement.h"
#include "model/placement/traffic.h"
#include "model/schedule/schedule.h"
#include "sim/isolation.h"
#include "sim/sim_options.h"
#include "sim/simgrid_platform.h"
#include "test_util.h"

namespace zerosim::testing {

// A collective op as OpEmitter makes one (its class is set by ScheduleOf).
inline model::Op CollectiveOp(const model::ClusterSpec& c, model::CollectiveKind kind, model::GroupKind group,
                              double buffer_bytes, int hpz = 1, model::Queue queue = model::Queue::kNcclDp) {
  model::Op op;
  op.kind = model::OpKind::kCollective;
  op.queue = queue;
  op.purpose = model::Purpose::kForwardAllGather;
  op.coll.kind = kind;
  op.coll.group = group;
  op.coll.group_size = model::GroupSize(group, model::GridOf(c, hpz));
  op.coll.buffer_bytes = buffer_bytes;
  return op;
}

// `c` with its nodes on a fat tree: leaves of `nodes_per_leaf` at `oversubscription`, and optionally pods
// of `leaves_per_pod` leaves at `pod_oversubscription`.
inline model::ClusterSpec FatTree(model::ClusterSpec c, int nodes_per_leaf, double oversubscription,
                                  int leaves_per_pod = 0, double pod_oversubscription = 1) {
  c.fabric.kind = model::FabricKind::kFatTree;
  c.fabric.nodes_per_leaf = nodes_per_leaf;
  c.fabric.oversubscription = oversubscription;
  c.fabric.leaves_per_pod = leaves_per_pod;
  c.fabric.pod_oversubscription = pod_oversubscription;
  return c;
}

// `c` with its nodes on a rail-optimized fabric (GPU g of each node on rail g * nics / gpus_per_node).
inline model::ClusterSpec RailOptimized(model::ClusterSpec c) {
  c.fabric.kind = model::FabricKind::kRailOptimized;
  return c;
}

// The perturbations the equivalence tests replay on a cluster of 4 nodes with 2 rails: node 1's NIC of
// rail 1 at half its bandwidth, a second job's 20 Gbps stream from GPU 4 of node 3 to GPU 4 of node 0
// (rail 1 with 6 or 8 GPUs a node), and node `slow_node` `slowdown` times slower.
inline sim::Perturbations DegradedNicAndSecondJob(int slow_node, double slowdown) {
  sim::Perturbations p;
  sim::DegradedLink nic;
  nic.node = 1;
  nic.rail = 1;
  nic.bandwidth_factor = 0.5;
  p.links.push_back(nic);
  p.background.push_back({3, 0, 4, 20e9 / 8});
  p.slow_nodes.push_back({slow_node, slowdown});
  return p;
}

// A schedule holding `ops` (issued at time 0 unless they depend on each other), declaring an hpZ group of `hpz`
// ranks as a builder does (the size its kHpz ops were made with, CollectiveOp's `hpz`).
inline model::Schedule ScheduleOf(const model::ClusterSpec& c, std::vector<model::Op> ops, int hpz = 1) {
  model::Schedule s;
  s.hpz_group_size = hpz;
  for (model::Op& op : ops) {
    if (op.kind == model::OpKind::kCollective) model::ClassifyCollective(&s, &op.coll);  // as OpEmitter does
  }
  s.compact = model::CompactOps(ops, s.collective_classes.size());
  s.ops = std::move(ops);
  s.nodes = c.nodes;
  s.gpus_per_node = c.gpus_per_node;
  s.world_size = c.total_gpus();
  s.micro_steps = 1;
  s.tokens_per_micro_step = 2048;
  return s;
}

// The simulated iteration time of `s` on `c` (in a child process).
inline double SimulatedTime(const model::Schedule& s, const model::ClusterSpec& c,
                            const sim::SimOptions& o = {}) {
  StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->timing.iteration_s : -1;
}

// The analytic (NCCL cost model) time of one collective op alone, as schedules time it (a whole-cluster
// all-reduce at NCCL's tuner's pick, nccl_allreduce.h).
inline double AnalyticTime(const model::Op& op, const model::ClusterSpec& c) {
  return model::EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, c)).seconds;
}

// The results of replaying one schedule twice, under two sets of options.
struct ReplayPair {
  sim::SimResult a;
  sim::SimResult b;
};

// Replays `s` on `c` under `a` and under `b` (each in a child process). A failed replay is a test failure
// (its message reported) and gives nullopt.
inline std::optional<ReplayPair> ReplayBoth(const model::Schedule& s, const model::ClusterSpec& c,
                                            const sim::SimOptions& a, const sim::SimOptions& b) {
  StatusOr<sim::SimResult> ra = sim::SimulateIsolated(s, c, TestCalibration(), a);
  StatusOr<sim::SimResult> rb = sim::SimulateIsolated(s, c, TestCalibration(), b);
  EXPECT_TRUE(ra.ok()) << ra.status().message();
  EXPECT_TRUE(rb.ok()) << rb.status().message();
  if (!ra.ok() || !rb.ok()) return std::nullopt;
  return ReplayPair{std::move(ra).value(), std::move(rb).value()};
}

// Runs each group of transfers at time 0 in its own actor (one TransferAll each) on a platform of `spec`, in
// a child process; returns when each group had arrived, in seconds.
inline std::vector<double> GroupArrivalTimes(const sim::PlatformSpec& spec,
                                             const std::vector<std::vector<sim::Transfer>>& groups) {
  StatusOr<std::string> out = sim::RunInChild([&]() -> StatusOr<std::string> {
    StatusOr<std::unique_ptr<sim::Platform>> p = sim::Platform::Create(spec);
    if (!p.ok()) return p.status();
    sim::Platform* platform = p->get();
    std::vector<double> times(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      platform->Spawn(fmt::format("g{}", i), groups[i].front().src, [platform, &groups, &times, i] {
        platform->TransferAll(groups[i]);
        times[i] = sim::Platform::Now();
      });
    }
    if (StatusOr<double> ran = platform->Run(); !ran.ok()) return ran.status();
    std::string text;
    for (double t : times) text += fmt::format("{:.17g} ", t);
    return text;
  });
  EXPECT_TRUE(out.ok()) << out.status().message();
  std::vector<double> times;
  std::istringstream in(out.ok() ? *out : "");
  for (double t; in >> t;) times.push_back(t);
  return times;
}

// Two replays of one schedule agree: the iteration, exposed communication and interference, and every op's
// start and finish, within 1e-9 of the iteration time (the equivalence tests of the reductions and merges).
// Interference also within 1e-6 of itself: it integrates the progress of NCCL's bounded GPU loads, which
// SimGrid solves to maxmin/precision (1e-5), and collectives whose channels differ
// (model/cost/nccl_channels.h) run loads of different bounds side by side on one GPU (1.3e-7 seen between two
// wake modes).
inline void ExpectSameTiming(const model::Timing& a, const model::Timing& b, size_t ops,
                             const std::string& name) {
  const double t = a.iteration_s;
  EXPECT_NEAR(b.iteration_s, t, 1e-9 * t) << name;
  EXPECT_NEAR(b.exposed_comm_s, a.exposed_comm_s, 1e-9 * t);
  EXPECT_NEAR(b.interference_s, a.interference_s, 1e-9 * t + 1e-6 * a.interference_s);
  double worst = 0;
  for (size_t i = 0; i < ops; ++i) {
    worst = std::max(worst, std::abs(a.start_s[i] - b.start_s[i]));
    worst = std::max(worst, std::abs(a.finish_s[i] - b.finish_s[i]));
  }
  EXPECT_LT(worst, 1e-9 * t) << name << ": largest op time difference " << worst << " s";
}

// Two replays counted the same payload bytes per tier and purpose: within 1e-9 of `a`'s, plus `slack_bytes`.
inline void ExpectSameVolumes(const model::TierVolumes& a, const model::TierVolumes& b,
                              const std::string& name, double slack_bytes = 0) {
  for (size_t k = 0; k < a.cross_node.size(); ++k) {
    EXPECT_NEAR(b.cross_node[k], a.cross_node[k], 1e-9 * a.cross_node[k] + slack_bytes)
        << name << " purpose " << k;
    EXPECT_NEAR(b.intra_node[k], a.intra_node[k], 1e-9 * a.intra_node[k] + slack_bytes)
        << name << " purpose " << k;
  }
}

}  // namespace zerosim::testing
