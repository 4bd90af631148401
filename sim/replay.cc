#include "sim/replay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "model/cost/collective_time.h"
#include "model/cost/nccl_allreduce.h"
#include "model/cost/op_cost.h"
#include "model/cost/placed_collectives.h"
#include "model/placement/placement.h"
#include "sim/carried_bytes.h"
#include "sim/collective_plan.h"
#include "sim/memory_maps.h"
#include "sim/mirror_fold.h"
#include "sim/rank_classes.h"
#include "sim/simgrid_platform.h"
#include "sim/transfer_merge.h"

namespace zerosim::sim {

using model::Op;
using model::OpKind;
using model::Queue;

namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Replay {
 public:
  Replay(const model::Schedule& s, const model::ClusterSpec& c, const model::Calibration& cal,
         const SimOptions& o, const Layout& layout, Platform* platform)
      : s_(s),
        c_(c),
        o_(o),
        layout_(layout),
        platform_(platform),
        local_(model::MakeLocalCostModel(s, c, cal)),
        placed_(model::PlaceCollectives(s, c)),
        classes_(MakeRankClasses(layout, o.perturbations)) {
    const size_t n = s.ops.size();
    ranks_ = classes_.count();
    IndexGroups();
    done_.assign(static_cast<size_t>(ranks_) * n, 0);
    // One hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1): a GPU op starts only after the GPU op issued before
    // it.
    gpu_prev_.assign(n, -1);
    if (s.hardware_queues == 1) {
      started_.assign(static_cast<size_t>(ranks_) * n, 0);
      int prev = -1;
      for (size_t i = 0; i < n; ++i) {
        if (s.ops[i].queue == Queue::kHost) continue;
        gpu_prev_[i] = prev;
        prev = static_cast<int>(i);
      }
    }
    nominal_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Op& op = s.ops[i];
      queue_ops_[static_cast<size_t>(op.queue)].push_back(static_cast<int>(i));
      if (op.kind != OpKind::kCollective) nominal_[i] = model::LocalOpDuration(op, local_);
    }
    timing_.start_s.assign(n, 0);
    timing_.finish_s.assign(n, 0);
    traced_.assign(static_cast<size_t>(ranks_), false);
    for (int r : o.trace_ranks) {
      const int source = SourceOf(r);
      if (source >= 0) traced_[static_cast<size_t>(source)] = true;
    }
  }

  // The queue actors Spawn creates.
  int PlannedActors() const {
    int queues = 0;
    for (int q = 0; q < model::kNumQueues; ++q) queues += queue_ops_[static_cast<size_t>(q)].empty() ? 0 : 1;
    return ranks_ * queues;
  }

  // Creates every queue actor of every replayed rank.
  void Spawn() {
    actors_.resize(static_cast<size_t>(ranks_));
    for (int rank = 0; rank < ranks_; ++rank) {
      for (int q = 0; q < model::kNumQueues; ++q) {
        if (queue_ops_[static_cast<size_t>(q)].empty()) continue;
        auto a = std::make_unique<QueueActor>();
        a->rank = rank;
        a->queue = q;
        QueueActor* raw = a.get();
        actors_[static_cast<size_t>(rank)][static_cast<size_t>(q)] = std::move(a);
        platform_->Spawn(fmt::format("r{}-{}", rank, model::QueueName(static_cast<Queue>(q))),
                         classes_.representative[static_cast<size_t>(rank)], [this, raw] { RunQueue(raw); });
        ++stats_.actors;
      }
    }
  }

  Status status() const { return status_; }

  SimResult Result() {
    SimResult r;
    model::Timing& t = timing_;
    t.iteration_s = last_finish_s_;  // the slowest class's last op (rank 0's below)
    double compute_queue_work = 0;
    for (size_t i = 0; i < s_.ops.size(); ++i) {
      const Op& op = s_.ops[i];
      t.iteration_s = std::max(t.iteration_s, t.finish_s[i]);
      t.queue_busy_s[static_cast<size_t>(op.queue)] += t.finish_s[i] - t.start_s[i];
      if (op.queue == Queue::kCompute) {
        (op.phase == model::Phase::kOptimizer ? t.optimizer_s : t.compute_s) += nominal_[i];
        compute_queue_work += nominal_[i];
      } else if (op.occupies_gpu) {
        t.gpu_side_s += nominal_[i];
      }
    }
    t.compute_busy_s = compute_queue_work + t.gpu_side_s + t.interference_s;
    t.compute_parts = model::SumComputeParts(s_, local_);
    // As the analytic model: time the GPU does not do the schedule's own work (interference included).
    t.exposed_comm_s = std::max(0.0, t.iteration_s - (compute_queue_work + t.gpu_side_s));
    r.timing = std::move(timing_);
    r.volumes = volumes_;
    r.stats = stats_;
    r.stats.real_nodes = layout_.real_nodes;
    r.stats.simulated_nodes = layout_.sim_nodes;
    r.stats.simulated_ranks = ranks_;
    r.stats.symmetric = layout_.symmetric;
    // Every rank's timeline is its class representative's.
    for (int rank : o_.trace_ranks) {
      const int source = SourceOf(rank);
      if (source < 0) continue;
      for (const TraceEvent& e : trace_) {
        if (e.rank == source) r.trace.push_back({rank, e.op, e.start_s, e.finish_s});
      }
    }
    return r;
  }

 private:
  static constexpr int kNotWaiting = -1;
  static constexpr int kInCollective = -2;

  struct QueueActor {
    int rank = 0;  // the rank class it replays
    int queue = 0;
    int waiting_on = kNotWaiting;        // op index, kInCollective, or kNotWaiting
    int waiting_start_of = kNotWaiting;  // op index whose start it waits for (one hardware queue)
    int pending_instances = 0;           // group instances of a collective it waits for
    Signal signal;
  };

  // Rank classes that have reached a collective in one group instance, and those waiting for it.
  struct Instance {
    int arrived = 0;
    std::vector<QueueActor*> waiters;
  };

  // The class replaying real rank `r`, or -1.
  int SourceOf(int r) const {
    if (r < 0 || r >= layout_.real_nodes * layout_.gpus_per_node) return -1;
    if (layout_.sim_nodes != layout_.real_nodes) {
      return classes_.class_of_real_node[static_cast<size_t>(r / layout_.gpus_per_node)];
    }
    return classes_.class_of_gpu[static_cast<size_t>(r)];
  }

  // Which classes have members in each group instance, and which instances each class has members in,
  // for every group kind.
  void IndexGroups() {
    for (int g = 0; g < kGroupKinds; ++g) {
      const auto kind = static_cast<model::GroupKind>(g);
      const int instances = model::GroupInstances(kind, layout_.grid());
      instance_stride_ = std::max<int64_t>(instance_stride_, instances);
      auto& by_instance = instance_classes_[static_cast<size_t>(g)];
      auto& by_class = class_instances_[static_cast<size_t>(g)];
      by_instance.assign(static_cast<size_t>(instances), {});
      by_class.assign(static_cast<size_t>(ranks_), {});
      for (int i = 0; i < instances; ++i) {
        for (int gpu : model::GroupMembers(kind, i, layout_.grid())) {
          const int cls = classes_.class_of_gpu[static_cast<size_t>(gpu)];
          std::vector<int>& classes = by_instance[static_cast<size_t>(i)];
          if (std::find(classes.begin(), classes.end(), cls) == classes.end()) classes.push_back(cls);
          std::vector<int>& mine = by_class[static_cast<size_t>(cls)];
          if (mine.empty() || mine.back() != i) mine.push_back(i);
        }
      }
    }
  }

  bool Done(int rank, int op) const {
    return done_[static_cast<size_t>(rank) * s_.ops.size() + static_cast<size_t>(op)] != 0;
  }

  void WaitDone(QueueActor* a, int op) {
    while (!Done(a->rank, op)) {
      a->waiting_on = op;
      a->signal.Wait();
    }
  }

  void MarkDone(int rank, int op) {
    done_[static_cast<size_t>(rank) * s_.ops.size() + static_cast<size_t>(op)] = 1;
    for (auto& other : actors_[static_cast<size_t>(rank)]) {
      if (other && other->waiting_on == op) {
        other->waiting_on = kNotWaiting;
        other->signal.Notify();
      }
    }
  }

  void WaitStarted(QueueActor* a, int op) {
    while (started_[static_cast<size_t>(a->rank) * s_.ops.size() + static_cast<size_t>(op)] == 0) {
      a->waiting_start_of = op;
      a->signal.Wait();
    }
  }

  void MarkStarted(int rank, int op) {
    started_[static_cast<size_t>(rank) * s_.ops.size() + static_cast<size_t>(op)] = 1;
    for (auto& other : actors_[static_cast<size_t>(rank)]) {
      if (other && other->waiting_start_of == op) {
        other->waiting_start_of = kNotWaiting;
        other->signal.Notify();
      }
    }
  }

  void RunQueue(QueueActor* a) {
    for (int i : queue_ops_[static_cast<size_t>(a->queue)]) {
      const Op& op = s_.ops[static_cast<size_t>(i)];
      for (int d = 0; d < op.num_deps; ++d) WaitDone(a, op.deps[static_cast<size_t>(d)]);
      const double ready = Platform::Now();  // its queue free and every dep done
      if (!started_.empty() && op.queue != Queue::kHost) {
        if (gpu_prev_[static_cast<size_t>(i)] >= 0) WaitStarted(a, gpu_prev_[static_cast<size_t>(i)]);
        MarkStarted(a->rank, i);
      }
      const double start = Platform::Now();
      // Rank 0's compute held only by the one hardware queue, as model/analytic/analytic.cc measures it.
      if (a->rank == 0 && op.queue == Queue::kCompute) timing_.queue_blocking_s += start - ready;
      switch (op.kind) {
        case OpKind::kCompute:
        case OpKind::kKernel:
        case OpKind::kMemory:
          if (nominal_[static_cast<size_t>(i)] > 0) {
            Platform::Compute(nominal_[static_cast<size_t>(i)] * local_.effective_flops);
            ++stats_.gpu_activities;
          }
          break;
        case OpKind::kHost:
          if (op.host_s > 0) Platform::Delay(op.host_s);
          break;
        case OpKind::kWait:
          break;
        case OpKind::kCollective:
          JoinCollective(a, i);
          break;
      }
      const double finish = Platform::Now();
      last_finish_s_ = std::max(last_finish_s_, finish);
      if (a->rank == 0) {
        timing_.start_s[static_cast<size_t>(i)] = start;
        timing_.finish_s[static_cast<size_t>(i)] = finish;
      }
      if (traced_[static_cast<size_t>(a->rank)]) trace_.push_back({a->rank, i, start, finish});
      MarkDone(a->rank, i);
    }
  }

  // Every class with members in the op's group instances arrives here. An instance runs when the last of
  // its classes has arrived, started by that class together with its other instances that became ready;
  // a class returns when all its instances have finished. (One class: every instance at once; one class
  // per rank: the last member to arrive runs the instance, the others wait.)
  void JoinCollective(QueueActor* a, int op_index) {
    const Op& op = s_.ops[static_cast<size_t>(op_index)];
    const auto g = static_cast<size_t>(op.coll.group);
    const std::vector<int>& mine = class_instances_[g][static_cast<size_t>(a->rank)];
    // Keys unique over every op and group: collectives of different groups are in flight at once (their own
    // NCCL streams), so a key may not depend on the op's group (op i of a 2-instance group and op 2i of a
    // 1-instance group would share one).
    const int64_t base = static_cast<int64_t>(op_index) * instance_stride_;
    std::vector<int> ready;
    for (int i : mine) {
      if (++instances_[base + i].arrived ==
          static_cast<int>(instance_classes_[g][static_cast<size_t>(i)].size())) {
        ready.push_back(i);
      }
    }
    if (!ready.empty()) {
      RunCollective(op_index, ready);
      for (int i : ready) {
        auto it = instances_.find(base + i);
        const std::vector<QueueActor*> waiters = std::move(it->second.waiters);
        instances_.erase(it);
        for (QueueActor* w : waiters) {
          if (--w->pending_instances > 0) continue;
          w->waiting_on = kNotWaiting;
          w->signal.Notify();
        }
      }
    }
    // Instances still running or waiting for other classes (an instance no longer listed has finished).
    for (int i : mine) {
      auto it = instances_.find(base + i);
      if (it == instances_.end()) continue;
      it->second.waiters.push_back(a);
      ++a->pending_instances;
    }
    if (a->pending_instances > 0) {
      a->waiting_on = kInCollective;
      a->signal.Wait();
    }
  }

  // On a folded platform, whether the step's flows are mirror-symmetric (checked once per collective kind
  // and group; an asymmetric one is an error: the fold would be wrong).
  bool MirrorChecked(const Op& op, const PlanStep& step) {
    Status st = CheckMirrorSymmetricOnce(op.coll, step.flows, layout_, &mirror_checked_);
    if (!st.ok() && status_.ok()) status_ = st;
    return st.ok();
  }

  void RunCollective(int op_index, const std::vector<int>& instances) {
    const Op& op = s_.ops[static_cast<size_t>(op_index)];
    const model::PlacedCollective& placed = placed_[static_cast<size_t>(op.coll.collective_class)];
    const model::CollectiveTime& t = placed.time;
    StatusOr<std::vector<PlanStep>> plan = PlanCollective(op.coll, placed, layout_, o_.fidelity, instances);
    if (!plan.ok()) {
      if (status_.ok()) status_ = plan.status();
      return;
    }
    if (layout_.folded) {
      for (const PlanStep& step : *plan) {
        if (!MirrorChecked(op, step)) return;
      }
    }
    // NCCL's kernels hold their channels / SMs of each member GPU while the collective runs
    // (model::CollectiveSmShare: the communicator's channels, fewer for small ops).
    const double interference = placed.sm_share;
    std::vector<int> loaded;
    if (interference > 0) {
      // The representatives of the classes with members in these instances.
      const auto& by_instance = instance_classes_[static_cast<size_t>(op.coll.group)];
      std::vector<bool> seen(static_cast<size_t>(ranks_), false);
      for (int i : instances) {
        for (int cls : by_instance[static_cast<size_t>(i)]) {
          if (seen[static_cast<size_t>(cls)]) continue;
          seen[static_cast<size_t>(cls)] = true;
          loaded.push_back(classes_.representative[static_cast<size_t>(cls)]);
        }
      }
    }
    const int load = loaded.empty() ? -1 : platform_->StartGpuLoad(loaded, interference);
    const double overhead = 1.0 / t.params.bandwidth_factor;
    // A tuned all-reduce runs the ring's flows carrying its algorithm's bytes of each tier (tree, NVLS,
    // NVLSTree: model::AllReduceTierScale); any other collective its own.
    const model::Traffic& wire_traffic = placed.wire;
    const model::TierScale& tier = placed.tier;
    const double started = Platform::Now();
    const auto purpose = static_cast<size_t>(op.purpose);
    const double scale = layout_.symmetric ? layout_.flow_scale() : 1.0;
    const int first_mirrored_gpu = layout_.folded ? layout_.sim_gpus() / 2 : layout_.sim_gpus();
    std::vector<Transfer> transfers;
    std::vector<const std::vector<int>*> routes;  // each transfer's links (Platform::Route keeps them)
    for (const PlanStep& step : *plan) {
      if (step.latency_s > 0) Platform::Delay(step.latency_s);
      transfers.clear();
      routes.clear();
      for (const Flow& f : step.flows) {
        // Folded: the second unit's flows are their mirror images' (mirror_fold.h).
        if (f.src >= first_mirrored_gpu) continue;
        const int node = f.src / layout_.gpus_per_node;
        const bool intra = node == f.dst / layout_.gpus_per_node;
        const double bytes = f.bytes * (intra ? tier.intra : tier.cross);
        const auto wire = static_cast<uint64_t>(std::llround(bytes * overhead));
        if (wire == 0) continue;
        if (intra && !classes_.node_intra_simulated[static_cast<size_t>(node)]) {
          // The same NVSwitch flow of its class's representative node stands for it (rank_classes.h).
          volumes_.intra_node[purpose] += bytes * scale;
          ++stats_.represented_transfers;
          continue;
        }
        transfers.push_back({f.src, f.dst, wire});
        // What SimGrid's link-load plugin will count on each link for this flow (simgrid_platform.h).
        const double capacity = static_cast<double>(wire) / platform_->BandwidthFactor(f.src, f.dst);
        const std::vector<int>& route = platform_->Route(f.src, f.dst);
        routes.push_back(&route);
        for (int link : route) {
          const LinkInfo& info = platform_->links()[static_cast<size_t>(link)];
          if (!info.up) continue;
          if (info.tier == LinkTier::kNic) {
            volumes_.cross_node[purpose] += bytes * scale;
            stats_.nic_capacity_bytes_planned += capacity;
          }
          if (info.tier == LinkTier::kNvLink) {
            // A PCIe GPU's link also carries its NIC's traffic: only flows inside the node are intra-node
            // bytes (on NVSwitch and mesh nodes no NIC route crosses a kNvLink link).
            if (intra) volumes_.intra_node[purpose] += bytes * scale;
            stats_.nvlink_capacity_bytes_planned += capacity;
          }
        }
      }
      if (o_.merge_transfers) stats_.merged_transfers += MergeIdenticalTransfers(&transfers, routes);
      stats_.transfers += static_cast<int64_t>(transfers.size());
      platform_->TransferAll(transfers);
    }
    // NCCL's per-architecture cap on a ring's bus bandwidth (model::NcclRingBusBandwidthCap): a ring whose
    // links would carry it faster still takes its bytes over the cap, as the analytic model times it.
    const double cap_Bps = model::NcclRingBusBandwidthCap(c_);
    if (cap_Bps > 0 && wire_traffic.ring_rank_bytes > 0) {
      const double floor_s =
          t.latency_s + wire_traffic.ring_rank_bytes / (cap_Bps * t.params.bandwidth_factor);
      const double elapsed = Platform::Now() - started;
      if (elapsed < floor_s) Platform::Delay(floor_s - elapsed);
    }
    if (load >= 0) {
      const std::vector<double> busy = platform_->StopGpuLoad(load);
      for (size_t i = 0; i < loaded.size() && i < busy.size(); ++i) {
        if (loaded[i] == 0) timing_.interference_s += busy[i];
      }
    }
  }

  const model::Schedule& s_;
  const model::ClusterSpec& c_;
  const SimOptions& o_;
  const Layout layout_;
  Platform* platform_;
  const model::LocalCostModel local_;
  const std::vector<model::PlacedCollective> placed_;  // by collective class
  const RankClasses classes_;
  static constexpr int kGroupKinds = model::kNumGroupKinds;
  std::array<std::vector<std::vector<int>>, kGroupKinds> instance_classes_;
  std::array<std::vector<std::vector<int>>, kGroupKinds> class_instances_;
  int64_t instance_stride_ = 1;  // the most instances of any group kind (JoinCollective's keys)
  double last_finish_s_ = 0;
  int ranks_ = 0;
  std::array<std::vector<int>, model::kNumQueues> queue_ops_;
  std::vector<double> nominal_;
  std::vector<uint8_t> done_;
  std::vector<int> gpu_prev_;     // per op: the GPU op issued before it under one hardware queue, or -1
  std::vector<uint8_t> started_;  // per rank and op, under one hardware queue
  std::vector<std::array<std::unique_ptr<QueueActor>, model::kNumQueues>> actors_;
  std::unordered_map<int64_t, Instance> instances_;
  std::vector<int> mirror_checked_;  // collective kinds and groups found mirror-symmetric
  std::vector<bool> traced_;
  std::vector<TraceEvent> trace_;
  model::Timing timing_;
  model::TierVolumes volumes_;
  SimStats stats_;
  Status status_;
};

}  // namespace

StatusOr<SimResult> SimulateSchedule(const model::Schedule& s, const model::ClusterSpec& c,
                                     const model::Calibration& cal, const SimOptions& o) {
  if (const std::string shape = model::ScheduleShapeMismatch(s, c); !shape.empty())
    return Status::Error(shape);
  const double t0 = WallSeconds();
  const Layout layout = MakeLayout(c, model::GridOf(s), o);
  const model::LocalCostModel local = model::MakeLocalCostModel(s, c, cal);
  StatusOr<PlatformSpec> spec =
      MakePlatformSpec(c, layout, local.effective_flops, o.actor_stack_kib, o.perturbations);
  if (!spec.ok()) return spec.status();
  PlatformSpec with_options = *spec;
  with_options.simgrid_cfg = o.simgrid_cfg;
  with_options.simgrid_log = o.simgrid_log;
  with_options.link_load_plugin = o.link_load_plugin;
  with_options.wait_each_transfer = o.wait_each_transfer;
  StatusOr<std::unique_ptr<Platform>> platform = Platform::Create(with_options);
  if (!platform.ok()) return platform.status();
  Replay replay(s, c, cal, o, layout, platform->get());
  if (Status maps = CheckMemoryMaps(replay.PlannedActors(), ReadMaxMapCount()); !maps.ok()) return maps;
  replay.Spawn();
  for (const BackgroundFlow& b : o.perturbations.background) {
    const int n = layout.gpus_per_node;
    (*platform)->AddBackgroundFlow(b.src_node * n + b.gpu, b.dst_node * n + b.gpu, b.rate_Bps);
  }
  const double t1 = WallSeconds();
  StatusOr<double> ran = (*platform)->Run();
  const double t2 = WallSeconds();
  if (!replay.status().ok()) return replay.status();
  if (!ran.ok()) return ran.status();
  SimResult r = replay.Result();
  // The bytes are conserved: SimGrid's links carried what the schedule's flows planned (carried_bytes.h).
  AddCarriedBytes(**platform, &r.stats);
  if (Status conserved = CheckBytesConserved(r.stats, o); !conserved.ok()) return conserved;
  r.stats.build_wall_s = t1 - t0;
  r.stats.run_wall_s = t2 - t1;
  return r;
}

}  // namespace zerosim::sim
