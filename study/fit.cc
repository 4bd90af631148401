#include "study/fit.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "model/report/evaluate.h"
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

bool IsFitted(io::Metric m) { return m == io::Metric::kTflopsPerGpu || m == io::Metric::kTokensPerSPerGpu; }

std::string ModelOfConfig(const std::string& config) { return config.substr(0, config.find(' ')); }

io::Scenario RestrictExpectations(const io::Scenario& s, const std::function<bool(const io::Expectation&)>& keep) {
  io::Scenario out = s;
  out.expectations.clear();
  std::vector<std::string> used;
  for (const io::Expectation& e : s.expectations) {
    if (!keep(e)) continue;
    out.expectations.push_back(e);
    used.push_back(e.variant);
    if (!e.baseline.empty()) used.push_back(e.baseline);
  }
  out.variants.clear();
  for (const io::Variant& v : s.variants) {
    if (std::find(used.begin(), used.end(), v.name) != used.end()) out.variants.push_back(v);
  }
  return out;
}

StatusOr<std::vector<LeftOut>> LeaveOneModelOut(const std::vector<io::Scenario>& scenarios,
                                                const std::vector<const FitKnob*>& knobs,
                                                const std::vector<study::FitParameter>& params) {
  std::vector<std::string> models;
  for (const io::Scenario& s : scenarios) {
    for (const io::Expectation& e : s.expectations) {
      const std::string m = ModelOfConfig(e.config);
      if (IsFitted(e.metric) && std::find(models.begin(), models.end(), m) == models.end()) models.push_back(m);
    }
  }
  std::vector<LeftOut> out;
  for (const std::string& held : models) {
    std::vector<io::Scenario> train, test;
    for (const io::Scenario& s : scenarios) {
      io::Scenario a = RestrictExpectations(s, [&](const io::Expectation& e) { return ModelOfConfig(e.config) != held; });
      io::Scenario b = RestrictExpectations(s, [&](const io::Expectation& e) { return ModelOfConfig(e.config) == held; });
      if (!a.expectations.empty()) train.push_back(std::move(a));
      if (!b.expectations.empty()) test.push_back(std::move(b));
    }
    if (train.empty()) continue;
    StatusOr<FitOutcome> fit = FitKnobValues(train, knobs, params);
    if (!fit.ok()) return fit.status();
    LeftOut lo;
    lo.model = held;
    lo.fit = fit->fit;
    for (io::Scenario& s : test) {
      for (size_t i = 0; i < knobs.size(); ++i) knobs[i]->set(s, lo.fit.params[i].value);
    }
    model::ScheduleCache cache(64);
    StatusOr<std::vector<PointResult>> points = Evaluate(test, &cache);
    if (!points.ok()) return points.status();
    lo.predicted = std::move(points).value();
    out.push_back(std::move(lo));
  }
  return out;
}

const std::vector<FitKnob>& FitKnobs() {
  static const std::vector<FitKnob> knobs = {
      {"nccl.inter_bandwidth_efficiency", "topology: [nccl] inter_bandwidth_efficiency", 0.05, 1.0,
       [](const io::Scenario& s) { return s.cluster.nccl.inter_bandwidth_efficiency; },
       [](io::Scenario& s, double v) { s.cluster.nccl.inter_bandwidth_efficiency = v; }},
      {"nccl.intra_bandwidth_efficiency", "topology: [nccl] intra_bandwidth_efficiency", 0.05, 1.0,
       [](const io::Scenario& s) { return s.cluster.nccl.intra_bandwidth_efficiency; },
       [](io::Scenario& s, double v) { s.cluster.nccl.intra_bandwidth_efficiency = v; }},
      // The compute of one GPU and software generation, fitted on the calibration set
      // (scenarios/calibration/, single-node runs only): the calibration file's set of that generation
      // (docs/fitted_parameters.md).
      {"compute.gemm", "calibration: gemm_efficiency.gemm (the scenario's software generation)", 0.3, 1.0,
       [](const io::Scenario& s) { return s.calibration.compute.gemm; },
       [](io::Scenario& s, double v) { s.calibration.compute.gemm = v; }},
      {"compute.gemm_k_half", "calibration: gemm_efficiency.gemm_k_half (elements)", 0.0, 8192.0,
       [](const io::Scenario& s) { return s.calibration.compute.gemm_k_half; },
       [](io::Scenario& s, double v) { s.calibration.compute.gemm_k_half = v; }},
      {"compute.attention_v1", "calibration: gemm_efficiency.attention_v1_forward and _backward (one value)",
       0.05, 1.0, [](const io::Scenario& s) { return s.calibration.compute.attention_v1_forward; },
       [](io::Scenario& s, double v) {
         s.calibration.compute.attention_v1_forward = v;
         s.calibration.compute.attention_v1_backward = v;
       }},
      {"compute.attention", "calibration: gemm_efficiency.attention_forward and _backward (one value: the `flash` kernel)",
       0.05, 1.0, [](const io::Scenario& s) { return s.calibration.compute.attention_forward; },
       [](io::Scenario& s, double v) {
         s.calibration.compute.attention_forward = v;
         s.calibration.compute.attention_backward = v;
       }},
      {"compute.memory_efficiency", "calibration: gemm_efficiency.memory_efficiency", 0.1, 1.0,
       [](const io::Scenario& s) { return s.calibration.compute.memory_efficiency; },
       [](io::Scenario& s, double v) { s.calibration.compute.memory_efficiency = v; }},
      {"compute.kernel_gap", "calibration: gemm_efficiency.kernel_gap_s (seconds)", 0.0, 1e-4,
       [](const io::Scenario& s) { return s.calibration.compute.kernel_gap_s; },
       [](io::Scenario& s, double v) { s.calibration.compute.kernel_gap_s = v; }},
      {"compute.fp8_gemm", "calibration: gemm_efficiency.fp8_gemm", 0.2, 1.0,
       [](const io::Scenario& s) { return s.calibration.compute.fp8_gemm; },
       [](io::Scenario& s, double v) { s.calibration.compute.fp8_gemm = v; }},
      {"host_overhead_per_module", "scenario: [zero] host_overhead_per_module (seconds)", 0.0, 0.05,
       [](const io::Scenario& s) {
         return s.variants.empty() ? 0.0 : s.variants.front().zero.runtime.host_overhead_per_module_s;
       },
       [](io::Scenario& s, double v) {
         for (io::Variant& var : s.variants) var.zero.runtime.host_overhead_per_module_s = v;
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
                                   const std::vector<study::FitParameter>& params) {
  FitOutcome out;
  for (const FitKnob* k : knobs) out.file_values.push_back(k->get(scenarios.front()));

  // An evaluation that fails (a broken invariant at some trial value) stops the fit with that error; the
  // residuals it returns meanwhile are zeros of the right length.
  Status eval_error;
  size_t residual_count = 0;
  size_t variants = 0;
  for (const io::Scenario& s : scenarios) variants += s.variants.size();
  model::ScheduleCache cache(std::max<size_t>(8, variants));
  const study::ResidualFunction residuals = [&](const std::vector<double>& x) {
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
        if (IsFitted(p.metric)) r.push_back(std::log(p.simulated / p.published));
      }
    }
    return Eigen::Map<Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(r.size())).eval();
  };
  residual_count = static_cast<size_t>(residuals(out.file_values).size());
  if (!eval_error.ok()) return eval_error;
  out.fit = study::FitLeastSquares(residuals, params);
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
