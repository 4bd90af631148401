// Issue 20, item 17: the analytic engine's queues share the links (model/analytic/link_occupancy.h). With
// several hardware queues, collectives of different NCCL streams run at once; each used to be timed as if
// alone, so HSDP with shard groups of 16 on one 100 Gbps NIC per node reported 22.16 s for an iteration whose
// own cross-node bytes need 27.73 s of that NIC (the sim engine: 27.77 s).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "model/analytic/link_occupancy.h"
#include "model/io/loaders.h"
#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/builders/schedule_builder.h"
#include "sim/sim_evaluate.h"

namespace zerosim::model {
namespace {

constexpr size_t kNic = static_cast<size_t>(TrafficTier::kNic);
constexpr size_t kPort = static_cast<size_t>(TrafficTier::kGpuPort);

TEST(LinkOccupancy, ConcurrentDemandsOnOneTierShareIt) {
  LinkOccupancy links;
  std::vector<LinkOccupancy::Delayed> delayed;
  EXPECT_DOUBLE_EQ(links.Reserve(0, {2, 0, 0}, 7), 2);
  // Starts at 1 while the first holds the NIC until 2: half of the NIC for 1..2 (0.5 s of its 3), then all
  // of it, 2..4.5; the first gives up 0.5 s and ends at 2.5 (issue 39: first come first served, 2..5).
  EXPECT_DOUBLE_EQ(links.Reserve(1, {3, 0, 0}, 8, &delayed), 4.5);
  ASSERT_EQ(delayed.size(), 1u);
  EXPECT_EQ(delayed[0].owner, 7);
  EXPECT_DOUBLE_EQ(delayed[0].end_s, 2.5);
  // Another tier is free.
  EXPECT_DOUBLE_EQ(links.Reserve(1, {0, 1, 0}), 2);
  // Every demand booked in full: the NIC is busy 0..5, as long as both need.
  EXPECT_DOUBLE_EQ(links.BusySeconds(TrafficTier::kNic), 5);
  EXPECT_DOUBLE_EQ(links.BusySeconds(TrafficTier::kGpuPort), 1);
  EXPECT_DOUBLE_EQ(links.LastBusyEnd(), 5);
}

TEST(LinkOccupancy, ALaterCollectiveFillsTheIdleTimeBeforeAnEarlierOne) {
  LinkOccupancy links;
  LinkOccupancy::Demand d{};
  d[kNic] = 2;
  EXPECT_DOUBLE_EQ(links.Reserve(10, d), 12);  // issued first, starts late
  d[kNic] = 1;
  EXPECT_DOUBLE_EQ(links.Reserve(1, d), 2);  // issued next, starts early: the NIC is idle then
  d[kNic] = 4;
  // From 9: 1 s alone before the first's interval, 1 s at half beside it (10..12), the rest alone (12..14).
  EXPECT_DOUBLE_EQ(links.Reserve(9, d), 14);
  EXPECT_DOUBLE_EQ(links.BusySeconds(TrafficTier::kNic), 7);
  d[kNic] = 0;
  d[kPort] = 0;
  EXPECT_DOUBLE_EQ(links.Reserve(3, d), 3);  // no demand: no wait
}

TEST(LinkOccupancy, KFlowsOnATierEachKeepOneInKPlusOne) {
  LinkOccupancy links;
  std::vector<LinkOccupancy::Delayed> delayed;
  EXPECT_DOUBLE_EQ(links.Reserve(0, {0, 6, 0}, 1), 6);
  EXPECT_DOUBLE_EQ(links.Reserve(0, {0, 1, 0}, 2, &delayed), 2);  // half of 0..2; the first ends at 7
  delayed.clear();
  // Beside both from 1 to 2 (a third), then beside the first (a half) until its 1.5 s are through.
  EXPECT_DOUBLE_EQ(links.Reserve(1, {0, 1.5, 0}, 3, &delayed), 1 + 1 + (1.5 - 1.0 / 3) * 2);
  EXPECT_EQ(delayed.size(), 2u);
  EXPECT_DOUBLE_EQ(links.BusySeconds(TrafficTier::kGpuPort), 8.5);
}

io::Scenario Reproducer() {
  const io::DiskFileSource disk;
  StatusOr<io::Scenario> s = io::LoadScenario(
      disk, std::string(ZEROSIM_SOURCE_DIR) + "/tests/data/link_sharing/hsdp16_8xdgx_h100.toml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  io::Scenario out = std::move(s).value();
  // --set nic.count=1 --set nic.bandwidth=100Gbps --set intra.bandwidth=50GBps
  out.cluster.nic.count = 1;
  out.cluster.nic.bandwidth_Bps = 100e9 / 8;
  out.cluster.intra.bandwidth_Bps = 50e9;
  return out;
}

TEST(LinkSharing, HsdpSmallShardGroupsTakeAtLeastTheNicTimeOfTheirBytes) {
  const io::Scenario s = Reproducer();
  ASSERT_EQ(s.variants.size(), 1u);
  const io::Variant& v = s.variants[0];
  ASSERT_EQ(v.zero.runtime.cuda_device_max_connections, 8);  // torchrun: concurrent NCCL streams
  const VariantReport a = EvaluateAnalyticVariant(v.name, {v.model, v.zero, s.cluster, s.calibration});
  ASSERT_TRUE(a.feasible) << a.infeasible_reason;
  EXPECT_EQ(a.invariant_violation, "");
  // The figure: cross-node bytes per node over the node's one NIC.
  const double nic_s = a.bytes.cross_node.total() / s.cluster.nodes / s.cluster.node_nic_Bps();
  EXPECT_NEAR(nic_s, 27.73, 0.01);
  EXPECT_GE(a.iteration_time_s, nic_s);  // 22.16 s before the fix
  const Schedule sched = BuildSchedule(v.model, v.zero, s.cluster);
  EXPECT_GE(a.iteration_time_s, LinkTimeLowerBound(s.cluster, sched) * (1 - 1e-9));
}

TEST(LinkSharing, TheEnginesAgreeOnTheReproducer) {
  const io::Scenario s = Reproducer();
  const io::Variant& v = s.variants[0];
  const VariantReport a = EvaluateAnalyticVariant(v.name, {v.model, v.zero, s.cluster, s.calibration});
  StatusOr<VariantReport> d =
      sim::EvaluateSimVariant(v.name, {v.model, v.zero, s.cluster, s.calibration}, sim::SimOptions{});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->invariant_violation, "");
  // 27.77 s on the sim engine; 22.16 s (-20%) on the analytic engine before the fix.
  EXPECT_NEAR(a.iteration_time_s / d->iteration_time_s, 1.0, 0.05)
      << "analytic " << a.iteration_time_s << " s, sim " << d->iteration_time_s << " s";
}

// Issue 39 item 2: FSDP2 with tensor parallelism 2 on one node of 8 B200 (NVLink at 450 GB/s, a single
// switch: nothing but the variant's own queues on the links). The Megatron all-reduces that block compute
// share the NVSwitch ports with FSDP's gathers and reduce-scatters on their own streams; the replay shares
// them max-min, the analytic engine served them first come first served, so an all-reduce waited for the
// rest of the gather booked before it: 17.50 ms against the replay's 15.70 (+11.5%), now 15.51.
TEST(LinkSharing, TheEnginesAgreeOnATensorParallelLayout) {
  const io::DiskFileSource disk;
  StatusOr<std::string> calibration =
      disk.Read(std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/b200.json");
  ASSERT_TRUE(calibration.ok()) << calibration.status().message();
  const std::map<std::string, std::string> files = {
      {"c.json", *calibration},
      {"t.toml",
       "name = \"one B200 node\"\nnodes = 1\ngpus_per_node = 8\n[gpu]\nname = \"B200-SXM-180GB\"\n"
       "peak_flops = \"2250TFLOPs\"\nfp8_peak_flops = \"4500TFLOPs\"\nhbm = \"183359MiB\"\n"
       "hbm_bandwidth = \"8TBps\"\nsms = 148\ncalibration = \"c.json\"\n[intra_node]\nfabric = \"nvswitch\"\n"
       "bandwidth = \"450GBps\"\n[nic]\ncount = 4\nbandwidth = \"800Gbps\"\n[fabric]\nkind = "
       "\"single_switch\"\n"},
      {"m.toml",
       "name = \"m\"\nsource = \"test\"\nlayers = 8\nhidden = 4096\nheads = 8\nffn_hidden = 16384\n"
       "vocab = 1000\nmax_position_embeddings = 4096\ntied_embeddings = true\ndtype = \"bf16\"\n"},
      {"s.toml",
       "name = \"tp\"\ntopology = \"t.toml\"\nmodel = \"m.toml\"\n[training]\nseq_len = 1024\n"
       "train_micro_batch_size_per_gpu = 1\nactivation_checkpointing = true\n[zero]\nstrategy = \"fsdp2\"\n"
       "[parallel]\ntensor = 2\n[[variant]]\nname = \"FSDP2 t=2\"\n"}};
  const StatusOr<io::Scenario> s = io::LoadScenario(io::MemoryFileSource(files), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const io::Variant& v = s->variants[0];
  const VariantReport a =
      EvaluateAnalyticVariant(v.name, {v.model, v.zero, s->cluster, s->calibration, v.parallel});
  EXPECT_EQ(a.invariant_violation, "");
  StatusOr<VariantReport> d = sim::EvaluateSimVariant(
      v.name, {v.model, v.zero, s->cluster, s->calibration, v.parallel}, sim::SimOptions{}, nullptr);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_NEAR(a.iteration_time_s / d->iteration_time_s, 1.0, 0.02)
      << "analytic " << a.iteration_time_s << " s, sim " << d->iteration_time_s << " s";
}

// Issue 39 (property case 1794): ZeRO-3 with hpZ over the 8 A100s of one node. The hpZ gathers (their own NCCL
// stream) are issued after the data-parallel gathers of the same layers but start beside them; the one pass in
// issue order booked them after those were timed, so the gathers they slowed never moved: 87.1 ms against the
// replay's 94.0 (-7.4%). Timed in start order, 91.1 ms. Both streams' collectives overlap here, so the property
// run holds the engines to 10% (property_check.h "engines contend"); this case to 4%.
TEST(LinkSharing, TheEnginesAgreeOnHpzGathersBesideDataParallelOnes) {
  const io::DiskFileSource disk;
  StatusOr<std::string> calibration =
      disk.Read(std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/a100.json");
  ASSERT_TRUE(calibration.ok()) << calibration.status().message();
  const std::map<std::string, std::string> files = {
      {"c.json", *calibration},
      {"t.toml",
       "name = \"one A100 node\"\nnodes = 1\ngpus_per_node = 8\n[gpu]\nname = \"A100-SXM4-80GB\"\n"
       "peak_flops = \"312TFLOPs\"\nhbm = \"81920MiB\"\nhbm_bandwidth = \"2039GBps\"\nsms = 108\n"
       "calibration = \"c.json\"\n[intra_node]\nfabric = \"nvswitch\"\nbandwidth = \"150GBps\"\n[nic]\n"
       "count = 2\nbandwidth = \"200Gbps\"\n[fabric]\nkind = \"single_switch\"\n[nccl]\nrelease = \"2.27.5\"\n"},
      {"m.toml",
       "name = \"m\"\nsource = \"test\"\nlayers = 2\nhidden = 4096\nheads = 16\nffn_hidden = 16384\n"
       "vocab = 50257\nmax_position_embeddings = 4096\ntied_embeddings = false\ndtype = \"bf16\"\n"},
      {"s.toml",
       "name = \"hpz\"\ntopology = \"t.toml\"\nmodel = \"m.toml\"\n[training]\nseq_len = 1024\n"
       "train_micro_batch_size_per_gpu = 1\ngradient_accumulation_steps = 2\nactivation_checkpointing = true\n"
       "[zero]\nstrategy = \"zero3\"\nzero_hpz_partition_size = 8\n[[variant]]\nname = \"hpZ 8\"\n"}};
  const StatusOr<io::Scenario> s = io::LoadScenario(io::MemoryFileSource(files), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const io::Variant& v = s->variants[0];
  const VariantReport a = EvaluateAnalyticVariant(v.name, {v.model, v.zero, s->cluster, s->calibration});
  EXPECT_EQ(a.invariant_violation, "");
  StatusOr<VariantReport> d =
      sim::EvaluateSimVariant(v.name, {v.model, v.zero, s->cluster, s->calibration}, sim::SimOptions{});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_NEAR(a.iteration_time_s / d->iteration_time_s, 1.0, 0.04)
      << "analytic " << a.iteration_time_s << " s, sim " << d->iteration_time_s << " s";
}

}  // namespace
}  // namespace zerosim::model
