// Merging identical transfers (sim/transfer_merge.h) is exact: a weighted comm standing for k transfers
// takes k shares of max-min and arrives when each of the k would (closed form on a NIC); whole iterations
// of ZeRO-3 and ZeRO++ replayed with merged transfers equal the unmerged replay (one comm per transfer) to
// 1e-9: op times of rank 0, the iteration, exposed communication, interference and bytes per tier, on a fat
// tree, on rails with a degraded NIC and a second job, and with node sizes that give counts of 3 and 16.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>

#include "model/builders/schedule_builder.h"
#include "sim/simgrid_platform.h"
#include "sim/transfer_merge.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

sim::PlatformSpec TwoNodes() {
  sim::PlatformSpec p;
  p.nodes = 2;
  p.gpus_per_node = 8;
  p.gpu_flops = 1e12;
  p.nvlink_Bps = 100e9;
  p.nic_Bps = 10e9;
  return p;
}

std::vector<double> ArrivalTimes(const std::vector<std::vector<sim::Transfer>>& groups) {
  return GroupArrivalTimes(TwoNodes(), groups);
}

TEST(TransferMerge, AWeightedCommTakesItsCountOfShares) {
  // Node 0 -> node 1 over one 10 GB/s NIC: three transfers of 1 GB as one comm of count 3, and one of
  // 2 GB. Max-min gives each of the four 2.5 GB/s: the three arrive at 4 * 1 GB / 10 GB/s = 0.4 s; the
  // last has 1 GB left, alone at 10 GB/s: 0.5 s.
  sim::Transfer merged{0, 8, 1'000'000'000};
  merged.count = 3;
  const std::vector<double> t = ArrivalTimes({{merged}, {{3, 11, 2'000'000'000}}});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 0.4, 1e-12);
  EXPECT_NEAR(t[1], 0.5, 1e-12);
  // The same three as separate comms.
  const std::vector<double> plain = ArrivalTimes(
      {{{0, 8, 1'000'000'000}, {1, 9, 1'000'000'000}, {2, 10, 1'000'000'000}}, {{3, 11, 2'000'000'000}}});
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(t[0], plain[0]);
  EXPECT_EQ(t[1], plain[1]);
}

TEST(TransferMerge, MergesOnlyTransfersOfOneRouteAndSize) {
  StatusOr<std::string> out = sim::RunInChild([]() -> StatusOr<std::string> {
    StatusOr<std::unique_ptr<sim::Platform>> p = sim::Platform::Create(TwoNodes());
    if (!p.ok()) return p.status();
    // 0->8, 1->9 and 2->15 share NIC 0 and NIC 1 (same route); 3->11 differs in size; 0->1 is an NVSwitch
    // route; 4->12 joins the first.
    std::vector<sim::Transfer> t = {{0, 8, 100},  {1, 9, 100}, {2, 15, 100},
                                    {3, 11, 200}, {0, 1, 100}, {4, 12, 100}};
    std::vector<const std::vector<int>*> routes;
    for (const sim::Transfer& x : t) routes.push_back(&(*p)->Route(x.src, x.dst));
    const int64_t folded = sim::MergeIdenticalTransfers(&t, routes);
    std::string text = fmt::format("{}:", folded);
    for (const sim::Transfer& x : t) text += fmt::format(" {}-{}x{}", x.src, x.dst, x.count);
    return text;
  });
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "3: 0-8x4 3-11x1 0-1x1");
}

// Replays `s` on `c` with merged and with plain transfers under `reduction`; expects equal results.
void ExpectMergeExact(const model::Schedule& s, const model::ClusterSpec& c, const sim::Perturbations& p,
                      sim::Reduction reduction, bool expect_merges) {
  sim::SimOptions plain;
  plain.reduction = reduction;
  plain.perturbations = p;
  plain.merge_transfers = false;
  sim::SimOptions merged = plain;
  merged.merge_transfers = true;
  const std::optional<ReplayPair> r = ReplayBoth(s, c, plain, merged);
  ASSERT_TRUE(r.has_value());
  const sim::SimResult& a = r->a;
  const sim::SimResult& b = r->b;
  EXPECT_EQ(a.stats.merged_transfers, 0);
  if (expect_merges) {
    EXPECT_GT(b.stats.merged_transfers, 0) << c.name;
    EXPECT_LT(b.stats.transfers, a.stats.transfers);
  }
  EXPECT_EQ(b.stats.transfers + b.stats.merged_transfers, a.stats.transfers);
  ExpectSameTiming(a.timing, b.timing, s.ops.size(), c.name);
  ExpectSameVolumes(a.volumes, b.volumes, c.name);
}

void ExpectIterationsExact(const model::ClusterSpec& c, const sim::Perturbations& p,
                           const std::vector<sim::Reduction>& reductions) {
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus(c.gpus_per_node / 2)}) {
    const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
    // ZeRO++'s all-to-all across nodes sends one transfer per GPU and fabric class over each rail; they
    // merge when the group instances of one local rank each start together (not in the full replay, where
    // the last rank of each instance starts it alone).
    const bool merges = z.zero_quantized_gradients && c.gpus_per_node > c.nic.count;
    for (sim::Reduction r : reductions) ExpectMergeExact(s, c, p, r, merges && r != sim::Reduction::kFull);
  }
}

TEST(TransferMerge, FatTreeIterationsAreExact) {
  // 4 leaves of 2 nodes of 16 GPUs (counts of 16), 2:1 uplinks.
  ExpectIterationsExact(FatTree(PaperCluster(1, 8, 16), 2, 2), {},
                        {sim::Reduction::kSymmetric, sim::Reduction::kClasses, sim::Reduction::kFull});
}

TEST(TransferMerge, RailsWithADegradedNicAndASecondJobAreExact) {
  // Two rails of three GPUs (counts of 3); a NIC at half speed and a second job on rail 1 make the
  // merged flows share links with flows of other sizes.
  model::ClusterSpec c = RailOptimized(PaperCluster(2, 4, 6));
  c.nccl.inter_bandwidth_efficiency = 0.8;
  ExpectIterationsExact(c, DegradedNicAndSecondJob(/*slow_node=*/2, 1.2),
                        {sim::Reduction::kClasses, sim::Reduction::kFull});
}

TEST(TransferMerge, ThreeLevelFatTreeIsExact) {
  // Pods of 2 leaves of 2 nodes, 8 GPUs each (counts of 8): three fabric classes per GPU.
  ExpectIterationsExact(FatTree(PaperCluster(1, 8, 8), 2, 2, 2, 2), {},
                        {sim::Reduction::kSymmetric, sim::Reduction::kClasses});
}

}  // namespace
}  // namespace zerosim::testing
