// `zerosim plan <sweep.toml> [--budget-usd X] [--target-days D] [--top N]
//                [--search-batch [--global-batch N]] [--search-layout] [--jsonl FILE]`
//
// Wiring for study/plan_search.h and study/plan_output.h: for each cluster configuration of a sweep (its
// axes), the best setting that fits in HBM among every variant of the sweep (ZeRO, FSDP, HSDP, ... as
// written, and each ZeRO-3 variant with every ZeRO++ setting), the clusters ranked by the expected value
// (under a budget, by time to train; under a target time, by cost; otherwise by cost per million tokens) with
// their bands and the ranks whose bands overlap. Prints the ranking and the Pareto front of throughput
// against cost per token. With --search-batch every setting runs at its largest micro-batch that fits (and
// the accumulation for --global-batch), so hpZ's secondary copy or qgZ's buffers cost batch size, not
// feasibility.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "model/io/sweep.h"
#include "model/spec/feasibility.h"
#include "study/plan_output.h"
#include "study/plan_search.h"
#include "study/plan_target.h"
#include "study/sweep_grid.h"

namespace zerosim::cli {

namespace po = boost::program_options;

int PlanCommand(int argc, char** argv) {
  std::string file;
  double budget_usd = 0, target_days = 0;
  int top = 20;
  bool search_batch = false;
  bool search_layout = false, tp_comm_overlap = false, fold_experts = false;
  bool no_goodput = false;
  bool quiet = false;
  int64_t global_batch = kNoGlobalBatch;
  std::string jsonl;
  po::options_description opts(
      "usage: zerosim plan <sweep.toml> [options]\n\n"
      "Ranks the cluster configurations of a sweep (its axes; ZeRO axes are not allowed: plan chooses the\n"
      "ZeRO++ setting itself) with the best setting for each among every variant of the sweep (and each\n"
      "ZeRO-3 variant with every ZeRO++ setting), under the HBM limit, with each cluster's band and the\n"
      "clusters whose bands overlap, and prints the Pareto front of throughput against cost per token. The\n"
      "sweep needs [cost] (a price per GPU-hour or capital expense, for every GPU or per GPU kind from a price\n"
      "table: `prices = \"prices/gpu_prices.toml\"`); `train_tokens` gives the days, GPU-hours and cost of a\n"
      "run, with goodput (interruptions, restarts, checkpoints; [goodput]) beside the ideal days. When no\n"
      "cluster meets --target-days, plan gives per candidate the smallest size that would (docs/sweeps.md).\n\noptions");
  opts.add_options()("help,h", "print this help")("budget-usd",
                                                  po::value<double>(&budget_usd)->value_name("X"),
                                                  "keep clusters that train within X USD; rank by time")(
      "target-days", po::value<double>(&target_days)->value_name("D"),
      "keep clusters that train within D days; rank by cost")("top", po::value<int>(&top)->value_name("N"),
                                                              "rows of the ranking to print (default 20)")(
      "search-batch", po::bool_switch(&search_batch),
      "run each ZeRO setting at the largest micro-batch that fits HBM (model/report/batch_search.h): memory "
      "a "
      "setting spends or frees shows as batch size")(
      "search-layout", po::bool_switch(&search_layout),
      "also try each variant with tensor parallelism (t = 2, 4, ... up to a node, with sequence "
      "parallelism) and pipelines (p = 2, 4, ... dividing the nodes, 1F1B and interleaved), and an MoE "
      "model with expert parallelism (e = 2, 4, ... dividing its experts; study/plan_search.h "
      "PlanLayouts): the best layout per cluster")(
      "tp-comm-overlap", po::bool_switch(&tp_comm_overlap),
      "with --search-layout: the searched tensor-parallel layouts overlap their TP communication with the "
      "GEMMs (Megatron-Core's --tp-comm-overlap, torchtitan's async TP; docs/inputs.md tp_comm_overlap)")(
      "fold-experts", po::bool_switch(&fold_experts),
      "with --search-layout: an MoE model's layouts of tensor parallelism 2 also with the expert grid folded "
      "(expert_tensor = 1, e >= 4: Megatron-Core's MoE parallel folding; docs/inputs.md expert_tensor); "
      "about 3x "
      "the plan's time")(
      "global-batch", po::value<int64_t>(&global_batch)->value_name("N"),
      "with --search-batch: the target global batch in sequences per optimizer step (sets the "
      "accumulation; a setting that cannot train exactly N is not a candidate)")(
      "quiet,q", po::bool_switch(&quiet),
      "no progress display on stderr (shown for a plan running over a second)")(
      "no-goodput", po::bool_switch(&no_goodput),
      "days, GPU-hours and cost as if every hour trained: no interruptions, restarts or checkpoints (by "
      "default "
      "they carry the sweep's [goodput], or the Llama 3 paper's rates; model/spec/goodput.h)")(
      "jsonl", po::value<std::string>(&jsonl)->value_name("FILE"),
      "also write every cluster that can train the model as one JSON line (its axes, best setting, "
      "throughput, cost, rank and whether it is on the Pareto front; docs/sweeps.md), for plots");
  po::options_description hidden;
  hidden.add_options()("sweep", po::value<std::string>(&file));
  po::positional_options_description pos;
  pos.add("sweep", 1);
  if (std::optional<int> stop = ParseCommandLine("plan", argc, argv, opts, &hidden, &pos)) return *stop;
  if (file.empty()) {
    fmt::print(stderr, "zerosim plan: name a sweep file (see --help)\n");
    return kExitUsage;
  }
  // 0 (the default) means "no limit"; anything else must be a real limit.
  if (!(std::isfinite(budget_usd) && budget_usd >= 0) || !(std::isfinite(target_days) && target_days >= 0)) {
    fmt::print(stderr, "zerosim plan: --budget-usd and --target-days must be positive numbers (got {:g} and {:g})\n",
               budget_usd, target_days);
    return kExitUsage;
  }
  if (global_batch != kNoGlobalBatch && (!search_batch || global_batch < 1)) {
    fmt::print(stderr,
               "zerosim plan: error: --global-batch needs --search-batch and a positive number of sequences "
               "(got {})\n",
               global_batch);
    return kExitUsage;
  }
  if (top < 1) {
    fmt::print(stderr, "zerosim plan: --top must be at least 1, got {}\n", top);
    return kExitUsage;
  }
  if (fold_experts && !search_layout) {
    fmt::print(stderr,
               "zerosim plan: --fold-experts applies to the layouts --search-layout tries: give both, or "
               "set [parallel] expert_tensor in the scenario\n");
    return kExitUsage;
  }
  if (tp_comm_overlap && !search_layout) {
    fmt::print(stderr, "zerosim plan: --tp-comm-overlap applies to the layouts --search-layout tries: give both, or "
                       "set [parallel] tp_comm_overlap in the scenario\n");
    return kExitUsage;
  }
  StatusOr<io::SweepSpec> spec = study::LoadSweep(io::DiskFileSource(), file);
  if (!spec.ok()) {
    fmt::print(stderr, "zerosim plan: error: {}\n", spec.status().message());
    return kExitUsage;
  }
  if (!spec->has_price) {
    fmt::print(stderr, "zerosim plan: {} has no [cost] table: plan ranks by cost\n", file);
    return kExitUsage;
  }
  if ((budget_usd > 0 || target_days > 0) && spec->train_tokens <= 0) {
    fmt::print(stderr, "zerosim plan: --budget-usd and --target-days need `train_tokens` in {}\n", file);
    return kExitUsage;
  }
  for (const io::Axis& a : spec->axes) {
    // --search-layout tries every layout itself: a layout axis would be overwritten by each of its layouts.
    const bool layout_axis =
        a.key == "tensor" || a.key == "pipeline" || a.key == "sequence_parallel" || a.key == "virtual_stages" ||
        a.key == "tp_comm_overlap";
    if (search_layout && layout_axis) {
      fmt::print(
          stderr,
          "zerosim plan: error: {}: [axes] {}: --search-layout chooses the layout itself; remove the axis or "
          "drop --search-layout\n",
          file, a.key);
      return kExitUsage;
    }
    if (a.key.rfind("zero_", 0) == 0) {
      fmt::print(
          stderr,
          "zerosim plan: error: {}: [axes] {}: plan chooses the ZeRO setting itself; remove ZeRO axes\n",
          file, a.key);
      return kExitUsage;
    }
  }

  study::PlanOptions plan_options;
  plan_options.budget_usd = budget_usd;
  plan_options.target_days = target_days;
  plan_options.search_batch = search_batch;
  plan_options.search_layout = search_layout;
  plan_options.tp_comm_overlap = tp_comm_overlap;
  plan_options.fold_experts = fold_experts;
  plan_options.goodput = !no_goodput;
  plan_options.progress = !quiet;
  plan_options.global_batch = global_batch == kNoGlobalBatch ? 0 : global_batch;
  StatusOr<study::Plan> plan = study::PlanSweep(*spec, plan_options);
  if (!plan.ok()) {
    fmt::print(stderr, "zerosim plan: error: {}\n", plan.status().message());
    return kExitFailed;
  }
  if (!Print("plan", study::FormatPlan(*spec, *plan, plan_options, top))) return kExitFailed;
  if (!jsonl.empty()) {
    if (Status st = WriteOutputFile(jsonl, study::PlanJsonl(*plan)); !st.ok()) {
      fmt::print(stderr, "zerosim plan: error: {}\n", st.message());
      return kExitFailed;
    }
  }
  if (plan->ranked.empty() && target_days > 0 && budget_usd <= 0 && !plan->choices.empty()) {
    // A target nobody meets is still a question with an answer: per candidate the size that would meet it, or
    // the days at the largest size searched (study/plan_target.h).
    StatusOr<std::vector<study::TargetAnswer>> answers = study::SizesForTarget(*spec, *plan, plan_options);
    if (!answers.ok()) {
      fmt::print(stderr, "zerosim plan: error: {}\n", answers.status().message());
      return kExitFailed;
    }
    if (!Print("plan", study::FormatTargetAnswers(*answers, target_days))) return kExitFailed;
    return kExitOk;
  }
  if (plan->ranked.empty()) {
    // The table says "0 kept"; stderr says why, so that exit status 1 never comes without a message.
    std::string why;
    if (!plan->choices.empty()) {
      why = budget_usd > 0 ? fmt::format("no cluster trains within --budget-usd {:g}", budget_usd)
                           : fmt::format("no cluster trains within --target-days {:g}", target_days);
    } else if (plan_options.global_batch > 0) {
      why = fmt::format(
          "no cluster configuration of {} can train exactly --global-batch {} sequences per step: none is a "
          "micro-batch that fits x an accumulation of at most {} steps x the data-parallel size",
          file, global_batch, model::kMaxGradientAccumulation);
    } else {
      why = fmt::format(
          "no cluster configuration of {} can train the model (each is infeasible; see the table)", file);
    }
    fmt::print(stderr, "zerosim plan: error: {}\n", why);
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace zerosim::cli
