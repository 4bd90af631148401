// `zerosim plan <sweep.toml> [--budget-usd X] [--target-days D] [--top N]
//                [--search-batch [--global-batch N]] [--jsonl FILE]`
//
// Wiring for study/plan_search.h: for each cluster configuration of a sweep (its axes), the best ZeRO
// setting (qwZ on or off, qgZ on or off, every hpZ partition size that divides the GPUs per node) that
// fits in HBM, the clusters ranked (under a budget, by time to train; under a target time, by cost;
// otherwise by cost per million tokens). Prints the ranking and the Pareto front of throughput against
// cost per token. With --search-batch every setting runs at its largest micro-batch that fits (and the
// accumulation for --global-batch), so hpZ's secondary copy or qgZ's buffers cost batch size, not
// feasibility.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "model/io/sweep.h"
#include "study/json_line.h"
#include "study/plan_search.h"
#include "study/sweep_grid.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

std::string Duration(double s) {
  if (s <= 0) return "-";
  if (s >= 86400) return fmt::format("{:.1f} d", s / 86400);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

int PlanCommand(int argc, char** argv) {
  std::string file;
  double budget_usd = 0, target_days = 0;
  int top = 20;
  bool search_batch = false;
  int64_t global_batch = 0;
  std::string jsonl;
  po::options_description opts(
      "usage: zerosim plan <sweep.toml> [options]\n\n"
      "Ranks the cluster configurations of a sweep (its axes; ZeRO axes are not allowed: plan chooses the\n"
      "ZeRO setting itself) with the best ZeRO setting for each, under the HBM limit, and prints the Pareto\n"
      "front of throughput against cost per token. The sweep needs [cost]; `train_tokens` gives the time and\n"
      "cost of a training run.\n\noptions");
  opts.add_options()("help,h", "print this help")
      ("budget-usd", po::value<double>(&budget_usd)->value_name("X"), "keep clusters that train within X USD; rank by time")
      ("target-days", po::value<double>(&target_days)->value_name("D"), "keep clusters that train within D days; rank by cost")
      ("top", po::value<int>(&top)->value_name("N"), "rows of the ranking to print (default 20)")
      ("search-batch", po::bool_switch(&search_batch),
       "run each ZeRO setting at the largest micro-batch that fits HBM (model/batch_search.h): memory a "
       "setting spends or frees shows as batch size")
      ("global-batch", po::value<int64_t>(&global_batch)->value_name("N"),
       "with --search-batch: the target global batch in sequences per optimizer step (sets the "
       "accumulation)")
      ("jsonl", po::value<std::string>(&jsonl)->value_name("FILE"),
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
  if (global_batch != 0 && (!search_batch || global_batch < 0)) {
    fmt::print(stderr,
               "zerosim plan: --global-batch needs --search-batch and a positive number of sequences\n");
    return kExitUsage;
  }
  if (top < 1) {
    fmt::print(stderr, "zerosim plan: --top must be at least 1, got {}\n", top);
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
    if (a.key.rfind("zero_", 0) == 0) {
      fmt::print(stderr, "zerosim plan: axis '{}': plan chooses the ZeRO setting itself; remove ZeRO axes\n", a.key);
      return kExitUsage;
    }
  }

  study::PlanOptions plan_options;
  plan_options.budget_usd = budget_usd;
  plan_options.target_days = target_days;
  plan_options.search_batch = search_batch;
  plan_options.global_batch = global_batch;
  StatusOr<study::Plan> plan = study::PlanSweep(*spec, plan_options);
  if (!plan.ok()) {
    fmt::print(stderr, "zerosim plan: error: {}\n", plan.status().message());
    return kExitFailed;
  }
  const std::vector<study::PlanChoice>& choices = plan->choices;
  const int infeasible = plan->infeasible;

  std::string out = fmt::format(
      "plan '{}': {} cluster configurations ({} cannot train this model), {} kept{}\n\n", spec->name,
      choices.size() + static_cast<size_t>(infeasible), infeasible, plan->ranked.size(),
      budget_usd > 0    ? fmt::format(" under a budget of {:.3g} USD, fastest first", budget_usd)
      : target_days > 0 ? fmt::format(" within {:g} days, cheapest first", target_days)
                        : ", cheapest per token first");
  auto header = [] {
    return fmt::format("{:>4}  {:<58} {:<16} {:>7} {:>11} {:>8} {:>10} {:>9} {:>11}\n", "rank", "cluster",
                       "best ZeRO", "TFLOPs", "tokens/s", "vs Z3", "USD/Mtok", "train", "train USD");
  };
  auto row = [](const std::string& rank, const study::PlanChoice& c) {
    const std::string gain = c.zero3_tokens_per_s > 0 ? fmt::format("{:.2f}x", c.best.tokens_per_s / c.zero3_tokens_per_s)
                                                      : "Z3 OOM";
    return fmt::format("{:>4}  {:<58} {:<16} {:>7.1f} {:>11.0f} {:>8} {:>10.3f} {:>9} {:>11.3g}\n", rank,
                       c.cluster.substr(0, 58), c.best.name, c.best.tflops_per_gpu, c.best.tokens_per_s, gain,
                       c.cost.usd_per_million_tokens, Duration(c.cost.time_to_train_s),
                       c.cost.cost_to_train_usd);
  };
  out += header();
  for (size_t i = 0; i < plan->ranked.size() && static_cast<int>(i) < top; ++i) {
    out += row(std::to_string(i + 1), choices[plan->ranked[i]]);
  }

  out += "\nPareto front (no other configuration is both faster and cheaper per token), cheapest first:\n";
  out += header();
  for (int i : plan->front) out += row("*", choices[static_cast<size_t>(i)]);
  if (!Print("plan", out)) return kExitFailed;
  if (!jsonl.empty()) {
    // Rank: the position in the printed ranking (0: filtered out by the budget or target); pareto: on the
    // front above. The same numbers as the table, so plots and the table cannot disagree.
    std::vector<bool> on_front(choices.size(), false);
    for (int i : plan->front) on_front[static_cast<size_t>(i)] = true;
    std::string text;
    for (size_t i = 0; i < choices.size(); ++i) {
      const study::PlanChoice& c = choices[i];
      study::JsonLine axes;
      for (const auto& [k, v] : c.axes) axes.Add(k, v);
      study::JsonLine line;
      line.Add("point", c.point).Add("axes", axes).Add("cluster", c.cluster).Add("best_setting", c.best.name);
      line.Add("tflops_per_gpu", c.best.tflops_per_gpu).Add("tokens_per_s", c.best.tokens_per_s);
      line.Add("zero3_tokens_per_s", c.zero3_tokens_per_s);
      line.Add("usd_per_million_tokens", c.cost.usd_per_million_tokens);
      line.Add("time_to_train_s", c.cost.time_to_train_s).Add("cost_to_train_usd", c.cost.cost_to_train_usd);
      line.Add("rank", plan->rank_of[i]).Add("pareto", static_cast<bool>(on_front[i]));
      text += line.str() + "\n";
    }
    if (!WriteTextFile(jsonl, text)) {
      fmt::print(stderr, "zerosim plan: cannot write {}\n", jsonl);
      return kExitFailed;
    }
  }
  return plan->ranked.empty() ? kExitFailed : kExitOk;
}

}  // namespace zerosim::cli
