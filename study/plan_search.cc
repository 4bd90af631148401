#include "study/plan_search.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/io/band_loader.h"
#include "model/io/loaders.h"
#include "model/report/batch_search.h"
#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/spec/feasibility.h"
#include "model/spec/pipeline_split.h"
#include "study/bands.h"
#include "study/pareto.h"
#include "study/progress.h"
#include "study/sweep_grid.h"

namespace zerosim::study {

std::vector<model::ZeroConfig> PlanZeroSettings(const model::ZeroConfig& base, const model::ClusterSpec& c) {
  std::vector<model::ZeroConfig> out;
  for (bool qwz : {false, true}) {
    for (bool qgz : {false, true}) {
      if (qgz && c.nodes < 2) continue;  // qgZ needs more than one node
      for (int h = 1; h <= c.gpus_per_node; ++h) {
        model::ZeroConfig z = base;
        z.zero_quantized_weights = qwz;
        z.zero_quantized_gradients = qgz;
        z.zero_hpz_partition_size = h;
        // The hpZ sizes the ZeRO rules allow (model::CheckZero: those dividing the node), not a copy of them.
        if (model::CheckZero(z, c).empty()) out.push_back(z);
      }
    }
  }
  return out;
}

std::string PlanSettingName(const io::Variant& from, const model::ZeroConfig& z) {
  const model::ZeroConfig& v = from.zero;
  std::string s = from.name;
  if (z.zero_quantized_weights != v.zero_quantized_weights) s += z.zero_quantized_weights ? " +qwZ" : " -qwZ";
  if (z.zero_hpz_partition_size != v.zero_hpz_partition_size) {
    s += z.zero_hpz_partition_size == 1   ? std::string(" -hpZ")
         : v.zero_hpz_partition_size == 1 ? fmt::format(" +hpZ{}", z.zero_hpz_partition_size)
                                          : fmt::format(" hpZ{}", z.zero_hpz_partition_size);
  }
  if (z.zero_quantized_gradients != v.zero_quantized_gradients) {
    s += z.zero_quantized_gradients ? " +qgZ" : " -qgZ";
  }
  return s;
}

std::vector<model::ParallelLayout> PlanLayouts(const model::ClusterSpec& c, bool tp_comm_overlap, int experts,
                                               int max_context, int layers, bool fold_experts) {
  std::vector<model::ParallelLayout> out;
  // Context parallelism of a long sequence: each dense layout again with c = 2, 4, ... up to max_context
  // (what does not divide the data-parallel size is left to the layout's own check).
  auto with_context = [&](const model::ParallelLayout& base) {
    for (int cp = 2; cp <= max_context; cp *= 2) {
      model::ParallelLayout l = base;
      l.context = cp;
      out.push_back(l);
    }
  };
  with_context(model::ParallelLayout{});
  // Expert parallelism of an MoE model: each layout again with e = 2, 4, ... dividing the experts. With
  // `fold_experts`, those of tensor parallelism 2 fold the expert grid (expert_tensor = 1: whole experts per
  // rank, e >= 4 consecutive ranks of a stage; parallel_layout.h expert_folded), as Megatron-Bridge's
  // Qwen3-235B H100 config runs it (TP 2, EP 32); without it the validation refuses MoE layouts of t > 1.
  auto with_experts = [&](const model::ParallelLayout& base) {
    for (int e = 2; e <= experts; e *= 2) {
      if (experts % e != 0) continue;
      model::ParallelLayout l = base;
      l.expert = e;
      if (fold_experts && l.tensor == 2) {
        if (e < 2 * l.tensor) continue;
        l.expert_tensor = 1;
      }
      out.push_back(l);
    }
  };
  with_experts(model::ParallelLayout{});
  for (int t = 1; t <= c.gpus_per_node; t *= 2) {
    if (c.gpus_per_node % t != 0) continue;
    // Stages hold whole nodes (model/placement/placement.h StagesAlignWithNodes): with t inside a node, p
    // divides the node count.
    for (int p = 1; p <= c.nodes; p *= 2) {
      if (c.nodes % p != 0) continue;
      for (int v : {1, 2, 4, 8}) {
        if (t == 1 && p == 1) continue;  // the variant as written
        if (v > 1 && p == 1) continue;
        model::ParallelLayout l;
        l.tensor = t;
        l.sequence_parallel = t > 1;
        l.tp_comm_overlap = t > 1 && tp_comm_overlap;
        l.pipeline = p;
        l.SetVirtualStages(v);
        // Chunks that do not divide the layers but divide them with the embedding and the loss counted:
        // Megatron-Core's split for such models (model/spec/pipeline_split.h; the Llama 3.1 405B and
        // Qwen3-235B recipes set it).
        if (layers > 0 && p > 1 && layers % (p * v) != 0 && (layers + 2) % (p * v) == 0) {
          l.account_for_embedding_in_pipeline_split = true;
          l.account_for_loss_in_pipeline_split = true;
        }
        out.push_back(l);
        with_experts(l);
        with_context(l);
      }
    }
  }
  return out;
}

std::string PlanLayoutName(const model::ParallelLayout& l) {
  std::string s;
  if (l.tensor > 1) {
    s += fmt::format(" TP{}{}{}", l.tensor, l.sequence_parallel ? " SP" : "", l.tp_comm_overlap ? " overlap" : "");
  }
  if (l.pipeline > 1) s += fmt::format(" PP{}", l.pipeline);
  if (l.virtual_stages > 1) s += fmt::format("x{}", l.virtual_stages);
  if (model::CountsEmbeddingOrLoss(l)) s += "+E+L";
  if (l.expert > 1) s += fmt::format(" EP{}{}", l.expert, l.expert_folded() ? " ETP1" : "");
  if (l.context > 1) s += fmt::format(" CP{}", l.context);
  return s;
}

std::vector<PlanSetting> PlanSettings(const std::vector<io::Variant>& variants, const model::ClusterSpec& c,
                                      bool search_layout, bool tp_comm_overlap, bool fold_experts) {
  std::vector<PlanSetting> out;
  auto listed = [&](const io::Variant& v, const model::ZeroConfig& z, const model::ParallelLayout& l) {
    return std::any_of(out.begin(), out.end(), [&](const PlanSetting& s) {
      return s.zero == z && s.layout == l && s.variant->model == v.model;
    });
  };
  for (const io::Variant& v : variants) {
    if (!listed(v, v.zero, v.parallel)) out.push_back({v.name, &v, v.zero, v.parallel});
  }
  // The ZeRO++ switches exist in DeepSpeed's stage 3 only (model/spec/feasibility.h).
  for (const io::Variant& v : variants) {
    if (v.zero.strategy != model::Strategy::kZero3) continue;
    for (const model::ZeroConfig& z : PlanZeroSettings(v.zero, c)) {
      if (!listed(v, z, v.parallel)) out.push_back({PlanSettingName(v, z), &v, z, v.parallel});
    }
  }
  if (search_layout) {
    for (const io::Variant& v : variants) {
      // Context parallelism for sequences of 8K tokens and more (the NeMo long-sequence recipes start CP at
      // 16K-32K: scenarios/published/moe/runs.json; Megatron-Bridge's Llama 3.1 405B and NeMo 24.07's Llama 3
      // 70B recipes run CP2 at 8K to fit: scenarios/published/today), over at most 32 ranks (the published
      // runs' largest), for
      // a dense model (context_feasibility.cc).
      const int max_context =
          v.model.seq_len >= kPlanContextMinSequence && !model::IsMoe(v.model) ? kPlanMaxContext : 1;
      for (const model::ParallelLayout& l :
           PlanLayouts(c, tp_comm_overlap, v.model.experts, max_context, v.model.layers, fold_experts)) {
        if (listed(v, v.zero, l)) continue;
        out.push_back({v.name + PlanLayoutName(l), &v, v.zero, l});
      }
    }
  }
  return out;
}

namespace {

// A pipeline's micro-batch is halved only while its bubble is more than this share of the iteration: the
// halving gains at most half of it, and the bands (model/report/band.h) are several percent wide.
constexpr double kHalvedBubbleWorthIt = 0.02;

bool Intersect(double lo_a, double hi_a, double lo_b, double hi_b) { return lo_a <= hi_b && lo_b <= hi_a; }

}  // namespace

StatusOr<Plan> PlanSweep(const io::SweepSpec& spec, const PlanOptions& o) {
  Plan plan;
  // One cache keyed on the whole model, ZeRO config and cluster shape (model::ScheduleCache): a setting
  // differs from another in any field, micro-batch and bucket sizes included, never only in a label.
  model::ScheduleCache schedules;
  Progress progress(PointCount(spec), o.progress, "plan", "clusters", /*delay_s=*/1.0);
  for (size_t i = 0; i < PointCount(spec); ++i) {
    progress.Update(i);
    const SweepPoint p = MakePoint(spec, i);
    if (!p.infeasible.empty() || p.variants.empty()) {
      ++plan.infeasible;
      continue;
    }
    PlanChoice c;
    c.point = i;
    for (const auto& [k, v] : p.axes) c.cluster += fmt::format("{}{}={}", c.cluster.empty() ? "" : " ", k, v);
    c.axes = p.axes;
    c.gpu = p.cluster.gpu.name;
    c.nodes = p.cluster.nodes;
    c.gpus = p.cluster.total_gpus();
    c.label = fmt::format("{} {}x{}", c.gpu, p.cluster.nodes, p.cluster.gpus_per_node);
    for (const auto& [k, v] : p.axes) {
      if (k != "topology" && k != "nodes" && k != "gpus_per_node") c.label += fmt::format(" {}={}", k, v);
    }
    c.baseline = p.variants.front().name;
    bool found = false;
    const std::vector<PlanSetting> settings =
        PlanSettings(p.variants, p.cluster, o.search_layout, o.tp_comm_overlap, o.fold_experts);
    auto consider = [&](model::VariantReport&& r) {
      // The fastest setting of each layout (PlanChoice::layouts).
      auto same = std::find_if(c.layouts.begin(), c.layouts.end(),
                               [&](const PlanLayoutBest& b) { return b.layout == r.layout; });
      if (same == c.layouts.end()) {
        c.layouts.push_back({r.layout, r.name, r.zero.strategy, r.tokens_per_s, r.tflops_per_gpu,
                             r.pipeline_bubble_fraction});
      } else if (r.tokens_per_s > same->tokens_per_s) {
        *same = {r.layout,       r.name,           r.zero.strategy,
                 r.tokens_per_s, r.tflops_per_gpu, r.pipeline_bubble_fraction};
      }
      if (!found || r.tokens_per_s > c.best.tokens_per_s) {
        if (found) {
          c.runner_up = std::move(c.best);
          c.has_runner_up = true;
        }
        c.best = std::move(r);
        found = true;
      } else if (!c.has_runner_up || r.tokens_per_s > c.runner_up.tokens_per_s) {
        c.runner_up = std::move(r);
        c.has_runner_up = true;
      }
    };
    for (size_t k = 0; k < settings.size(); ++k) {
      io::Variant v = *settings[k].variant;
      v.zero = settings[k].zero;
      v.parallel = settings[k].layout;
      const model::ModelSpec& m = v.model;
      const int written_micro = v.zero.train_micro_batch_size_per_gpu;
      const int written_steps = v.zero.gradient_accumulation_steps;
      // The training run a layout must train: --global-batch, else the sequences per step of the variant as
      // written on data parallelism alone (micro-batch x accumulation x every GPU), so that a tensor- or
      // pipeline-parallel layout trains the same run with t p times the accumulation (its data-parallel ranks
      // are P / (t p)), and a context-parallel one with c times more (its P / (t p c) ranks train distinct
      // sequences): the accumulation is searched, never a filter (issue 38 item 4: interleaving was dropped
      // when the written accumulation was not a multiple of p).
      const bool model_parallel = !v.parallel.data_parallel_only() || v.parallel.context > 1;
      const int64_t target =
          o.global_batch > 0 ? o.global_batch
          : model_parallel   ? static_cast<int64_t>(written_micro) * written_steps * p.cluster.total_gpus()
                             : 0;
      const int64_t d = v.parallel.batch_parallel(p.cluster.total_gpus());
      // The layout's accumulation at the written micro-batch (it may change with --search-batch below).
      // d = 0 where c does not divide P / (t p): the validation below drops that layout.
      if (target > 0 && model_parallel && d > 0 && target % (static_cast<int64_t>(written_micro) * d) == 0) {
        const int64_t steps = target / (static_cast<int64_t>(written_micro) * d);
        if (steps <= model::kMaxGradientAccumulation) v.zero.gradient_accumulation_steps = static_cast<int>(steps);
      }
      if (!io::ValidateVariant(spec.base, v, p.cluster, p.calibration).empty()) {
        // Only the accumulation may stand in the way of an interleaved layout: the batch search finds one that
        // is a multiple of p.
        io::Variant multiple = v;
        multiple.zero.gradient_accumulation_steps =
            (v.zero.gradient_accumulation_steps + v.parallel.pipeline - 1) / v.parallel.pipeline * v.parallel.pipeline;
        if (!o.search_batch || !io::ValidateVariant(spec.base, multiple, p.cluster, p.calibration).empty()) continue;
      }
      // The (micro-batch, accumulation) pairs to run: as written (with the layout's accumulation), or the batch
      // search's; a pipeline also at halves of its micro-batch, whose twice as many micro-batches per iteration
      // halve the bubble (Narayanan et al. 2021 sec. 3.4), while each half is faster than the one before and the
      // bubble it halves is more than kHalvedBubbleWorthIt of the iteration.
      std::vector<std::pair<int, int>> batches{
          {v.zero.train_micro_batch_size_per_gpu, v.zero.gradient_accumulation_steps}};
      if (o.search_batch) {
        const model::BatchSearchResult batch = model::SearchBatch(m, v.zero, p.cluster, target, v.parallel);
        if (!batch.fits) continue;  // not even one sequence per GPU fits
        // A target global batch is the training run asked about: a setting that cannot reach it (more
        // data-parallel ranks than sequences, or no micro-batch x accumulation that makes it) trains another
        // run.
        if (target > 0 && batch.global_batch != target) continue;
        batches = {{batch.micro_batch, batch.gradient_accumulation_steps}};
      } else if (target > 0 && model_parallel && batches[0].first * d * batches[0].second != target) {
        continue;  // the written micro-batch cannot make the run's batch on this layout
      }
      if (v.parallel.pipeline > 1 && target > 0) {
        for (int b = batches[0].first / 2; b >= 1; b /= 2) {
          if (target % (b * d) != 0) continue;
          const int64_t steps = target / (b * d);
          if (steps > model::kMaxGradientAccumulation) break;
          batches.emplace_back(b, static_cast<int>(steps));
        }
      }
      double last_tokens_per_s = 0;
      for (const auto& [micro, steps] : batches) {
        io::Variant run = v;
        run.zero.train_micro_batch_size_per_gpu = micro;
        run.zero.gradient_accumulation_steps = steps;
        std::string name = settings[k].name;
        if (!io::ValidateVariant(spec.base, run, p.cluster, p.calibration).empty()) continue;
        // The batch in the name whenever it is not the one written (searched, or the layout's accumulation).
        if (o.search_batch || micro != written_micro || steps != written_steps) {
          name += fmt::format(" b{}x{}", micro, steps);
        }
        model::VariantReport r = model::EvaluateAnalyticVariant(
            name, {m, run.zero, p.cluster, p.calibration, run.parallel}, &schedules);
        if (Status st = model::InvariantStatus(fmt::format("{}, point {} ({})", spec.name, i, c.cluster), r);
            !st.ok()) {
          return st;
        }
        if (!model::Ran(r)) continue;
        if (k == 0 && !c.baseline_fits) {  // the first variant as written
          c.baseline_fits = true;
          c.baseline_tokens_per_s = r.tokens_per_s;
        }
        const bool slower = r.tokens_per_s <= last_tokens_per_s;
        // Halving the micro-batch gains at most half the bubble: not worth the longer schedule below 1%.
        const bool small_bubble = r.pipeline_bubble_s < kHalvedBubbleWorthIt * r.iteration_time_s;
        last_tokens_per_s = r.tokens_per_s;
        consider(std::move(r));
        if (slower || small_bubble) break;  // a smaller micro-batch no longer pays for itself
      }
    }
    std::stable_sort(
        c.layouts.begin(), c.layouts.end(),
        [](const PlanLayoutBest& a, const PlanLayoutBest& b) { return a.tokens_per_s > b.tokens_per_s; });
    if (!found) {
      ++plan.infeasible;
      continue;
    }
    if (Status st = AttachBand(io::ShippedBands(), p.calibration, p.cluster.gpu.name, &c.best); !st.ok()) return st;
    // Cost and time from the headline, the calibrated expectation (model/report/band.h), inside its band.
    const model::PriceModel& price = io::PriceOf(spec, p.cluster);
    // Goodput (model/spec/goodput.h): the share of the wall-clock time that trains on this many GPUs, with this
    // model's checkpoint; the run's time and cost at the expected throughput times it.
    model::GoodputOptions goodput = spec.goodput;
    goodput.enabled = goodput.enabled && o.goodput;
    c.goodput = model::EstimateGoodput(c.best.model, c.best.zero.precision, c.gpus, goodput);
    if (c.goodput.goodput <= 0) {  // checkpoints and restarts outlast the time between interruptions
      ++plan.infeasible;
      continue;
    }
    const double expected_tokens_per_s = c.best.tokens_per_s * c.best.band.center;
    c.ideal_cost = model::EstimateCost(p.cluster, price, expected_tokens_per_s, spec.train_tokens);
    c.cost = model::EstimateCost(p.cluster, price, expected_tokens_per_s * c.goodput.goodput, spec.train_tokens);
    c.gpu_hours = c.cost.time_to_train_s / 3600.0 * static_cast<double>(c.gpus);
    c.ideal_gpu_hours = c.ideal_cost.time_to_train_s / 3600.0 * static_cast<double>(c.gpus);
    if (spec.train_tokens > 0 && c.goodput.goodput > 0) {
      c.time_to_train_s_low = spec.train_tokens / (c.best.tokens_per_s * c.best.band.high * c.goodput.goodput);
      c.time_to_train_s_high = spec.train_tokens / (c.best.tokens_per_s * c.best.band.low * c.goodput.goodput);
    }
    c.usd_per_gpu_hour = c.gpus > 0 ? c.cost.usd_per_hour / static_cast<double>(c.gpus) : 0;
    c.price_source = price.source;
    c.rented = price.rented();
    c.capex_per_gpu_usd = price.capex_per_gpu_usd;
    c.tokens_per_s_low = c.best.tokens_per_s * c.best.band.low;
    c.tokens_per_s_high = c.best.tokens_per_s * c.best.band.high;
    // The band's ends from the model's own cost (the headline's times the centre): [model / high, model / low].
    const double model_usd_per_million_tokens = c.cost.usd_per_million_tokens * c.best.band.center;
    c.usd_per_million_tokens_low = model_usd_per_million_tokens / c.best.band.high;
    c.usd_per_million_tokens_high = model_usd_per_million_tokens / c.best.band.low;
    // The headlines the table prints lie inside their bands (model/report/band.h), cost and throughput alike.
    const double tokens = c.best.tokens_per_s * c.best.band.center;
    const double usd = c.cost.usd_per_million_tokens;
    constexpr double kSlack = 1e-9;
    if (tokens < c.tokens_per_s_low * (1 - kSlack) || tokens > c.tokens_per_s_high * (1 + kSlack) ||
        (usd > 0 && (usd < c.usd_per_million_tokens_low * (1 - kSlack) ||
                     usd > c.usd_per_million_tokens_high * (1 + kSlack)))) {
      return Status::Error(fmt::format("invariant violated: {}, point {} ({}): a headline lies outside its band "
                                       "(tokens/s {} in [{}, {}], USD/Mtok {} in [{}, {}])",
                                       spec.name, i, c.cluster, tokens, c.tokens_per_s_low, c.tokens_per_s_high,
                                       usd, c.usd_per_million_tokens_low, c.usd_per_million_tokens_high));
    }
    plan.choices.push_back(std::move(c));
  }

  progress.Update(PointCount(spec), /*final=*/true);
  const std::vector<PlanChoice>& choices = plan.choices;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (o.budget_usd > 0 && choices[i].cost.cost_to_train_usd > o.budget_usd) continue;
    if (o.target_days > 0 && choices[i].cost.time_to_train_s > o.target_days * 86400) continue;
    plan.ranked.push_back(i);
  }
  // By the expected value (the headline); the bands say where that order is not resolved.
  std::stable_sort(plan.ranked.begin(), plan.ranked.end(), [&](size_t a, size_t b) {
    if (o.budget_usd > 0) return choices[a].cost.time_to_train_s < choices[b].cost.time_to_train_s;
    return choices[a].cost.usd_per_million_tokens < choices[b].cost.usd_per_million_tokens;
  });
  plan.rank_of.assign(choices.size(), 0);
  for (size_t r = 0; r < plan.ranked.size(); ++r) plan.rank_of[plan.ranked[r]] = static_cast<int>(r) + 1;
  std::vector<size_t> by_days = plan.ranked;
  std::stable_sort(by_days.begin(), by_days.end(), [&](size_t a, size_t b) {
    // Fastest first: the time to train is the tokens over the cluster's expected tokens/s.
    return choices[a].best.tokens_per_s * choices[a].best.band.center >
           choices[b].best.tokens_per_s * choices[b].best.band.center;
  });
  plan.days_rank_of.assign(choices.size(), 0);
  for (size_t r = 0; r < by_days.size(); ++r) plan.days_rank_of[by_days[r]] = static_cast<int>(r) + 1;
  plan.overlaps.assign(choices.size(), {});
  for (size_t r = 0; r < plan.ranked.size(); ++r) {
    const PlanChoice& a = choices[plan.ranked[r]];
    for (size_t q = 0; q < plan.ranked.size(); ++q) {
      const PlanChoice& b = choices[plan.ranked[q]];
      // Under a budget the ranking is by time to train, the inverse of throughput: the throughput bands.
      const bool overlap =
          o.budget_usd > 0 ? Intersect(a.tokens_per_s_low, a.tokens_per_s_high, b.tokens_per_s_low,
                                       b.tokens_per_s_high)
                           : Intersect(a.usd_per_million_tokens_low, a.usd_per_million_tokens_high,
                                       b.usd_per_million_tokens_low, b.usd_per_million_tokens_high);
      if (q != r && overlap) plan.overlaps[plan.ranked[r]].push_back(static_cast<int>(q) + 1);
    }
  }

  std::vector<study::TradeOff> trade;
  for (const PlanChoice& c : choices) trade.push_back({c.best.tokens_per_s, c.cost.usd_per_million_tokens});
  plan.front = study::ParetoFront(trade);
  return plan;
}

}  // namespace zerosim::study
