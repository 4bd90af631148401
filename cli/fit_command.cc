// `zerosim fit [scenario...] --param NAME[=INITIAL] ... [--check]`: wiring for study/fit.h.
//
// Fits at most three calibration parameters to every tflops_per_gpu expectation of the given scenarios at
// once (bounded Levenberg-Marquardt on log(simulated / published), Eigen), then prints the fitted values,
// their standard errors and the validation table. The fitted values are not written anywhere: the user
// copies them, with the command that produced them, into the files the table names. `--check` refits
// and fails unless the values in the files are as good as the fit's optimum (their sum of squared
// residuals within 0.1% of it): the checked-in values must stay the fit's result. (Not the parameters'
// distance: a weakly determined parameter, like the GEMM curve's half-tokens, may move along a flat
// valley without changing the fit.)
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "study/fit.h"
#include "study/loo_record.h"
#include "study/scenario_runner.h"
#include "study/validation.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

// "0.5" -> 0.5: the whole text a finite number.
std::optional<double> ParseNumber(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

int FitCommand(int argc, char** argv) {
  std::vector<std::string> files, param_args;
  bool check = false, loo = false, write_loo = false, check_loo = false;
  std::string knob_list;
  for (const study::FitKnob& k : study::FitKnobs()) knob_list += fmt::format("\n  {:<34} ({})", k.name, k.where);
  po::options_description opts(
      "usage: zerosim fit [scenario.toml...] --param NAME[=INITIAL] [--param ...] [--check] [--loo]\n\n"
      "Fits up to six parameters to every published TFLOPs- and tokens/s-per-GPU expectation of the scenarios at\n"
      "once (a GPU's compute: the calibration set under scenarios/calibration, one file per GPU and precision)\n"
      "(with no scenario: the paper's, under ./scenarios/zeropp_paper; published runs of real systems under\n"
      "scenarios/published are validation evidence and are never fitted), by bounded least squares on\n"
      "log(simulated / published). Parameters:" + knob_list + "\n\noptions");
  opts.add_options()("help,h", "print this help")
      ("param", po::value<std::vector<std::string>>(&param_args)->value_name("NAME[=X]"),
       "a parameter to fit, optionally with a starting value (default: the value in the files)")
      ("check", po::bool_switch(&check), "fail unless the files' values fit as well as the optimum (within 0.1%)")
      ("loo", po::bool_switch(&loo), "cross-validate: refit leaving each model size out and predict its points")
      ("write-loo", po::bool_switch(&write_loo),
       "with --loo: write each scenario's out-of-sample predictions beside it (<scenario>.loo.json), which "
       "`zerosim validate` builds the bands from (study/loo_record.h)")
      ("check-loo", po::bool_switch(&check_loo),
       "with --loo: fail unless each scenario's <scenario>.loo.json holds these predictions (within 1e-6)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>(&files));
  po::positional_options_description pos;
  pos.add("scenario", -1);
  if (std::optional<int> stop = ParseCommandLine("fit", argc, argv, opts, &hidden, &pos)) return *stop;
  if ((write_loo || check_loo) && !loo) {
    fmt::print(stderr, "zerosim fit: --write-loo and --check-loo are about the cross-validation: give --loo with them\n");
    return kExitUsage;
  }
  if (param_args.empty() || param_args.size() > 6) {
    fmt::print(stderr, "zerosim fit: give one to six --param (at most six parameters may be fitted at once)\n");
    return kExitUsage;
  }
  if (files.empty() && std::filesystem::is_directory("scenarios/zeropp_paper")) {
    files = study::FindScenarioFiles("scenarios/zeropp_paper");
  }
  for (const std::string& f : files) {
    if (f.find("published") != std::string::npos) {
      fmt::print(stderr, "zerosim fit: {} holds published runs of real systems: validation evidence, never fitted\n", f);
      return kExitUsage;
    }
  }
  StatusOr<std::vector<std::string>> scenario_files = study::ScenarioFilesOrDiscover(files);
  if (!scenario_files.ok()) {
    fmt::print(stderr, "zerosim fit: {}\n", scenario_files.status().message());
    return kExitUsage;
  }
  std::vector<io::Scenario> scenarios;
  for (const std::string& f : *scenario_files) {
    StatusOr<io::Scenario> s = study::LoadScenarioOrDefault(f);
    if (!s.ok()) {
      fmt::print(stderr, "zerosim fit: error: {}\n", s.status().message());
      return kExitUsage;
    }
    if (!s->expectations.empty()) scenarios.push_back(std::move(s).value());
  }
  if (scenarios.empty()) {
    fmt::print(stderr, "zerosim fit: no scenario with expectations\n");
    return kExitUsage;
  }

  std::vector<const study::FitKnob*> knobs;
  std::vector<study::FitParameter> params;
  for (const std::string& arg : param_args) {
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const study::FitKnob* k = study::FindFitKnob(name);
    if (k == nullptr) {
      fmt::print(stderr, "zerosim fit: unknown parameter '{}' (see --help)\n", name);
      return kExitUsage;
    }
    double initial = k->get(scenarios.front());
    if (eq != std::string::npos) {
      const std::optional<double> v = ParseNumber(arg.substr(eq + 1));
      if (!v || *v < k->lower || *v > k->upper) {
        fmt::print(stderr,
                   "zerosim fit: --param {}: the starting value must be a number between {:g} and {:g}, got '{}'\n",
                   name, k->lower, k->upper, arg.substr(eq + 1));
        return kExitUsage;
      }
      initial = *v;
    }
    for (const study::FitKnob* other : knobs) {
      if (other == k) {
        fmt::print(stderr, "zerosim fit: --param {} is given twice\n", name);
        return kExitUsage;
      }
    }
    knobs.push_back(k);
    params.push_back({name, initial, k->lower, k->upper});
  }
  StatusOr<study::FitOutcome> outcome = study::FitKnobValues(scenarios, knobs, params);
  if (!outcome.ok()) {
    fmt::print(stderr, "zerosim fit: error: {}\n", outcome.status().message());
    return kExitFailed;
  }
  const study::FitResult& fit = outcome->fit;
  const std::vector<double>& file_values = outcome->file_values;

  std::string out = fmt::format("fitted {} parameter(s) to {} published values ({} iterations{}):\n",
                                fit.params.size(), fit.residuals.size(), fit.iterations,
                                fit.converged ? "" : ", NOT converged");
  for (size_t i = 0; i < fit.params.size(); ++i) {
    const bool at_bound = fit.params[i].value <= knobs[i]->lower + 1e-9 * (knobs[i]->upper - knobs[i]->lower) ||
                          fit.params[i].value >= knobs[i]->upper - 1e-9 * (knobs[i]->upper - knobs[i]->lower);
    out += fmt::format("  {:<34} {:.6g} +- {:.2g}   bounds [{:g}, {:g}]{}   (files: {:.6g}; belongs in {})\n",
                       fit.params[i].name, fit.params[i].value, fit.std_errors[i], knobs[i]->lower, knobs[i]->upper,
                       at_bound ? " AT ITS BOUND: a missing mechanism" : "", file_values[i], knobs[i]->where);
  }
  out += fmt::format("  rms log residual {:.4f} (about {:.1f}% per point)\n\n",
                     std::sqrt(fit.cost / static_cast<double>(fit.residuals.size())),
                     100 * std::sqrt(fit.cost / static_cast<double>(fit.residuals.size())));
  out += study::FormatValidation(outcome->fitted);

  if (loo) {
    StatusOr<std::vector<study::LeftOut>> folds = study::LeaveOneModelOut(scenarios, knobs, params);
    if (!folds.ok()) {
      fmt::print(stderr, "zerosim fit: error: {}\n", folds.status().message());
      return kExitFailed;
    }
    out += fmt::format("\nleave one model size out ({} folds): each model's points predicted by a fit on the others\n",
               folds->size());
    std::vector<double> errors;
    for (const study::LeftOut& f : *folds) {
      std::string values;
      for (size_t i = 0; i < f.fit.params.size(); ++i) values += fmt::format(" {:.4g}", f.fit.params[i].value);
      double sum = 0;
      int n = 0;
      for (const study::PointResult& p : f.predicted) {
        if (!study::IsFitted(p.metric)) continue;
        errors.push_back(p.error);
        sum += p.error;
        ++n;
      }
      out += fmt::format("  {:<12} n {:>3}  mean error {:+6.1f}%   fit:{}\n", f.model, n, n > 0 ? 100 * sum / n : 0.0, values);
    }
    std::vector<double> abs_errors;
    double signed_sum = 0;
    for (double e : errors) {
      abs_errors.push_back(std::abs(e));
      signed_sum += e;
    }
    std::sort(abs_errors.begin(), abs_errors.end());
    const size_t n = abs_errors.size();
    const double median = n == 0 ? 0 : (n % 2 == 1 ? abs_errors[n / 2] : 0.5 * (abs_errors[n / 2 - 1] + abs_errors[n / 2]));
    out += fmt::format("out of sample: n {}, median |error| {:.1f}%, worst {:.1f}%, mean signed {:+.1f}%\n", n, 100 * median,
               n == 0 ? 0.0 : 100 * abs_errors.back(), n == 0 ? 0.0 : 100 * signed_sum / static_cast<double>(n));
    std::vector<study::PointResult> predicted;
    for (const study::LeftOut& f : *folds) predicted.insert(predicted.end(), f.predicted.begin(), f.predicted.end());
    if (check_loo) {
      std::vector<study::PointResult> recorded = predicted;
      for (study::PointResult& p : recorded) p.simulated_out_of_sample = 0;
      for (const io::Scenario& s : scenarios) {
        if (Status st = study::ApplyLooRecord(s.scenario_file.path, &recorded); !st.ok()) {
          fmt::print(stderr, "zerosim fit: CHECK FAILED: {}\n", st.message());
          return kExitFailed;
        }
      }
      for (const study::PointResult& p : recorded) {
        if (!study::IsFitted(p.metric)) continue;
        if (std::abs(p.simulated_out_of_sample - p.simulated) > 1e-6 * p.simulated) {
          fmt::print(stderr,
                     "zerosim fit: CHECK FAILED: {} of {} is predicted {:.6g} out of sample, its record {} says {:.6g} "
                     "(none: 0): rerun this command with --write-loo\n",
                     p.variant, p.scenario, p.simulated, study::LooRecordPath(p.scenario), p.simulated_out_of_sample);
          return kExitFailed;
        }
      }
      out += "check passed: the out-of-sample records hold these predictions\n";
    }
    if (write_loo) {
      std::string command = "zerosim fit";
      for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
      for (const io::Scenario& s : scenarios) {
        const std::string path = study::LooRecordPath(s.scenario_file.path);
        if (Status st = WriteOutputFile(path, study::LooRecordJson(predicted, s.scenario_file.path, command));
            !st.ok()) {
          fmt::print(stderr, "zerosim fit: error: {}\n", st.message());
          return kExitFailed;
        }
        out += fmt::format("wrote {}\n", path);
      }
    }
  }

  if (check) {
    const double file_cost = outcome->file_cost;
    if (file_cost > fit.cost * (1 + 1e-3) + 1e-12) {
      out += fmt::format(
          "\nCHECK FAILED: the files' values leave a sum of squared residuals of {:.6g}, the fit reaches "
          "{:.6g}: "
          "rerun the fit and update the files it names\n",
          file_cost, fit.cost);
      Print("fit", out);
      return kExitFailed;
    }
    out += fmt::format(
        "\ncheck passed: the files' values fit as well as the optimum (sum of squares {:.6g} vs {:.6g})\n",
        file_cost, fit.cost);
  }
  return Print("fit", out) ? kExitOk : kExitFailed;
}

}  // namespace zerosim::cli
