// Whole iterations: the ZeRO++ paper's 18B model on its 384-GPU cluster at 1 and 4 x 100 Gbps, shipped
// inputs, DES against the analytic model (within 5%; the remaining difference is explained in the
// report: GPU sharing between streams and links shared by concurrent collectives).
#include <gtest/gtest.h>

#include "model/io/loaders.h"
#include "model/report/evaluate.h"
#include "sim/sim_evaluate.h"

namespace zerosim::testing {
namespace {

io::Scenario PaperScenario(int links) {
  const io::DiskFileSource disk;
  StatusOr<io::Scenario> s =
      io::LoadScenario(disk, std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/default.toml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  StatusOr<io::TopologyFile> t =
      io::LoadTopology(disk, std::string(ZEROSIM_SOURCE_DIR) + "/topologies/zeropp_v100_" +
                                 std::to_string(links) + "x100g.toml");
  EXPECT_TRUE(t.ok()) << t.status().message();
  io::Scenario out = std::move(s).value();
  out.cluster = t->cluster;
  return out;
}

void ExpectDesNearAnalytic(int links) {
  const io::Scenario s = PaperScenario(links);
  ASSERT_EQ(s.cluster.total_gpus(), 384);
  for (const io::Variant& v : s.variants) {
    const model::VariantReport a =
        model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, s.cluster, s.calibration});
    StatusOr<model::VariantReport> d =
        sim::EvaluateSimVariant(v.name, {v.model, v.zero, s.cluster, s.calibration}, sim::SimOptions{});
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(d->engine, "sim");
    EXPECT_NEAR(d->iteration_time_s / a.iteration_time_s, 1.0, 0.05)
        << v.name << " at " << links << " x 100 Gbps";
    EXPECT_NEAR(d->bytes.cross_node.total(), a.bytes.cross_node.total(), 1e-9 * a.bytes.cross_node.total());
    EXPECT_NEAR(d->bytes.intra_node.total(), a.bytes.intra_node.total(), 1e-9 * a.bytes.intra_node.total());
    // Same schedule, same local costs: compute and GPU side work agree exactly.
    EXPECT_DOUBLE_EQ(d->compute_s, a.compute_s);
    EXPECT_DOUBLE_EQ(d->gpu_side_s, a.gpu_side_s);
  }
}

TEST(Iteration, PaperClusterOneLink) { ExpectDesNearAnalytic(1); }

// Nothing shares a link on the paper's single-switch cluster, so the analytic engine's one-pass GPU sharing
// and hardware-queue rules must stay within 2% of the replay for any gradient bucket size (issue 9's target;
// with the fitted interference and buckets of 1e7 the two differed by 19%).
TEST(Iteration, AnalyticWithinTwoPercentOfTheReplayForAnyBucketSize) {
  const io::Scenario s = PaperScenario(1);
  for (double bucket : {1e6, 1e7, 1e8, 1e9}) {
    for (int queues : {1, 8}) {
      for (const io::Variant& v : s.variants) {
        model::ZeroConfig z = v.zero;
        z.reduce_bucket_size = bucket;
        z.runtime.cuda_device_max_connections = queues;
        const model::VariantReport a =
            model::EvaluateAnalyticVariant(v.name, {v.model, z, s.cluster, s.calibration});
        StatusOr<model::VariantReport> d =
            sim::EvaluateSimVariant(v.name, {v.model, z, s.cluster, s.calibration}, sim::SimOptions{});
        ASSERT_TRUE(d.ok()) << d.status().message();
        EXPECT_NEAR(d->iteration_time_s / a.iteration_time_s, 1.0, 0.02)
            << v.name << " with buckets of " << bucket << " and " << queues << " hardware queue(s)";
      }
    }
  }
}
TEST(Iteration, PaperClusterFourLinks) { ExpectDesNearAnalytic(4); }

}  // namespace
}  // namespace zerosim::testing
