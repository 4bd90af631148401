#include "study/fit.h"

#include <algorithm>
#include <cmath>

#include "model/evaluate.h"
#include "study/scenario_runner.h"

namespace zerosim::study {
namespace {

// Every expectation of `scenarios`, evaluated with schedules from `cache`.
StatusOr<std::vector<PointResult>> Evaluate(const std::vector<io::Scenario>& scenarios,
                                            model::ScheduleCache* cache) {
  std::vector<PointResult> points;
  for (const io::Scenario& s : scenarios) {
    StatusOr<model::Report> r = EvaluateAnalyticScenario(s, cache);
    if (!r.ok()) return r.status();
    const std::vector<PointResult> p = CheckExpectations(s, *r);
    points.insert(points.end(), p.begin(), p.end());
  }
  return points;
}

}  // namespace

const std::vector<FitKnob>& FitKnobs() {
  static const std::vector<FitKnob> knobs = {
      {"nccl.inter_bandwidth_efficiency", "topology: [nccl] inter_bandwidth_efficiency", 0.05, 1.0,
       [](const io::Scenario& s) { return s.cluster.nccl.inter_bandwidth_efficiency; },
       [](io::Scenario& s, double v) { s.cluster.nccl.inter_bandwidth_efficiency = v; }},
      {"nccl.intra_bandwidth_efficiency", "topology: [nccl] intra_bandwidth_efficiency", 0.05, 1.0,
       [](const io::Scenario& s) { return s.cluster.nccl.intra_bandwidth_efficiency; },
       [](io::Scenario& s, double v) { s.cluster.nccl.intra_bandwidth_efficiency = v; }},
      {"host_overhead_per_module", "scenario: [zero] host_overhead_per_module (seconds)", 0.0, 0.05,
       [](const io::Scenario& s) {
         return s.variants.empty() ? 0.0 : s.variants.front().zero.host_overhead_per_module_s;
       },
       [](io::Scenario& s, double v) {
         for (io::Variant& var : s.variants) var.zero.host_overhead_per_module_s = v;
       }},
  };
  return knobs;
}

const FitKnob* FindFitKnob(const std::string& name) {
  for (const FitKnob& k : FitKnobs()) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

StatusOr<FitOutcome> FitKnobValues(const std::vector<io::Scenario>& scenarios,
                                   const std::vector<const FitKnob*>& knobs,
                                   const std::vector<model::FitParameter>& params) {
  FitOutcome out;
  for (const FitKnob* k : knobs) out.file_values.push_back(k->get(scenarios.front()));

  // An evaluation that fails (a broken invariant at some trial value) stops the fit with that error; the
  // residuals it returns meanwhile are zeros of the right length.
  Status eval_error;
  size_t residual_count = 0;
  size_t variants = 0;
  for (const io::Scenario& s : scenarios) variants += s.variants.size();
  model::ScheduleCache cache(std::max<size_t>(8, variants));
  const model::ResidualFunction residuals = [&](const std::vector<double>& x) {
    std::vector<io::Scenario> trial = scenarios;
    for (io::Scenario& s : trial) {
      for (size_t i = 0; i < knobs.size(); ++i) knobs[i]->set(s, x[i]);
    }
    std::vector<double> r;
    StatusOr<std::vector<PointResult>> points = Evaluate(trial, &cache);
    if (!points.ok()) {
      if (eval_error.ok()) eval_error = points.status();
      r.assign(residual_count, 0.0);
    } else {
      for (const PointResult& p : *points) {
        if (p.metric == io::Metric::kTflopsPerGpu) r.push_back(std::log(p.simulated / p.published));
      }
    }
    return Eigen::Map<Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size())).eval();
  };
  residual_count = static_cast<size_t>(residuals(out.file_values).size());
  if (!eval_error.ok()) return eval_error;
  out.fit = model::FitLeastSquares(residuals, params);
  if (!eval_error.ok()) return eval_error;

  std::vector<io::Scenario> fitted = scenarios;
  for (io::Scenario& s : fitted) {
    for (size_t i = 0; i < knobs.size(); ++i) knobs[i]->set(s, out.fit.params[i].value);
  }
  StatusOr<std::vector<PointResult>> points = Evaluate(fitted, &cache);
  if (!points.ok()) return points.status();
  out.fitted = std::move(points).value();
  out.file_cost = residuals(out.file_values).squaredNorm();
  if (!eval_error.ok()) return eval_error;
  return out;
}

}  // namespace zerosim::study
