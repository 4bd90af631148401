// Bytes conservation: the payload SimGrid carried over NIC and NVSwitch links equals the schedule's bytes
// per tier and purpose (model/placement/traffic.h), for ZeRO-3 and each ZeRO++ switch, on several fabrics,
// with and without the symmetric reduction; and the link capacity SimGrid's link-load plugin measured on
// those links equals what the flows planned.
#include <gtest/gtest.h>

#include "model/io/report_json.h"
#include "model/report/evaluate.h"
#include "model/builders/schedule_builder.h"
#include "sim/sim_evaluate.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

struct Variant {
  const char* name;
  model::ZeroConfig zero;
};

std::vector<Variant> Variants(int gpus_per_node) {
  model::ZeroConfig qwz, hpz, qgz;
  qwz.zero_quantized_weights = true;
  hpz.zero_hpz_partition_size = gpus_per_node / 2;
  qgz.zero_quantized_gradients = true;
  return {{"ZeRO-3", {}}, {"qwZ", qwz}, {"hpZ", hpz}, {"qgZ", qgz}, {"ZeRO++", ZeroPlusPlus(gpus_per_node)}};
}

void ExpectConserved(const model::ClusterSpec& c, sim::Reduction reduction) {
  const model::ModelSpec m = Gpt(2, 1024, 16);
  for (const Variant& v : Variants(c.gpus_per_node)) {
    const model::Schedule s = model::BuildSchedule(m, v.zero, c);
    sim::SimOptions o;
    o.reduction = reduction;
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const model::TierVolumes expected = model::SumTraffic(s, c);
    for (size_t p = 1; p < 4; ++p) {
      const char* purpose = model::PurposeName(static_cast<model::Purpose>(p));
      EXPECT_NEAR(r->volumes.cross_node[p], expected.cross_node[p], 1e-9 * expected.cross_node[p] + 1e-3)
          << v.name << " cross-node " << purpose << " on " << c.name;
      EXPECT_NEAR(r->volumes.intra_node[p], expected.intra_node[p], 1e-9 * expected.intra_node[p] + 1e-3)
          << v.name << " intra-node " << purpose << " on " << c.name;
    }
    EXPECT_GT(expected.cross_total(), 0);
    // Measured by SimGrid's link-load plugin: the NIC links carried the planned capacity, and on the whole
    // platform (kFull) that capacity times the tier efficiency is the payload times NCCL's wire overhead,
    // which lies between 1 (Simple) and 2 (LL's flag per 4-byte word).
    EXPECT_NEAR(r->stats.nic_capacity_bytes_measured, r->stats.nic_capacity_bytes_planned,
                1e-9 * r->stats.nic_capacity_bytes_planned);
    EXPECT_NEAR(r->stats.nvlink_capacity_bytes_measured, r->stats.nvlink_capacity_bytes_planned,
                1e-9 * r->stats.nvlink_capacity_bytes_planned);
    if (reduction == sim::Reduction::kFull) {
      const double wire = r->stats.nic_capacity_bytes_measured * c.nccl.inter_bandwidth_efficiency;
      EXPECT_GE(wire, expected.cross_total() * (1 - 1e-9)) << v.name << " on " << c.name;
      EXPECT_LE(wire, 2 * expected.cross_total()) << v.name << " on " << c.name;
    }
  }
}

TEST(Bytes, ConservedOnOneSwitch) {
  ExpectConserved(PaperCluster(1, 4, 8), sim::Reduction::kFull);
  ExpectConserved(PaperCluster(1, 6, 8), sim::Reduction::kSymmetric);
}

TEST(Bytes, ConservedWithRails) {
  const model::ClusterSpec c = RailOptimized(PaperCluster(4, 4, 8));
  ExpectConserved(c, sim::Reduction::kFull);
  ExpectConserved(c, sim::Reduction::kSymmetric);
}

TEST(Bytes, ConservedOnFatTrees) {
  for (const model::ClusterSpec& c :
       {FatTree(PaperCluster(2, 6, 8), 2, 4), FatTree(PaperCluster(2, 12, 4), 2, 1, 2, 4)}) {
    ExpectConserved(c, sim::Reduction::kFull);
    ExpectConserved(c, sim::Reduction::kSymmetric);
  }
}

// The report carries the measured link load for the sim engine (docs/report.md,
// link_load_bytes) and nothing for the analytic one; on the whole platform the NIC capacity carried, times
// the inter-node efficiency, is at least the cross-node payload the report gives.
TEST(Bytes, TheSimReportCarriesTheMeasuredLinkLoad) {
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  const model::ModelSpec m = Gpt(2, 1024, 16);
  const model::ZeroConfig z = ZeroPlusPlus(c.gpus_per_node);
  sim::SimOptions o;
  o.reduction = sim::Reduction::kFull;
  sim::SimRun run;
  StatusOr<model::VariantReport> v = sim::EvaluateSimVariant("ZeRO++", {m, z, c, TestCalibration()}, o, &run);
  ASSERT_TRUE(v.ok()) << v.status().message();
  const model::LinkLoadReport& l = v->link_load;
  ASSERT_TRUE(l.measured);
  EXPECT_EQ(l.nic_carried_bytes, run.result.stats.nic_capacity_bytes_measured);
  EXPECT_EQ(l.nvlink_carried_bytes, run.result.stats.nvlink_capacity_bytes_measured);
  EXPECT_NEAR(l.nic_carried_bytes, l.nic_planned_bytes, 1e-9 * l.nic_planned_bytes);
  EXPECT_GE(l.nic_carried_bytes * c.nccl.inter_bandwidth_efficiency,
            v->bytes.cross_node.total() * (1 - 1e-9));
  EXPECT_GT(l.nvlink_carried_bytes, 0);
  const nlohmann::ordered_json j = io::VariantToJson(*v);
  ASSERT_TRUE(j.contains("link_load_bytes"));
  EXPECT_EQ(j["link_load_bytes"]["nic_carried"].get<double>(), l.nic_carried_bytes);
  EXPECT_EQ(j["link_load_bytes"]["nvlink_planned"].get<double>(), l.nvlink_planned_bytes);

  const model::VariantReport a = model::EvaluateAnalyticVariant("ZeRO++", {m, z, c, TestCalibration()});
  EXPECT_FALSE(io::VariantToJson(a).contains("link_load_bytes"));
}

}  // namespace
}  // namespace zerosim::testing
