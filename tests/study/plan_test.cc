// `zerosim plan` (study/plan_search.h, study/plan_output.h): the best setting of a cluster ranges over every
// variant of the sweep, named as the variant is (issue 20 item 1: an FSDP sweep printed "best ZeRO: ZeRO-3"),
// and each cluster carries its band, with the ranks whose bands overlap (issue 19 item 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/report/evaluate.h"
#include "model/spec/pipeline_split.h"
#include "scratch_dir.h"
#include "study/number_text.h"
#include "study/plan_output.h"
#include "study/plan_search.h"
#include "study/sweep_grid.h"

namespace zerosim::study {
namespace {

const std::string kSource = ZEROSIM_SOURCE_DIR;

// Llama-3.1-70B on 8 or 16 DGX H100 nodes: the shipped strategies scenario's training settings, with
// `variants` (TOML [[variant]] tables) after `[zero] strategy = "<strategy>"`.
std::string Scenario(const std::string& strategy, const std::string& variants) {
  return "name = \"plan test\"\ntopology = \"" + kSource + "/topologies/dgx_h100_8x400g.toml\"\nnodes = 8\n" +
         "model = \"" + kSource + "/scenarios/models/llama3.1_70b.toml\"\n[training]\nseq_len = 4096\n" +
         "tokens_per_gpu = 4096\nactivation_checkpointing = true\n[zero]\nstrategy = \"" + strategy + "\"\n" +
         variants;
}

const char* kSweep = R"(name = "plan test"
base = "s.toml"
train_tokens = 1e12
[axes]
nodes = [8, 16]
"nic.bandwidth" = ["100Gbps", "400Gbps"]
[cost]
gpu_hour_usd = 2.5
)";

class PlanTest : public testing::ScratchDirTest {
 protected:
  PlanTest() : ScratchDirTest("plan") {}
  Plan PlanOf(const std::string& scenario, const PlanOptions& o = {}) {
    Write("s.toml", scenario);
    Write("p.sweep.toml", kSweep);
    StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), Path("p.sweep.toml"));
    EXPECT_TRUE(s.ok()) << s.status().message();
    spec_ = *s;
    StatusOr<Plan> p = PlanSweep(spec_, o);
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }
  io::SweepSpec spec_;
};

TEST_F(PlanTest, AnFsdpSweepsBestSettingIsNamedAsItsVariant) {
  const Plan plan = PlanOf(Scenario("fsdp_full_shard", "[[variant]]\nname = \"FSDP\"\n[[variant]]\n"
                                                       "name = \"HSDP-32\"\nstrategy = \"fsdp_hybrid_shard\"\n"
                                                       "hsdp_shard_size = 32\n"));
  ASSERT_EQ(plan.choices.size(), 4u);
  for (const PlanChoice& c : plan.choices) {
    EXPECT_TRUE(c.best.name == "FSDP" || c.best.name == "HSDP-32") << c.cluster << ": " << c.best.name;
    EXPECT_NE(c.best.zero.strategy, model::Strategy::kZero3) << c.cluster;
    EXPECT_EQ(c.baseline, "FSDP");
    EXPECT_TRUE(c.baseline_fits);
  }
  const std::string table = FormatPlan(spec_, plan, {}, 20);
  EXPECT_EQ(table.find("ZeRO"), std::string::npos) << table;
  EXPECT_NE(table.find("vs FSDP"), std::string::npos) << table;
}

// ZeRO-3 (with every ZeRO++ setting), FSDP and HSDP in one sweep: each cluster's best is the fastest of all of
// them, FSDP's included (on 400 Gbps it beats every ZeRO-3 setting).
TEST_F(PlanTest, TheBestSettingRangesOverEveryVariantOfTheSweep) {
  const Plan plan = PlanOf(Scenario("zero3", "[[variant]]\nname = \"ZeRO-3\"\n[[variant]]\nname = \"FSDP\"\n"
                                             "strategy = \"fsdp_full_shard\"\n[[variant]]\nname = \"HSDP-32\"\n"
                                             "strategy = \"fsdp_hybrid_shard\"\nhsdp_shard_size = 32\n"));
  ASSERT_EQ(plan.choices.size(), 4u);
  std::set<std::string> names;
  for (const PlanChoice& c : plan.choices) {
    names.insert(c.best.name);
    const SweepPoint p = MakePoint(spec_, c.point);
    for (const io::Variant& v : p.variants) {
      const model::VariantReport r =
          model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, p.cluster, p.calibration});
      if (r.feasible) {
        EXPECT_GE(c.best.tokens_per_s, r.tokens_per_s) << c.cluster << ": " << v.name;
      }
    }
  }
  EXPECT_TRUE(names.count("FSDP") == 1 || names.count("HSDP-32") == 1) << "some cluster is best on FSDP";
}

TEST(PlanSettings, EveryVariantAsWrittenFirstThenZeroPlusPlusOnZeroThreeNamedByWhatDiffers) {
  io::Variant z3{"ZeRO-3", {}, {}, {}};
  io::Variant zpp{"ZeRO++", {}, {}, {}};
  zpp.zero.zero_quantized_weights = true;
  zpp.zero.zero_hpz_partition_size = 8;
  zpp.zero.zero_quantized_gradients = true;
  io::Variant fsdp{"FSDP", {}, {}, {}};
  fsdp.zero.strategy = model::Strategy::kFsdpFullShard;
  fsdp.zero.framework = model::Framework::kFsdp;
  model::ClusterSpec c;
  c.nodes = 2;
  c.gpus_per_node = 8;
  const std::vector<io::Variant> variants = {z3, zpp, fsdp};
  const std::vector<PlanSetting> s = PlanSettings(variants, c);
  ASSERT_GE(s.size(), 3u);
  EXPECT_EQ(s[0].name, "ZeRO-3");
  EXPECT_EQ(s[1].name, "ZeRO++");
  EXPECT_EQ(s[2].name, "FSDP");
  // 2 x 2 x 4 ZeRO++ settings of ZeRO-3 (ZeRO++'s own among them, listed once); FSDP gets none.
  EXPECT_EQ(s.size(), 3u + 16u - 2u);
  std::set<std::string> names;
  for (const PlanSetting& x : s) EXPECT_TRUE(names.insert(x.name).second) << x.name << " twice";
  EXPECT_EQ(names.count("ZeRO-3 +hpZ2"), 1u);
  EXPECT_EQ(names.count("ZeRO-3 +qwZ +hpZ8"), 1u);
  EXPECT_EQ(PlanSettingName(zpp, z3.zero), "ZeRO++ -qwZ -hpZ -qgZ");
  model::ZeroConfig hpz2 = zpp.zero;
  hpz2.zero_hpz_partition_size = 2;
  EXPECT_EQ(PlanSettingName(zpp, hpz2), "ZeRO++ hpZ2");
}

// Each cluster's band brackets its expected value; two ranks overlap exactly when their cost-per-token bands
// intersect, both ways; the table prints the band and the overlaps, and the JSON lines carry them.
TEST_F(PlanTest, ClustersCarryTheirBandAndTheRanksWhoseBandsOverlap) {
  const Plan plan = PlanOf(Scenario("fsdp_full_shard", "[[variant]]\nname = \"FSDP\"\n"));
  ASSERT_EQ(plan.ranked.size(), 4u);
  for (size_t r = 0; r < plan.ranked.size(); ++r) {
    const PlanChoice& a = plan.choices[plan.ranked[r]];
    EXPECT_LT(a.tokens_per_s_low, a.best.tokens_per_s);
    EXPECT_GT(a.tokens_per_s_high, a.best.tokens_per_s);
    EXPECT_LT(a.usd_per_million_tokens_low, a.cost.usd_per_million_tokens);
    EXPECT_GT(a.usd_per_million_tokens_high, a.cost.usd_per_million_tokens);
    if (r > 0) {
      EXPECT_LE(plan.choices[plan.ranked[r - 1]].cost.usd_per_million_tokens, a.cost.usd_per_million_tokens)
          << "ranked by the expected value";
    }
    for (size_t q = 0; q < plan.ranked.size(); ++q) {
      if (q == r) continue;
      const PlanChoice& b = plan.choices[plan.ranked[q]];
      const bool intersect = a.usd_per_million_tokens_low <= b.usd_per_million_tokens_high &&
                             b.usd_per_million_tokens_low <= a.usd_per_million_tokens_high;
      const std::vector<int>& o = plan.overlaps[plan.ranked[r]];
      EXPECT_EQ(std::count(o.begin(), o.end(), static_cast<int>(q) + 1), intersect ? 1 : 0) << r << " " << q;
    }
  }
  const std::string table = FormatPlan(spec_, plan, {}, 20);
  EXPECT_NE(table.find("band overlaps"), std::string::npos) << table;
  // Costs as grouped numbers, never "8.08e+05" (issue 20 item 6).
  EXPECT_EQ(table.find("e+"), std::string::npos) << table;
  EXPECT_NE(table.find(GroupedNumber(plan.choices[plan.ranked[0]].cost.cost_to_train_usd)), std::string::npos)
      << table;
  const PlanChoice& first = plan.choices[plan.ranked[0]];
  EXPECT_NE(table.find(fmt::format("{:.3f}-{:.3f}]", first.usd_per_million_tokens_low,
                                   first.usd_per_million_tokens_high)),
            std::string::npos)
      << table;
  const std::string jsonl = PlanJsonl(plan);
  const nlohmann::json line = nlohmann::json::parse(jsonl.substr(0, jsonl.find('\n')));
  EXPECT_EQ(line["tokens_per_s_low"].get<double>(), plan.choices[0].tokens_per_s_low);
  EXPECT_EQ(line["usd_per_million_tokens_high"].get<double>(), plan.choices[0].usd_per_million_tokens_high);
  EXPECT_EQ(line["overlaps"].size(), plan.overlaps[0].size());
  EXPECT_EQ(line["best_setting"], plan.choices[0].best.name);
}

// --search-layout (issue 22 item 6): ZeRO-1 keeps Llama-3.1-70B's 16-bit parameters and gradients whole on
// every GPU (282 GB), which no 80 GB H100 holds; with tensor parallelism each rank holds 1/t of them and with
// a pipeline each stage 1/p, so the plan finds a layout that fits where the variant as written does not.
TEST_F(PlanTest, TheLayoutSearchFindsATensorLayoutWhereDataParallelismDoesNotFit) {
  const std::string scenario = Scenario("zero1", "[[variant]]\nname = \"ZeRO-1\"\n");
  const Plan as_written = PlanOf(scenario);
  EXPECT_TRUE(as_written.choices.empty());
  PlanOptions o;
  o.search_layout = true;
  const Plan plan = PlanOf(scenario, o);
  ASSERT_EQ(plan.choices.size(), 4u);
  for (const PlanChoice& c : plan.choices) {
    EXPECT_GT(c.best.layout.tensor * c.best.layout.pipeline, 1) << c.cluster;
    EXPECT_EQ(c.best.layout.sequence_parallel, c.best.layout.tensor > 1) << c.cluster;
    // Named by its layout, then the batch that trains the variant's run on it (issue 38 item 4: the layout's
    // accumulation is t p times the written one, so that its global batch is the variant's).
    const std::string layout_name = "ZeRO-1" + PlanLayoutName(c.best.layout);
    EXPECT_EQ(c.best.name.substr(0, layout_name.size()), layout_name) << c.cluster;
    EXPECT_EQ(c.best.name.substr(layout_name.size()),
              fmt::format(" b{}x{}", c.best.zero.train_micro_batch_size_per_gpu,
                          c.best.zero.gradient_accumulation_steps))
        << c.cluster;
    EXPECT_EQ(static_cast<int64_t>(c.best.zero.train_micro_batch_size_per_gpu) *
                  c.best.zero.gradient_accumulation_steps * c.best.layout.data_parallel(c.best.gpus),
              static_cast<int64_t>(c.gpus))  // 1 sequence per GPU per step, as written
        << c.cluster;
    EXPECT_FALSE(c.baseline_fits);
    // Every layout that fits, fastest first, the best's first.
    ASSERT_FALSE(c.layouts.empty()) << c.cluster;
    EXPECT_EQ(c.layouts.front().layout, c.best.layout);
    EXPECT_EQ(c.layouts.front().setting, c.best.name);
    for (size_t k = 1; k < c.layouts.size(); ++k) {
      EXPECT_LE(c.layouts[k].tokens_per_s, c.layouts[k - 1].tokens_per_s) << c.cluster;
      EXPECT_FALSE(c.layouts[k].layout == c.layouts[k - 1].layout) << c.cluster;
    }
  }
  // The layouts tried on 4 nodes of 8 GPUs: t in {1, 2, 4, 8} (with SP above 1) x p in {1, 2, 4} x v in {1,
  // 2, 4, 8} (v > 1 with p > 1 only), data parallelism alone (t = p = 1) left out.
  model::ClusterSpec c;
  c.gpus_per_node = 8;
  c.nodes = 4;
  const std::vector<model::ParallelLayout> layouts = PlanLayouts(c);
  EXPECT_EQ(layouts.size(), 3u + 2u * 4u * 4u);  // p = 1: t = 2, 4, 8; p = 2, 4: every t and v
  std::set<std::string> names;
  for (const model::ParallelLayout& l : layouts) {
    EXPECT_EQ(c.nodes % l.pipeline, 0);
    EXPECT_EQ(l.sequence_parallel, l.tensor > 1);
    EXPECT_EQ(l.schedule == model::PipelineSchedule::kInterleaved1F1B, l.virtual_stages > 1);
    names.insert(PlanLayoutName(l));
  }
  EXPECT_EQ(names.size(), layouts.size());
  EXPECT_TRUE(names.count(" TP8 SP") && names.count(" PP4") && names.count(" TP2 SP PP2x2")) << names.size();
  for (const model::ParallelLayout& l : layouts) EXPECT_FALSE(l.tp_comm_overlap);
  // With the stack's TP communication overlap: the same layouts, overlapping wherever there is a tensor group.
  const std::vector<model::ParallelLayout> overlapped = PlanLayouts(c, /*tp_comm_overlap=*/true);
  ASSERT_EQ(overlapped.size(), layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    EXPECT_EQ(overlapped[i].tp_comm_overlap, layouts[i].tensor > 1);
    EXPECT_EQ(overlapped[i].tensor, layouts[i].tensor);
    EXPECT_EQ(overlapped[i].pipeline, layouts[i].pipeline);
  }
  EXPECT_EQ(PlanLayoutName(overlapped.back()).find(" overlap") != std::string::npos, overlapped.back().tensor > 1);
  // An MoE model of 8 experts: data parallelism alone and each layout again with e = 2, 4, 8.
  const std::vector<model::ParallelLayout> moe = PlanLayouts(c, false, /*experts=*/8);
  EXPECT_EQ(moe.size(), layouts.size() + 3u * (layouts.size() + 1u));
  std::set<std::string> moe_names;
  for (const model::ParallelLayout& l : moe) moe_names.insert(PlanLayoutName(l));
  EXPECT_EQ(moe_names.size(), moe.size());
  EXPECT_TRUE(moe_names.count(" EP8") && moe_names.count(" PP2 EP4") && moe_names.count(" TP2 SP EP2"));
  // Folded: the TP2 layouts' e = 2 is dropped (e >= 4), e = 4 and 8 fold the expert grid; nothing else moves.
  const std::vector<model::ParallelLayout> folded = PlanLayouts(c, false, 8, 1, 0, /*fold_experts=*/true);
  size_t tp2 = 0;
  for (const model::ParallelLayout& l : layouts) tp2 += l.tensor == 2 ? 1 : 0;
  EXPECT_EQ(folded.size(), moe.size() - tp2);
  for (const model::ParallelLayout& l : folded) {
    EXPECT_EQ(l.expert_folded(), l.tensor == 2 && l.expert > 1) << PlanLayoutName(l);
  }
  std::set<std::string> folded_names;
  for (const model::ParallelLayout& l : folded) folded_names.insert(PlanLayoutName(l));
  EXPECT_TRUE(folded_names.count(" TP2 SP EP4 ETP1") && !folded_names.count(" TP2 SP EP2"));
  // A long sequence: data parallelism alone and each layout again with c = 2, 4, 8.
  const std::vector<model::ParallelLayout> cp = PlanLayouts(c, false, 0, /*max_context=*/8);
  EXPECT_EQ(cp.size(), layouts.size() + 3u * (layouts.size() + 1u));
  std::set<std::string> cp_names;
  for (const model::ParallelLayout& l : cp) cp_names.insert(PlanLayoutName(l));
  EXPECT_EQ(cp_names.size(), cp.size());
  EXPECT_TRUE(cp_names.count(" CP8") && cp_names.count(" TP2 SP CP4") && cp_names.count(" PP2 CP2"));
  // A model of 30 layers: p v = 4 and 8 do not divide them, but with the embedding and the loss counted 32
  // units do, so those pipelines count them (Megatron-Core's split); p v = 2 divides 30 and keeps the even
  // split.
  const std::vector<model::ParallelLayout> uneven = PlanLayouts(c, false, 0, 1, /*layers=*/30);
  ASSERT_EQ(uneven.size(), layouts.size());
  for (const model::ParallelLayout& l : uneven) {
    const int chunks = l.pipeline * l.virtual_stages;
    EXPECT_EQ(model::CountsEmbeddingOrLoss(l), l.pipeline > 1 && 30 % chunks != 0) << PlanLayoutName(l);
    EXPECT_TRUE(l.account_for_embedding_in_pipeline_split == l.account_for_loss_in_pipeline_split);
  }
  std::set<std::string> uneven_names;
  for (const model::ParallelLayout& l : uneven) uneven_names.insert(PlanLayoutName(l));
  EXPECT_TRUE(uneven_names.count(" PP4+E+L") && uneven_names.count(" PP2x2+E+L") &&
              uneven_names.count(" PP2"));
  // The JSON lines carry the layout.
  const std::string jsonl = PlanJsonl(plan);
  const nlohmann::json line = nlohmann::json::parse(jsonl.substr(0, jsonl.find('\n')));
  EXPECT_EQ(line["tensor"], plan.choices[0].best.layout.tensor);
  EXPECT_EQ(line["pipeline"], plan.choices[0].best.layout.pipeline);
  EXPECT_EQ(line["context"], plan.choices[0].best.layout.context);
  EXPECT_EQ(line["pipeline_split_counts_embedding_and_loss"],
            model::CountsEmbeddingOrLoss(plan.choices[0].best.layout));
  ASSERT_EQ(line["layouts"].size(), plan.choices[0].layouts.size());
  EXPECT_EQ(line["layouts"][0]["setting"], plan.choices[0].best.name);
  // The runner-up, where another layout fits (the most GPUs leave room for more than one): no faster than the
  // best, and in the JSON line of its cluster.
  const PlanChoice& last = plan.choices.back();
  ASSERT_TRUE(last.has_runner_up) << last.cluster;
  EXPECT_NE(last.runner_up.name, last.best.name);
  EXPECT_LE(last.runner_up.tokens_per_s, last.best.tokens_per_s);
  EXPECT_NE(jsonl.find("\"runner_up_setting\":\"" + last.runner_up.name + "\""), std::string::npos);
}

// A target global batch is the run asked about: settings that cannot train it (64 or 128 data-parallel
// ranks for 32 sequences) are not candidates, so the plan picks among layouts with at most 32 replicas.
TEST_F(PlanTest, EverySettingOfAPlanTrainsTheTargetGlobalBatch) {
  PlanOptions o;
  o.search_layout = true;
  o.search_batch = true;
  o.global_batch = 32;
  const Plan plan = PlanOf(Scenario("zero3",
                                    "[[variant]]\nname = \"ZeRO-3\"\n[[variant]]\nname = \"ZeRO-1\"\n"
                                    "strategy = \"zero1\"\n"),
                           o);
  ASSERT_EQ(plan.choices.size(), 4u);
  for (const PlanChoice& c : plan.choices) {
    const model::VariantReport& b = c.best;
    const int d = b.layout.data_parallel(b.gpus);
    EXPECT_LE(d, 32) << c.cluster;
    EXPECT_EQ(b.zero.train_micro_batch_size_per_gpu * b.zero.gradient_accumulation_steps * d, 32)
        << c.cluster;
    EXPECT_NEAR(b.tokens_per_s * b.iteration_time_s, 32.0 * 4096, 1e-6 * 32 * 4096) << c.cluster;
    EXPECT_FALSE(c.baseline_fits) << c.cluster;  // ZeRO-3 over every GPU trains 64 or 128 sequences
    for (const PlanLayoutBest& l : c.layouts) EXPECT_LE(l.layout.data_parallel(b.gpus), 32) << l.setting;
  }
}

TEST(PlanContext, AContextParallelLayoutTrainsTheWrittenBatchWithCTimesTheAccumulation) {
  // The shipped long-context sweep (Llama 3.1 8B at 128K, written as 1 sequence per GPU per step): every
  // layout, context-parallel ones with t = p = 1 included, trains the same P sequences per step, its P / (t p
  // c) sequence replicas taking the accumulation (a CP4 layout on 32 GPUs: 8 replicas x 4 steps). Before, a
  // context-only layout kept the written accumulation and trained a c times smaller batch (and a c that does
  // not divide P / (t p) divided by zero).
  StatusOr<io::SweepSpec> s =
      LoadSweep(io::DiskFileSource(), kSource + "/scenarios/procurement/llama3_8b_128k_layouts.sweep.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  PlanOptions o;
  o.search_layout = true;
  StatusOr<Plan> plan = PlanSweep(*s, o);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_FALSE(plan->choices.empty());
  for (const PlanChoice& c : plan->choices) {
    const model::VariantReport& b = c.best;
    EXPECT_GT(b.layout.context, 1) << c.cluster;  // 128K tokens: a context-parallel layout wins
    EXPECT_EQ(static_cast<int64_t>(b.zero.train_micro_batch_size_per_gpu) *
                  b.zero.gradient_accumulation_steps * b.layout.batch_parallel(b.gpus),
              static_cast<int64_t>(b.gpus))
        << c.cluster;
    EXPECT_NEAR(b.tokens_per_s * b.iteration_time_s, b.gpus * 131072.0, 1e-6 * b.gpus * 131072.0)
        << c.cluster;
  }
}

}  // namespace
}  // namespace zerosim::study
