// Prices where the hardware is (issue 38 item 1; model/io/prices.h): one plan over several GPU kinds prices each
// cluster at its own GPU's price from the price table, every row carries its cluster's GPU, size and price, the
// sweep may override a price for every GPU or for one, and bad prices are errors naming the key.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scratch_dir.h"
#include "study/plan_output.h"
#include "study/plan_search.h"
#include "study/sweep_grid.h"

namespace zerosim::study {
namespace {

const std::string kSource = ZEROSIM_SOURCE_DIR;

// Llama-3.1-8B on DGX H100 nodes, ZeRO-3 and FSDP2: small enough for a fast plan.
std::string Scenario() {
  return "name = \"prices test\"\ntopology = \"" + kSource + "/topologies/dgx_h100_8x400g.toml\"\nnodes = 2\n" +
         "model = \"" + kSource + "/scenarios/models/llama3.1_8b.toml\"\n[training]\nseq_len = 4096\n" +
         "tokens_per_gpu = 4096\nactivation_checkpointing = true\n[zero]\nstrategy = \"zero3\"\n" +
         "[[variant]]\nname = \"ZeRO-3\"\n[[variant]]\nname = \"FSDP2\"\nstrategy = \"fsdp2\"\n";
}

// A sweep over H100 and B200 clusters of 2 and 4 nodes with [cost] `cost` (TOML lines).
std::string Sweep(const std::string& cost) {
  return "name = \"prices\"\nbase = \"s.toml\"\ntrain_tokens = 1e12\n[axes]\ntopology = [\"" + kSource +
         "/topologies/dgx_h100_8x400g.toml\", \"" + kSource + "/topologies/dgx_b200_8x400g.toml\"]\n" +
         "nodes = [2, 4]\n[cost]\n" + cost;
}

const std::string kTable = "prices = \"" + kSource + "/prices/gpu_prices.toml\"\n";

class PlanPricesTest : public testing::ScratchDirTest {
 protected:
  PlanPricesTest() : ScratchDirTest("plan_prices") {}
  StatusOr<io::SweepSpec> Load(const std::string& cost) {
    Write("s.toml", Scenario());
    Write("p.sweep.toml", Sweep(cost));
    return LoadSweep(io::DiskFileSource(), Path("p.sweep.toml"));
  }
  std::string ErrorOf(const std::string& cost) {
    StatusOr<io::SweepSpec> s = Load(cost);
    EXPECT_FALSE(s.ok());
    return s.ok() ? std::string() : s.status().message();
  }
};

TEST_F(PlanPricesTest, EachClusterIsPricedAtItsOwnGpusPublishedPrice) {
  StatusOr<io::SweepSpec> s = Load(kTable);
  ASSERT_TRUE(s.ok()) << s.status().message();
  StatusOr<Plan> plan = PlanSweep(*s, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->choices.size(), 4u);
  // prices/gpu_prices.toml: AWS on-demand list prices per GPU-hour.
  const std::map<std::string, double> listed = {{"H100-SXM5-80GB", 6.88}, {"B200-SXM-180GB", 14.24}};
  for (const PlanChoice& c : plan->choices) {
    ASSERT_EQ(listed.count(c.gpu), 1u) << c.gpu;
    EXPECT_NEAR(c.usd_per_gpu_hour, listed.at(c.gpu), 1e-9) << c.label;
    EXPECT_NE(c.price_source.find("AWS"), std::string::npos) << c.price_source;
    EXPECT_EQ(c.gpus, c.nodes * 8);
    EXPECT_EQ(c.label, fmt::format("{} {}x8", c.gpu, c.nodes));
    // The cost per token is this cluster's price over its own throughput (times its goodput: the hours that
    // train).
    const double expected_usd_per_mtok = listed.at(c.gpu) * static_cast<double>(c.gpus) / 3600.0 /
                                         (c.best.tokens_per_s * c.best.band.center * c.goodput.goodput) * 1e6;
    EXPECT_NEAR(c.cost.usd_per_million_tokens / expected_usd_per_mtok, 1.0, 1e-9) << c.label;
  }
  // Ranked by cost per token and, in the same table, by days; both ranks over the same kept clusters.
  std::set<int> by_cost(plan->rank_of.begin(), plan->rank_of.end());
  std::set<int> by_days(plan->days_rank_of.begin(), plan->days_rank_of.end());
  EXPECT_EQ(by_cost, (std::set<int>{1, 2, 3, 4}));
  EXPECT_EQ(by_days, by_cost);
  for (size_t i = 0; i < plan->choices.size(); ++i) {
    for (size_t j = 0; j < plan->choices.size(); ++j) {
      if (plan->days_rank_of[i] < plan->days_rank_of[j]) {
        EXPECT_LE(plan->choices[i].cost.time_to_train_s, plan->choices[j].cost.time_to_train_s);
      }
    }
  }
  const std::string table = FormatPlan(*s, *plan, {}, 20);
  EXPECT_NE(table.find("H100-SXM5-80GB 4x8"), std::string::npos) << table;
  EXPECT_NE(table.find("USD/GPU-h"), std::string::npos) << table;
  EXPECT_NE(table.find("B200-SXM-180GB: 14.24 USD per GPU-hour (AWS EC2 p6-b200.48xlarge"), std::string::npos) << table;
  const nlohmann::json line = nlohmann::json::parse(PlanJsonl(*plan).substr(0, PlanJsonl(*plan).find('\n')));
  EXPECT_EQ(line["gpu"], "H100-SXM5-80GB");
  EXPECT_EQ(line["nodes"], 2);
  EXPECT_EQ(line["gpus"], 16);
  EXPECT_DOUBLE_EQ(line["usd_per_gpu_hour"].get<double>(), 6.88);
}

TEST_F(PlanPricesTest, TheSweepOverridesAPriceForEveryGpuOrForOne) {
  StatusOr<io::SweepSpec> one = Load(kTable + "[cost.gpu.\"B200-SXM-180GB\"]\ngpu_hour_usd = 5.0\n");
  ASSERT_TRUE(one.ok()) << one.status().message();
  model::ClusterSpec c = one->base.cluster;
  EXPECT_DOUBLE_EQ(io::PriceOf(*one, c).gpu_hour_usd, 6.88);  // H100: the table's
  c.gpu.name = "B200-SXM-180GB";
  EXPECT_DOUBLE_EQ(io::PriceOf(*one, c).gpu_hour_usd, 5.0);
  EXPECT_NE(io::PriceOf(*one, c).source.find("cost.gpu"), std::string::npos);

  StatusOr<io::SweepSpec> every = Load(kTable + "gpu_hour_usd = 2.0\n");
  ASSERT_TRUE(every.ok()) << every.status().message();
  EXPECT_DOUBLE_EQ(io::PriceOf(*every, c).gpu_hour_usd, 2.0);
  c.gpu.name = "H100-SXM5-80GB";
  EXPECT_DOUBLE_EQ(io::PriceOf(*every, c).gpu_hour_usd, 2.0);

  // Owned: the table's capital expense and power per GPU, the sweep's amortization and NIC prices.
  StatusOr<io::SweepSpec> own = Load(kTable +
                                     "basis = \"own\"\namortization = \"4y\"\npue = 1.3\nenergy_usd_per_kwh = 0.1\n"
                                     "[cost.nic_usd]\n\"400Gbps\" = 2500\n[cost.switch_port_usd]\n\"400Gbps\" = 1000\n");
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_DOUBLE_EQ(io::PriceOf(*own, c).capex_per_gpu_usd, 35000);
  EXPECT_DOUBLE_EQ(io::PriceOf(*own, c).power_per_gpu_w, 1275);
  c.gpu.name = "B200-SXM-180GB";
  EXPECT_DOUBLE_EQ(io::PriceOf(*own, c).capex_per_gpu_usd, 64400);
}

TEST_F(PlanPricesTest, BadPricesAreErrorsNamingTheKey) {
  // A GPU of the sweep the table does not price.
  Write("few.toml", "[gpu.\"H100-SXM5-80GB\"]\ngpu_hour_usd = 3\ngpu_hour_source = \"a quote, 2026\"\n");
  std::string e = ErrorOf("prices = \"few.toml\"\n");
  EXPECT_NE(e.find("GPU \"B200-SXM-180GB\""), std::string::npos) << e;
  EXPECT_NE(e.find("[cost] prices"), std::string::npos) << e;
  EXPECT_NE(e.find("gpu_hour_usd"), std::string::npos) << e;
  // A negative price in the table, and a price without its source.
  Write("neg.toml", "[gpu.\"H100-SXM5-80GB\"]\ngpu_hour_usd = -3\ngpu_hour_source = \"x\"\n");
  e = ErrorOf("prices = \"neg.toml\"\n");
  EXPECT_NE(e.find("neg.toml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("gpu_hour_usd"), std::string::npos) << e;
  Write("nosource.toml", "[gpu.\"H100-SXM5-80GB\"]\ngpu_hour_usd = 3\n");
  e = ErrorOf("prices = \"nosource.toml\"\n");
  EXPECT_NE(e.find("gpu_hour_source"), std::string::npos) << e;
  // An override for a GPU no cluster of the sweep has.
  e = ErrorOf(kTable + "[cost.gpu.\"H800\"]\ngpu_hour_usd = 2\n");
  EXPECT_NE(e.find("[cost.gpu.\"H800\"]"), std::string::npos) << e;
  EXPECT_NE(e.find("no cluster of this sweep has this GPU"), std::string::npos) << e;
  // A negative override, an unknown basis, keys of the other basis.
  e = ErrorOf(kTable + "[cost.gpu.\"H100-SXM5-80GB\"]\ngpu_hour_usd = -1\n");
  EXPECT_NE(e.find("gpu_hour_usd"), std::string::npos) << e;
  e = ErrorOf(kTable + "basis = \"lease\"\n");
  EXPECT_NE(e.find("basis"), std::string::npos) << e;
  e = ErrorOf(kTable + "pue = 1.2\n");
  EXPECT_NE(e.find("pue"), std::string::npos) << e;
  EXPECT_NE(e.find("set basis = \"own\""), std::string::npos) << e;
}

}  // namespace
}  // namespace zerosim::study
