#include "study/plan_search.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/batch_search.h"
#include "model/evaluate.h"
#include "model/feasibility.h"
#include "model/invariants.h"
#include "model/pareto.h"
#include "study/sweep_grid.h"

namespace zerosim::study {

std::vector<model::ZeroConfig> PlanZeroSettings(const model::ZeroConfig& base, const model::ClusterSpec& c) {
  std::vector<model::ZeroConfig> out;
  for (bool qwz : {false, true}) {
    for (bool qgz : {false, true}) {
      if (qgz && c.nodes < 2) continue;  // qgZ needs more than one node
      for (int h = 1; h <= c.gpus_per_node; ++h) {
        if (c.gpus_per_node % h != 0) continue;
        model::ZeroConfig z = base;
        z.zero_quantized_weights = qwz;
        z.zero_quantized_gradients = qgz;
        z.zero_hpz_partition_size = h;
        out.push_back(z);
      }
    }
  }
  return out;
}

std::string PlanSettingName(const model::ZeroConfig& z) {
  if (!z.zero_quantized_weights && !z.zero_quantized_gradients && z.zero_hpz_partition_size == 1)
    return "ZeRO-3";
  std::string s;
  if (z.zero_quantized_weights) s += "qwZ ";
  if (z.zero_hpz_partition_size > 1) s += fmt::format("hpZ{} ", z.zero_hpz_partition_size);
  if (z.zero_quantized_gradients) s += "qgZ ";
  s.pop_back();
  return s;
}

StatusOr<Plan> PlanSweep(const io::SweepSpec& spec, const PlanOptions& o) {
  Plan plan;
  // One cache keyed on the whole model, ZeRO config and cluster shape (model::ScheduleCache): a setting
  // differs from another in any field, micro-batch and bucket sizes included, never only in a label.
  model::ScheduleCache schedules;
  for (size_t i = 0; i < PointCount(spec); ++i) {
    const SweepPoint p = MakePoint(spec, i);
    if (!p.infeasible.empty() || p.variants.empty()) {
      ++plan.infeasible;
      continue;
    }
    const io::Variant& base = p.variants.front();
    PlanChoice c;
    c.point = i;
    for (const auto& [k, v] : p.axes) c.cluster += fmt::format("{}{}={}", c.cluster.empty() ? "" : " ", k, v);
    c.axes = p.axes;
    bool found = false;
    const std::vector<model::ZeroConfig> settings = PlanZeroSettings(base.zero, p.cluster);
    for (size_t k = 0; k < settings.size(); ++k) {
      model::ZeroConfig z = settings[k];
      if (!model::CheckConfiguration(base.model, z, p.cluster).empty()) continue;
      std::string name = PlanSettingName(z);
      if (o.search_batch) {
        const model::BatchSearchResult batch = model::SearchBatch(base.model, z, p.cluster, o.global_batch);
        if (!batch.fits) continue;  // not even one sequence per GPU fits
        z.train_micro_batch_size_per_gpu = batch.micro_batch;
        z.gradient_accumulation_steps = batch.gradient_accumulation_steps;
        if (!model::CheckConfiguration(base.model, z, p.cluster).empty()) continue;
        name += fmt::format(" b{}x{}", batch.micro_batch, batch.gradient_accumulation_steps);
      }
      const model::Schedule& schedule = schedules.Get(base.model, z, p.cluster);
      const model::VariantReport r =
          model::EvaluateAnalyticVariant(name, base.model, z, p.cluster, p.calibration, schedule);
      if (Status st = model::InvariantStatus(fmt::format("{}, point {} ({})", spec.name, i, c.cluster), r);
          !st.ok()) {
        return st;
      }
      if (k == 0 && r.feasible) c.zero3_tokens_per_s = r.tokens_per_s;
      if (r.feasible && (!found || r.tokens_per_s > c.best.tokens_per_s)) {
        c.best = r;
        found = true;
      }
    }
    if (!found) {
      ++plan.infeasible;
      continue;
    }
    c.cost = model::EstimateCost(p.cluster, spec.price, c.best.tokens_per_s, spec.train_tokens);
    plan.choices.push_back(std::move(c));
  }

  const std::vector<PlanChoice>& choices = plan.choices;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (o.budget_usd > 0 && choices[i].cost.cost_to_train_usd > o.budget_usd) continue;
    if (o.target_days > 0 && choices[i].cost.time_to_train_s > o.target_days * 86400) continue;
    plan.ranked.push_back(i);
  }
  std::stable_sort(plan.ranked.begin(), plan.ranked.end(), [&](size_t a, size_t b) {
    if (o.budget_usd > 0) return choices[a].cost.time_to_train_s < choices[b].cost.time_to_train_s;
    return choices[a].cost.usd_per_million_tokens < choices[b].cost.usd_per_million_tokens;
  });
  plan.rank_of.assign(choices.size(), 0);
  for (size_t r = 0; r < plan.ranked.size(); ++r) plan.rank_of[plan.ranked[r]] = static_cast<int>(r) + 1;

  std::vector<model::TradeOff> trade;
  for (const PlanChoice& c : choices) trade.push_back({c.best.tokens_per_s, c.cost.usd_per_million_tokens});
  plan.front = model::ParetoFront(trade);
  return plan;
}

}  // namespace zerosim::study
