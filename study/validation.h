// Validation against published numbers: each [[expect]] of a scenario compared with the evaluated
// report, the errors summarised, and a baseline of per-point errors for the regression gate.
#pragma once

#include <string>
#include <vector>

#include "model/io/loaders.h"
#include "model/report/report.h"
#include "model/status.h"

namespace zerosim::study {

struct PointResult {
  std::string engine;    // "analytic" or "sim"
  std::string scenario;  // scenario file
  std::string variant;
  std::string baseline;  // speedup only
  std::string phase;     // RLHF speedups: the phase whose per-GPU throughput is compared
  io::Metric metric = io::Metric::kTflopsPerGpu;
  double published = 0;
  double simulated = 0;
  double error = 0;      // (simulated - published) / published
  double tolerance = 0;
  std::string source;
  std::string group;   // the scenario's validation group
  std::string config;  // the expectation's configuration apart from cluster size (scaling checks)
  int gpus = 0;        // the variant's GPU count
  bool feasible = true;  // the variant fits in HBM by ZeroSim's memory estimate (evaluated either way)
  std::string
      band_key;  // the variant's band key (model/report/band.h BandKey): whose band its residual informs
  // The GPU family the scenario's compute is derived from ("" when fitted or measured on its own GPU).
  std::string derived_from;
  // The simulated value out of sample, for the bands (study/bands.h): a calibration-set point's leave-one-model-
  // size-out prediction (study/loo_record.h); 0: `simulated` is already out of sample (validation evidence).
  double simulated_out_of_sample = 0;
  // published / simulated out of sample (the band's ratio).
  double OutOfSampleRatio() const;
  bool within() const;
  // Identifies the point across runs: "file|variant|metric|baseline" (and "|phase" for RLHF phases).
  std::string key() const;
};

// Compares every expectation of `s` with the variants of `r` (evaluated from `s`) that `engine` timed.
std::vector<PointResult> CheckExpectations(const io::Scenario& s, const model::Report& r,
                                           const std::string& engine = "analytic");

// For a report of both engines: per variant, the sim engine's iteration time against the analytic one,
// flagging differences beyond 5%.
std::string FormatEngineComparison(const std::vector<model::Report>& reports);

// Median and worst absolute relative error of the points of one metric.
struct ErrorSummary {
  int count = 0;
  double median = 0;
  double worst = 0;
  std::string worst_point;
};
ErrorSummary Summarise(const std::vector<PointResult>& points, io::Metric metric);

// One validation group's errors for one metric and engine.
struct GroupStats {
  std::string engine;
  std::string group;
  io::Metric metric = io::Metric::kTflopsPerGpu;
  int n = 0;
  double median_abs = 0;   // median |error|
  double worst_abs = 0;    // largest |error|
  double mean_signed = 0;  // mean error (the bias)
  int infeasible = 0;      // points ZeroSim estimates infeasible
};
// Per engine, group and metric, in order of first appearance (deterministic).
std::vector<GroupStats> GroupStatistics(const std::vector<PointResult>& points);

// Per validation group and metric: n, median and worst |error|, mean signed error (the bias), and how many
// points ZeroSim estimates infeasible; then, per group, the scaling checks: for each configuration measured at
// several cluster sizes, the per-GPU throughput at the most GPUs over that at the fewest, published against
// simulated.
std::string FormatGroupSummary(const std::vector<PointResult>& points);

// The validation table, then the summary per metric with the targets beside it.
std::string FormatValidation(const std::vector<PointResult>& points);

// The points as JSON lines (`validate --jsonl`): engine, scenario, variant, baseline, metric, phase (RLHF
// only), published, simulated, error, tolerance, source, group, config, gpus, feasible.
std::string ValidationJsonl(const std::vector<PointResult>& points);

// The regression gate's baseline: |error| per point key, as JSON, for the points of one engine.
std::string BaselineJson(const std::vector<PointResult>& points, const std::string& engine);
// The gate's failures, one line each: points whose |error| exceeds the baseline's (beyond 1e-9), and points
// of the baseline the run lacks (a renamed variant, a removed expectation, a deleted scenario) when their
// scenario (the key's file) is one of `run_scenarios`, the scenario files the run evaluated (given or
// discovered), or is a file that no longer exists in a directory one of them is in. Points of the other
// scenarios are not the run's: a run of some of the baseline's files does not fail on the others. Points
// the baseline lacks are listed in `notes` as not gated. The baseline's engine must be the points' engine.
StatusOr<std::vector<std::string>> CompareWithBaseline(const std::vector<PointResult>& points,
                                                       const std::string& baseline_json,
                                                       const std::vector<std::string>& run_scenarios,
                                                       std::string* notes);

// Every scenario file under `dir` (recursively; models/ and *.sweep.toml excluded), sorted.
std::vector<std::string> FindScenarioFiles(const std::string& dir);

// `files` if any, else every scenario under ./scenarios (an error outside the source tree).
StatusOr<std::vector<std::string>> ScenarioFilesOrDiscover(const std::vector<std::string>& files);

}  // namespace zerosim::study
