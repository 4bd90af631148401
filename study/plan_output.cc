#include "study/plan_output.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "model/report/evaluate.h"
#include "model/spec/pipeline_split.h"
#include "model/spec/strategy.h"
#include "study/json_line.h"
#include "study/number_text.h"

namespace zerosim::study {
namespace {

// Days with one decimal, "-" for none.
std::string Days(double s) { return s <= 0 ? "-" : fmt::format("{:.1f}", s / 86400); }

// Model TFLOP/s per GPU of the headline (the MFU's numerator: (6 N + 12 l h s) FLOPs per token, no recompute; PaLM,
// Chowdhery et al. 2022 app. B; model/report/evaluate.h ModelFlopsPerToken), where TFLOPs counts what the GPUs
// execute (recompute included, Megatron's count).
double ModelTflopsPerGpu(const PlanChoice& c) {
  return model::HeadlineModelTflopsPerGpu(c.best, model::ModelFlopsPerToken(c.best.model));
}

// Ascending ranks as runs: {2, 3, 4, 7} -> "2-4,7"; "-" for none.
std::string RankRuns(const std::vector<int>& ranks) {
  if (ranks.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

// The plan's table: one row per cluster with the widths of the printed names.
class PlanTable {
 public:
  PlanTable(const Plan& plan, const std::vector<size_t>& printed) : plan_(plan) {
    for (size_t i : printed) {
      cluster_width_ = std::max(cluster_width_, plan.choices[i].label.size());
      setting_width_ = std::max(setting_width_, plan.choices[i].best.name.size());
    }
    cluster_width_ = std::min<size_t>(cluster_width_, 58);
    setting_width_ = std::min<size_t>(setting_width_, 40);
    if (!plan.choices.empty()) baseline_ = plan.choices.front().baseline;
  }

  std::string Header() const {
    return fmt::format(
        "{:>4} {:>5}  {:<{}} {:>6} {:>9}  {:<{}} {:>7} {:>6} {:>8} {:>11} {:<21} {:>9} {:>8} {:<15} {:>7} {:<15} "
        "{:>7} {:>7} {:>8} {:>11}  {}\n",
        "rank", "days#", "cluster", cluster_width_, "GPUs", "USD/GPU-h", "best setting", setting_width_, "TFLOPs",
        "MFU", "model TF", "tokens/s", " band", ("vs " + baseline_).substr(0, 9), "USD/Mtok", " band", "days", " band", "ideal",
        "goodput", "M GPU-h", "train USD", "band overlaps");
  }

  std::string Row(size_t i) const {
    const PlanChoice& c = plan_.choices[i];
    const int rank = plan_.rank_of[i];
    const int days_rank = plan_.days_rank_of[i];
    const std::string gain =
        c.baseline_fits ? fmt::format("{:.2f}x", c.best.tokens_per_s / c.baseline_tokens_per_s) : "-";
    const std::string tokens_band =
        fmt::format("[{}-{}]", GroupedNumber(c.tokens_per_s_low), GroupedNumber(c.tokens_per_s_high));
    const std::string cost_band =
        fmt::format("[{:.3f}-{:.3f}]", c.usd_per_million_tokens_low, c.usd_per_million_tokens_high);
    const bool timed = c.cost.time_to_train_s > 0;
    const std::string days_band =
        timed ? fmt::format("[{:.1f}-{:.1f}]", c.time_to_train_s_low / 86400, c.time_to_train_s_high / 86400) : "";
    return fmt::format(
        "{:>4} {:>5}  {:<{}} {:>6} {:>9.2f}  {:<{}} {:>7.1f} {:>6} {:>8.1f} {:>11} {:<21} {:>9} {:>8.3f} {:<15} {:>7} "
        "{:<15} {:>7} {:>7} {:>8} {:>11}  {}\n",
        rank > 0 ? std::to_string(rank) : "-", days_rank > 0 ? std::to_string(days_rank) : "-",
        c.label.substr(0, cluster_width_), cluster_width_, GroupedNumber(static_cast<double>(c.gpus)),
        c.usd_per_gpu_hour, c.best.name.substr(0, setting_width_), setting_width_,
        c.best.tflops_per_gpu * c.best.band.center, fmt::format("{:.1f}%", 100 * c.best.mfu * c.best.band.center),
        ModelTflopsPerGpu(c), GroupedNumber(c.best.tokens_per_s * c.best.band.center),
        tokens_band, gain, c.cost.usd_per_million_tokens, cost_band, Days(c.cost.time_to_train_s), days_band,
        Days(c.ideal_cost.time_to_train_s), fmt::format("{:.1f}%", 100 * c.goodput.goodput),
        timed ? fmt::format("{:.2f}", c.gpu_hours / 1e6) : "-",
        c.cost.cost_to_train_usd > 0 ? GroupedNumber(c.cost.cost_to_train_usd) : "-",
        rank > 0 ? RankRuns(plan_.overlaps[i]) : "-");
  }

 private:
  const Plan& plan_;
  size_t cluster_width_ = 7;   // "cluster"
  size_t setting_width_ = 12;  // "best setting"
  std::string baseline_;
};

// One line per GPU kind among `rows`: its price and where the price comes from.
std::string PriceLegend(const Plan& plan, const std::vector<size_t>& rows) {
  std::map<std::string, std::string> seen;
  for (size_t i : rows) {
    const PlanChoice& c = plan.choices[i];
    const std::string from = c.price_source.empty() ? "" : " (" + c.price_source + ")";
    seen.emplace(c.gpu, c.rented ? fmt::format("{:.2f} USD per GPU-hour{}", c.usd_per_gpu_hour, from)
                                 : fmt::format("owned, {} USD per GPU{}, amortised with its share of NICs, switch "
                                               "ports and power (USD/GPU-h)",
                                               GroupedNumber(c.capex_per_gpu_usd), from));
  }
  std::string out = "\nprices:\n";
  for (const auto& [gpu, price] : seen) out += fmt::format("  {}: {}\n", gpu, price);
  return out;
}

}  // namespace

std::string FormatPlan(const io::SweepSpec& spec, const Plan& plan, const PlanOptions& o, int top) {
  const std::vector<PlanChoice>& choices = plan.choices;
  std::string out = fmt::format(
      "plan '{}': {} cluster configurations ({} cannot train this model), {} kept{}\n\n", spec.name,
      choices.size() + static_cast<size_t>(plan.infeasible), plan.infeasible, plan.ranked.size(),
      o.budget_usd > 0    ? fmt::format(" under a budget of {} USD, fastest first", GroupedNumber(o.budget_usd))
      : o.target_days > 0 ? fmt::format(" within {:g} days, cheapest first", o.target_days)
                          : ", cheapest per token first");
  std::vector<size_t> printed;
  for (size_t i = 0; i < plan.ranked.size() && static_cast<int>(i) < top; ++i) printed.push_back(plan.ranked[i]);
  std::vector<size_t> front;
  for (int i : plan.front) front.push_back(static_cast<size_t>(i));
  std::vector<size_t> all = printed;
  all.insert(all.end(), front.begin(), front.end());
  const PlanTable table(plan, all);

  out += table.Header();
  for (size_t i : printed) out += table.Row(i);
  const std::string by = o.budget_usd > 0 ? "tokens/s" : "USD/Mtok";
  out += fmt::format(
      "\nranked by the expected value (TFLOPs, tokens/s and cost: the model's value, times the band's median "
      "where the band\nexcludes it); band: where the validation group's published runs lay out of sample (5th-95th "
      "percentile of\npublished / simulated, model/report/band.h); band overlaps: the ranks whose {} band "
      "intersects this one's:\nthe ranking between them is not resolved. vs {}: the sweep's first variant "
      "as written ('-': it does not fit). days#: the rank by time to train (fastest first).\nTFLOPs: what the GPUs "
      "execute per second (recompute included); model TF: the model's (6 N + 12 l h s) FLOPs per token x tokens/s "
      "per GPU\n(PaLM's count, no recompute); MFU: model TF over the GPU's dense BF16 peak, FP8 runs included (the "
      "convention of published MFUs).\n",
      by, plan.choices.empty() ? std::string() : plan.choices.front().baseline);
  out += PriceLegend(plan, all);
  const model::GoodputOptions& g = spec.goodput;
  out += !(g.enabled && o.goodput)
             ? "\ngoodput off: days, GPU-hours and cost as if every hour trained (the ideal figures)\n"
             : fmt::format(
                   "\ndays, M GPU-hours and train USD with goodput, the share of the time that trains "
                   "(model/spec/goodput.h): {:.3g}\ninterruptions per GPU-hour, a restart of {:g} min, "
                   "checkpoints at Young's interval written at {:g} MB/s per GPU;\nideal: every hour training "
                   "(--no-goodput, or [goodput] enabled = false in the sweep, prints only these)\n",
                   g.interruptions_per_gpu_hour, g.restart_s / 60, g.checkpoint_write_Bps_per_gpu / 1e6);

  out += "\nPareto front (no other configuration is both faster and cheaper per token), cheapest first:\n";
  out += table.Header();
  for (size_t i : front) out += table.Row(i);
  return out;
}

std::string PlanJsonl(const Plan& plan) {
  // Rank: the position in the printed ranking (0: filtered out by the budget or target); pareto: on the front.
  // The same numbers as the table, so plots and the table cannot disagree.
  std::vector<bool> on_front(plan.choices.size(), false);
  for (int i : plan.front) on_front[static_cast<size_t>(i)] = true;
  std::string text;
  for (size_t i = 0; i < plan.choices.size(); ++i) {
    const PlanChoice& c = plan.choices[i];
    JsonLine axes;
    for (const auto& [k, v] : c.axes) axes.Add(k, v);
    JsonLine line;
    line.Add("point", c.point).Add("axes", axes).Add("cluster", c.cluster).Add("label", c.label);
    line.Add("gpu", c.gpu).Add("nodes", c.nodes).Add("gpus", static_cast<size_t>(c.gpus));
    line.Add("usd_per_gpu_hour", c.usd_per_gpu_hour).Add("price_source", c.price_source);
    line.Add("best_setting", c.best.name);
    line.Add("strategy", std::string_view(model::StrategyName(c.best.zero.strategy)));
    line.Add("tensor", c.best.layout.tensor).Add("sequence_parallel", c.best.layout.sequence_parallel);
    line.Add("pipeline", c.best.layout.pipeline).Add("virtual_stages", c.best.layout.virtual_stages);
    line.Add("pipeline_split_counts_embedding_and_loss", model::CountsEmbeddingOrLoss(c.best.layout));
    line.Add("expert", c.best.layout.expert).Add("context", c.best.layout.context);
    line.Add("tflops_per_gpu", c.best.tflops_per_gpu).Add("tokens_per_s", c.best.tokens_per_s);
    line.Add("mfu", c.best.mfu).Add("expected_mfu", c.best.mfu * c.best.band.center);
    line.Add("expected_model_tflops_per_gpu", ModelTflopsPerGpu(c));
    // NVIDIA's count (Megatron-Bridge's, causal; evaluate.h MegatronModelFlopsPerToken), as its tables print it.
    line.Add("expected_model_tflops_per_gpu_nvidia",
             model::HeadlineModelTflopsPerGpu(c.best, model::MegatronModelFlopsPerToken(c.best.model, true)));
    // The headline (model/report/band.h): the model's value times the band's centre, inside the band.
    line.Add("expected_tflops_per_gpu", c.best.tflops_per_gpu * c.best.band.center)
        .Add("expected_tokens_per_s", c.best.tokens_per_s * c.best.band.center);
    line.Add("tokens_per_s_low", c.tokens_per_s_low).Add("tokens_per_s_high", c.tokens_per_s_high);
    line.Add("band_center", c.best.band.center);
    line.Add("band_group", c.best.band.group).Add("band_validated", c.best.band.validated);
    line.Add("baseline", c.baseline);
    if (c.has_runner_up) {
      line.Add("runner_up_setting", c.runner_up.name).Add("runner_up_tensor", c.runner_up.layout.tensor);
      line.Add("runner_up_pipeline", c.runner_up.layout.pipeline);
      line.Add("runner_up_tokens_per_s", c.runner_up.tokens_per_s);
    }
    // Every layout that fits with its fastest setting, fastest first.
    std::string layouts = "[";
    for (const PlanLayoutBest& b : c.layouts) {
      JsonLine l;
      l.Add("tensor", b.layout.tensor).Add("sequence_parallel", b.layout.sequence_parallel);
      l.Add("pipeline", b.layout.pipeline).Add("virtual_stages", b.layout.virtual_stages);
      l.Add("pipeline_split_counts_embedding_and_loss", model::CountsEmbeddingOrLoss(b.layout));
      l.Add("expert", b.layout.expert).Add("context", b.layout.context);
      l.Add("setting", b.setting).Add("strategy", std::string_view(model::StrategyName(b.strategy)));
      l.Add("tokens_per_s", b.tokens_per_s).Add("tflops_per_gpu", b.tflops_per_gpu);
      l.Add("pipeline_bubble_fraction", b.pipeline_bubble_fraction);
      if (layouts.size() > 1) layouts += ',';
      layouts += l.str();
    }
    line.Raw("layouts", layouts + "]");
    if (c.baseline_fits) line.Add("baseline_tokens_per_s", c.baseline_tokens_per_s);
    line.Add("usd_per_million_tokens", c.cost.usd_per_million_tokens);
    line.Add("usd_per_million_tokens_low", c.usd_per_million_tokens_low);
    line.Add("usd_per_million_tokens_high", c.usd_per_million_tokens_high);
    line.Add("time_to_train_s", c.cost.time_to_train_s).Add("cost_to_train_usd", c.cost.cost_to_train_usd);
    line.Add("time_to_train_s_low", c.time_to_train_s_low).Add("time_to_train_s_high", c.time_to_train_s_high);
    line.Add("gpu_hours", c.gpu_hours);
    // Goodput (model/spec/goodput.h): the ideal figures beside the ones above, and the terms of the goodput.
    line.Add("goodput", c.goodput.goodput).Add("ideal_time_to_train_s", c.ideal_cost.time_to_train_s);
    line.Add("ideal_cost_to_train_usd", c.ideal_cost.cost_to_train_usd).Add("ideal_gpu_hours", c.ideal_gpu_hours);
    line.Add("checkpoint_bytes", c.goodput.checkpoint_bytes).Add("checkpoint_write_s", c.goodput.checkpoint_write_s);
    line.Add("checkpoint_interval_s", c.goodput.checkpoint_interval_s);
    line.Add("mean_time_between_interruptions_s", c.goodput.mean_time_between_interruptions_s);
    std::string overlaps = "[";
    for (int r : plan.overlaps[i]) overlaps += fmt::format("{}{}", overlaps.size() > 1 ? "," : "", r);
    line.Add("rank", plan.rank_of[i]).Add("days_rank", plan.days_rank_of[i]).Raw("overlaps", overlaps + "]");
    line.Add("pareto", static_cast<bool>(on_front[i]));
    text += line.str() + "\n";
  }
  return text;
}

}  // namespace zerosim::study
