// The fit: at most six calibration parameters (knobs) fitted to every tflops_per_gpu and tokens_per_s_per_gpu
// expectation of a
// set of scenarios at once, by bounded Levenberg-Marquardt on log(simulated / published)
// (study/least_squares.h). Schedules come from one cache: the knobs change a schedule only through
// ZeroConfig (host_overhead_per_module), which the cache's key holds.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/io/loaders.h"
#include "model/status.h"
#include "study/least_squares.h"
#include "study/validation.h"

namespace zerosim::study {

// A parameter the fit may move, with its bounds and where its value lives in the input files.
struct FitKnob {
  const char* name;
  const char* where;  // the file key the fitted value belongs to
  double lower;
  double upper;
  double (*get)(const io::Scenario&);
  void (*set)(io::Scenario&, double);
};

// Every knob, in the order `zerosim fit --help` lists them.
const std::vector<FitKnob>& FitKnobs();
// The knob named `name`, or null.
const FitKnob* FindFitKnob(const std::string& name);

struct FitOutcome {
  study::FitResult fit;
  std::vector<double> file_values;  // each knob's value in the files (scenarios.front())
  double file_cost = 0;             // the sum of squared residuals at the files' values
  std::vector<PointResult> fitted;  // every expectation at the fitted values
};

// Fits `params` (one per entry of `knobs`, in the same order; their initial values and bounds) to the
// tflops_per_gpu expectations of `scenarios`. Errors: an evaluation that fails at some trial value (a broken
// invariant).
// The metrics the fit compares (log of simulated over published): TFLOPs and tokens/s per GPU.
bool IsFitted(io::Metric m);

// The model of an expectation's `config` ("MPT-125m mb104 s512 ..." -> "MPT-125m"): its first word.
std::string ModelOfConfig(const std::string& config);

// `s` with only the expectations `keep` accepts and the variants they name (so nothing else is evaluated).
io::Scenario RestrictExpectations(const io::Scenario& s, const std::function<bool(const io::Expectation&)>& keep);

// Cross-validation, leaving one model size out: for each model of the expectations (ModelOfConfig), the fit on
// every other model's points and the held-out points predicted at its values.
struct LeftOut {
  std::string model;
  study::FitResult fit;
  std::vector<PointResult> predicted;
};
StatusOr<std::vector<LeftOut>> LeaveOneModelOut(const std::vector<io::Scenario>& scenarios,
                                                const std::vector<const FitKnob*>& knobs,
                                                const std::vector<study::FitParameter>& params);

StatusOr<FitOutcome> FitKnobValues(const std::vector<io::Scenario>& scenarios,
                                   const std::vector<const FitKnob*>& knobs,
                                   const std::vector<study::FitParameter>& params);

}  // namespace zerosim::study
