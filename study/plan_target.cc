#include "study/plan_target.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "model/spec/feasibility.h"
#include "study/number_text.h"
#include "study/sweep_grid.h"

namespace zerosim::study {
namespace {

using Axes = std::vector<std::pair<std::string, std::string>>;

Axes WithoutNodes(const Axes& axes) {
  Axes out;
  for (const auto& kv : axes) {
    if (kv.first != "nodes") out.push_back(kv);
  }
  return out;
}

// `spec` narrowed to the candidate's values `axes` of every axis but `nodes`, with node counts `sizes` (the
// first axis, so that each size is one point). The GPU-count constraints are dropped: the search asks for
// sizes beyond them.
StatusOr<io::SweepSpec> Narrowed(const io::SweepSpec& spec, const Axes& axes, const std::vector<int>& sizes) {
  io::SweepSpec s = spec;
  s.axes.clear();
  io::Axis nodes{"nodes", {}, ""};
  for (int n : sizes) {
    io::AxisValue v;
    v.text = std::to_string(n);
    v.number = n;
    nodes.values.push_back(v);
  }
  s.axes.push_back(std::move(nodes));
  for (const io::Axis& a : spec.axes) {
    if (a.key == "nodes") continue;
    io::Axis one{a.key, {}, a.where};
    for (const io::AxisValue& v : a.values) {
      if (std::find(axes.begin(), axes.end(), std::make_pair(a.key, v.text)) != axes.end()) one.values.push_back(v);
    }
    s.axes.push_back(std::move(one));
  }
  s.total_gpus = s.min_total_gpus = s.max_total_gpus = 0;
  if (Status st = ExpandSweep(&s); !st.ok()) return st;
  return s;
}

bool Meets(const PlanChoice& c, double target_days) {
  return c.cost.time_to_train_s > 0 && c.cost.time_to_train_s <= target_days * 86400;
}

// The plan of the candidate at `sizes` (each size's choice, those that can train the model).
StatusOr<std::vector<PlanChoice>> PlanAt(const io::SweepSpec& spec, const Axes& axes, const std::vector<int>& sizes,
                                         const PlanOptions& o) {
  if (sizes.empty()) return std::vector<PlanChoice>{};
  StatusOr<io::SweepSpec> s = Narrowed(spec, axes, sizes);
  if (!s.ok()) return s.status();
  PlanOptions all = o;
  all.progress = false;  // each narrowed plan is one of many
  all.target_days = 0;
  all.budget_usd = 0;
  StatusOr<Plan> p = PlanSweep(*s, all);
  if (!p.ok()) return p.status();
  return std::move(p->choices);
}

std::string CandidateName(const PlanChoice& c, const Axes& axes) {
  std::string name = fmt::format("{} x{}", c.gpu, c.nodes > 0 ? c.gpus / c.nodes : 0);
  for (const auto& [k, v] : axes) {
    name += k == "topology" ? fmt::format(" [{}]", std::filesystem::path(v).stem().string()) : fmt::format(" {}={}", k, v);
  }
  return name;
}

}  // namespace

StatusOr<std::vector<TargetAnswer>> SizesForTarget(const io::SweepSpec& spec, const Plan& plan,
                                                   const PlanOptions& o) {
  std::vector<TargetAnswer> out;
  std::vector<Axes> seen;
  for (const PlanChoice& first : plan.choices) {
    const Axes axes = WithoutNodes(first.axes);
    if (std::find(seen.begin(), seen.end(), axes) != seen.end()) continue;
    seen.push_back(axes);
    TargetAnswer a;
    a.candidate = CandidateName(first, axes);
    // The candidate's sizes in the plan: the largest, and the fastest as the answer so far.
    const PlanChoice* largest = nullptr;
    for (const PlanChoice& c : plan.choices) {
      if (WithoutNodes(c.axes) != axes) continue;
      if (largest == nullptr || c.nodes > largest->nodes) largest = &c;
      if (Meets(c, o.target_days) && (!a.meets || c.nodes < a.choice.nodes)) {
        a.meets = true;
        a.choice = c;
      }
      if (!a.meets && (a.choice.gpus == 0 || c.cost.time_to_train_s < a.choice.cost.time_to_train_s)) a.choice = c;
    }
    a.largest_nodes_searched = largest->nodes;
    if (!a.meets) {
      // Doublings of the largest size, within the model's limits and 64 times the sweep's largest.
      const int64_t per_node = largest->gpus / std::max(1, largest->nodes);
      std::vector<int> sizes;
      for (int64_t n = 2 * static_cast<int64_t>(largest->nodes);
           n <= std::min<int64_t>(model::kMaxNodes, 64 * static_cast<int64_t>(largest->nodes)) &&
           n * per_node <= model::kMaxGpus;
           n *= 2) {
        sizes.push_back(static_cast<int>(n));
      }
      StatusOr<std::vector<PlanChoice>> doubled = PlanAt(spec, axes, sizes, o);
      if (!doubled.ok()) return doubled.status();
      if (!sizes.empty()) a.largest_nodes_searched = sizes.back();
      int below = largest->nodes;  // the largest size known to miss
      for (const PlanChoice& c : *doubled) {
        if (Meets(c, o.target_days)) {
          a.meets = true;
          a.choice = c;
          break;
        }
        below = std::max(below, c.nodes);
        if (c.cost.time_to_train_s < a.choice.cost.time_to_train_s) a.choice = c;
      }
      if (a.meets && a.choice.nodes - below > 1) {
        // Quarter steps between the last size that misses and the first that meets.
        std::vector<int> between;
        for (int q = 1; q <= 3; ++q) {
          const int n = below + (a.choice.nodes - below) * q / 4;
          if (n > below && n < a.choice.nodes && (between.empty() || n > between.back())) between.push_back(n);
        }
        StatusOr<std::vector<PlanChoice>> refined = PlanAt(spec, axes, between, o);
        if (!refined.ok()) return refined.status();
        for (const PlanChoice& c : *refined) {
          if (Meets(c, o.target_days)) {
            a.choice = c;
            break;
          }
          below = std::max(below, c.nodes);
        }
      }
      if (a.meets) a.missing_nodes = below;
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string FormatTargetAnswers(const std::vector<TargetAnswer>& answers, double target_days) {
  std::string out = fmt::format(
      "\nno cluster of the sweep trains within {:g} days; per candidate, the smallest size that would (searched at "
      "doublings of\nthe sweep's largest size, then quarter steps between the last that misses and the first that "
      "meets it):\n",
      target_days);
  for (const TargetAnswer& a : answers) {
    const PlanChoice& c = a.choice;
    const std::string days =
        fmt::format("{:.1f} days [{:.1f}-{:.1f}], {} USD, {:.2f} M GPU-hours, {}", c.cost.time_to_train_s / 86400,
                    c.time_to_train_s_low / 86400, c.time_to_train_s_high / 86400,
                    GroupedNumber(c.cost.cost_to_train_usd), c.gpu_hours / 1e6, c.best.name);
    out += a.meets ? fmt::format("  {}: {} nodes ({} GPUs): {}\n", a.candidate, GroupedNumber(c.nodes),
                                 GroupedNumber(static_cast<double>(c.gpus)), days)
                   : fmt::format("  {}: no size up to {} nodes meets it; fastest: {} nodes ({} GPUs): {}\n",
                                 a.candidate, GroupedNumber(a.largest_nodes_searched), GroupedNumber(c.nodes),
                                 GroupedNumber(static_cast<double>(c.gpus)), days);
  }
  return out;
}

}  // namespace zerosim::study
