// `zerosim validate [scenario...] [--contract FILE] [--baseline FILE] [--write-baseline FILE] [--jsonl FILE]`
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "study/nccl_check.h"
#include "study/published_inventory.h"
#include "study/scenario_runner.h"
#include "model/io/band_loader.h"
#include "study/accuracy_contract.h"
#include "study/bands.h"
#include "study/loo_record.h"
#include "study/validation.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

// Writes one of validate's output files; on failure "zerosim validate: error: cannot ...: <reason>" and
// false.
bool WriteOrSay(const std::string& path, const std::string& text) {
  const Status st = WriteOutputFile(path, text);
  if (!st.ok()) fmt::print(stderr, "zerosim validate: error: {}\n", st.message());
  return st.ok();
}

// The whole of a file validate reads, or nullopt after "zerosim validate: cannot open ...".
std::optional<std::string> ReadOrSay(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "zerosim validate: cannot open {} {}\n", what, path);
    return std::nullopt;
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int ValidateCommand(int argc, char** argv) {
  std::vector<std::string> files;
  std::string baseline, write_baseline, jsonl, nccl_points, write_bands, contract_path;
  EngineArgs engine_args;
  int jobs = 0;
  po::options_description opts(
      "usage: zerosim validate [scenario.toml...] [options]\n\n"
      "Runs every scenario that carries published expectations ([[expect]] tables; with no argument, every\n"
      "such scenario under ./scenarios) and prints published against simulated values with the error, then\n"
      "the median and worst error per metric beside the targets. Exits 1 when a point is outside its\n"
      "tolerance; with --contract, exits 1 only when a validation group breaks its limits (the accuracy\n"
      "contract, tests/accuracy_contract.toml); with --baseline, only when a point is worse than the\n"
      "baseline (the per-point regression gate).\n"
      "With --engine both, also compares the two engines' iteration times, variant by variant.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("contract", po::value<std::string>(&contract_path)->value_name("FILE"),
       "check every validation group against FILE's limits on median, worst and mean signed |error| (each with "
       "its reason; tests/accuracy_contract.toml): exit 1 on a broken limit or a group without one")
      ("baseline", po::value<std::string>(&baseline)->value_name("FILE"),
       "fail only on points whose |error| exceeds FILE's (written by --write-baseline, for one engine)")
      ("write-baseline", po::value<std::string>(&write_baseline)->value_name("FILE"), "write the per-point errors to FILE")
      ("jsonl", po::value<std::string>(&jsonl)->value_name("FILE"), "write one JSON line per point to FILE")
      ("write-bands", po::value<std::string>(&write_bands)->value_name("FILE"),
       "write the band table (per GPU family x framework x regime: 5th-95th percentile of published / simulated) "
       "to FILE; kernels/calibration/bands.json is compiled into the binary")
      ("nccl-points", po::value<std::string>(&nccl_points)->value_name("FILE"),
       "instead of scenarios: the network model against published NCCL bus bandwidths (FILE as written by "
       "scripts/nccl_points_to_checks.py, e.g. scenarios/published/nccl_points.json); with --contract, exit 1 "
       "when a source breaks its [[nccl_limit]] or has none");
  AddEngineOptions(&opts, &engine_args, /*allow_both=*/true);
  AddVariantJobsOption(&opts, &jobs);
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>(&files));
  po::positional_options_description pos;
  pos.add("scenario", -1);
  if (std::optional<int> stop = ParseCommandLine("validate", argc, argv, opts, &hidden, &pos)) return *stop;
  // The contract, read before any work so that a malformed one stops the run at once.
  std::optional<study::AccuracyContract> contract;
  if (!contract_path.empty()) {
    const std::optional<std::string> text = ReadOrSay(contract_path, "contract");
    if (!text) return kExitUsage;
    StatusOr<study::AccuracyContract> c = study::ParseAccuracyContract(*text, contract_path);
    if (!c.ok()) {
      fmt::print(stderr, "zerosim validate: error: {}\n", c.status().message());
      return kExitUsage;
    }
    contract = std::move(c).value();
  }
  if (!nccl_points.empty()) {
    StatusOr<study::NcclCheck> check = study::CheckNcclPoints(nccl_points);
    if (!check.ok()) {
      fmt::print(stderr, "zerosim validate: error: {}\n", check.status().message());
      return kExitUsage;
    }
    if (!contract) return Print("validate", check->table) ? kExitOk : kExitFailed;
    const study::ContractCheck held = study::CheckNcclContract(*contract, check->sources);
    std::string out = fmt::format("{}\naccuracy contract {} (NCCL points):\n{}", check->table, contract_path, held.table);
    if (held.failures.empty()) {
      out += fmt::format("every NCCL source within its limits ({} limits)\n", contract->nccl_limits.size());
    } else {
      out += "CONTRACT BROKEN:\n";
      for (const std::string& f : held.failures) out += fmt::format("  {}\n", f);
    }
    return Print("validate", out) && held.failures.empty() ? kExitOk : kExitFailed;
  }
  study::Engine engine = study::Engine::kAnalytic;
  sim::SimOptions sim_options;
  Status st = ResolveEngine(engine_args, /*allow_both=*/true, &engine, &sim_options);
  if (st.ok()) st = ResolveVariantJobs(jobs, &sim_options);
  if (!st.ok()) {
    fmt::print(stderr, "zerosim validate: {}\n", st.message());
    return kExitUsage;
  }
  if (engine == study::Engine::kBoth && (!baseline.empty() || !write_baseline.empty())) {
    fmt::print(stderr, "zerosim validate: a baseline holds one engine's errors: use --engine analytic or sim with it\n");
    return kExitUsage;
  }
  StatusOr<std::vector<std::string>> scenario_files = study::ScenarioFilesOrDiscover(files);
  if (!scenario_files.ok()) {
    fmt::print(stderr, "zerosim validate: {}\n", scenario_files.status().message());
    return kExitUsage;
  }
  const bool discover = files.empty();

  std::vector<study::PointResult> points;
  std::vector<model::Report> reports;
  std::vector<model::Calibration> calibrations;  // every scenario's, for the spread between software generations
  std::string out_of_sample;  // the calibration set's groups, leave one model size out (their fit's record)
  for (const std::string& f : *scenario_files) {
    StatusOr<io::Scenario> s = study::LoadScenarioOrDefault(f);
    if (!s.ok()) {
      fmt::print(stderr, "zerosim validate: error: {}\n", s.status().message());
      return kExitUsage;
    }
    if (s->expectations.empty()) {
      if (!discover) fmt::print(stderr, "zerosim validate: {} has no [[expect]] tables; skipped\n", f);
      continue;
    }
    fmt::print(stderr, "validating {} ({} variants, {} expectations)\n", f, s->variants.size(), s->expectations.size());
    // A group the compute was fitted on is in sample here; its out-of-sample error is the fit's own cross-validation
    // (`zerosim fit --loo`), recorded with the calibration set it produced.
    if (s->calibration.compute.kind == "empirical" && s->group.rfind("calibration:", 0) == 0) {
      out_of_sample += fmt::format("{:<52} {:<14} leave one model size out: median |error| {:.1f}% ({})\n", s->group,
                                   s->calibration.compute.software, 100 * s->calibration.compute.loo_median_abs_error,
                                   s->calibration.path);
    }
    StatusOr<model::Report> r = study::EvaluateScenario(*s, engine, sim_options);
    if (!r.ok()) {
      fmt::print(stderr, "zerosim validate: error: {}\n", r.status().message());
      return kExitFailed;
    }
    for (const char* name : {"analytic", "sim"}) {
      std::vector<study::PointResult> p = study::CheckExpectations(*s, *r, name);
      // The calibration set's out-of-sample predictions (fit --loo --write-loo), for the bands.
      if (Status loo = study::ApplyLooRecord(f, &p); !loo.ok()) {
        fmt::print(stderr, "zerosim validate: error: {}\n", loo.message());
        return kExitUsage;
      }
      points.insert(points.end(), p.begin(), p.end());
    }
    calibrations.push_back(s->calibration);
    reports.push_back(std::move(r).value());
  }
  if (points.empty()) {
    fmt::print(stderr, "zerosim validate: no expectations found\n");
    return kExitUsage;
  }
  std::string spread_how;
  const double spread = study::GenerationSpread(calibrations, &spread_how);
  std::string out = fmt::format("{}\n{}{}", study::FormatValidation(points), study::FormatGroupSummary(points),
                                study::FormatBandCoverage(points, spread));
  out += fmt::format("off the calibrated ground (derived compute, unvalidated GPU family) bands widen by {:.3f} each "
                     "side: the spread between software generations, {}\n",
                     spread, spread_how);
  if (!out_of_sample.empty()) {
    out += fmt::format("\nthe calibration set is in sample above (the compute is fitted on it); out of sample, from "
                       "each calibration file's fit record (zerosim fit --loo):\n{}",
                       out_of_sample);
  }
  if (!write_bands.empty() &&
      !WriteOrSay(
          write_bands,
          io::BandsJson(
              study::BuildBandTable(points, spread),
              "Bands on every answer (model/report/band.h): per GPU family x framework [x tp] x regime and "
              "each parent of those keys (\"\" = every point), the 5th, 50th and 95th percentiles of published / "
              "simulated throughput over the analytic engine's validation points, out of sample (a calibration "
              "point's simulated value is its leave-one-model-size-out prediction, <scenario>.loo.json). A key "
              "with fewer than min_points points takes its parent's band. derived_widening: " +
                  spread_how +
                  ". Written by `zerosim validate --write-bands kernels/calibration/bands.json` (every "
                  "scenario); do not edit."))) {
    return kExitFailed;
  }
  // The published runs' inventory beside their scenarios: how many run exactly, approximated, not at all.
  StatusOr<std::string> inventory = study::PublishedInventories(*scenario_files);
  if (!inventory.ok()) {
    fmt::print(stderr, "zerosim validate: error: {}\n", inventory.status().message());
    return kExitUsage;
  }
  if (!inventory->empty()) out += fmt::format("\n{}", *inventory);
  if (engine == study::Engine::kBoth) out += fmt::format("\n{}", study::FormatEngineComparison(reports));
  if (!Print("validate", out)) return kExitFailed;
  if (!jsonl.empty() && !WriteOrSay(jsonl, study::ValidationJsonl(points))) return kExitFailed;
  if (!write_baseline.empty() &&
      !WriteOrSay(write_baseline, study::BaselineJson(points, engine_args.engine))) {
    return kExitFailed;
  }

  bool contract_broken = false;
  if (contract) {
    // A discovered run evaluated every shipped scenario: a limit without points is a renamed or removed group.
    const study::ContractCheck check = study::CheckAccuracyContract(*contract, points, /*full_run=*/discover);
    std::string notes = fmt::format("\naccuracy contract {}:\n{}", contract_path, check.table);
    if (check.failures.empty()) {
      notes += fmt::format("every validation group within its limits ({} limits)\n", contract->limits.size());
    } else {
      notes += "CONTRACT BROKEN:\n";
      for (const std::string& f : check.failures) notes += fmt::format("  {}\n", f);
      contract_broken = true;
    }
    if (!Print("validate", notes)) return kExitFailed;
    if (baseline.empty()) return contract_broken ? kExitFailed : kExitOk;
  }
  if (!baseline.empty()) {
    const std::optional<std::string> text = ReadOrSay(baseline, "baseline");
    if (!text) return kExitUsage;
    std::string notes;
    StatusOr<std::vector<std::string>> worse = study::CompareWithBaseline(points, *text, *scenario_files, &notes);
    if (!worse.ok()) {
      fmt::print(stderr, "zerosim validate: {}: {}\n", baseline, worse.status().message());
      return kExitUsage;
    }
    if (!worse->empty()) {
      notes += fmt::format("\nREGRESSION against {}:\n", baseline);
      for (const std::string& w : *worse) notes += fmt::format("  {}\n", w);
      Print("validate", notes);
      return kExitFailed;
    }
    notes +=
        fmt::format("\nno point is worse than the baseline {} ({} points gated)\n", baseline, points.size());
    return Print("validate", notes) && !contract_broken ? kExitOk : kExitFailed;
  }
  int outside = 0;
  for (const study::PointResult& p : points) outside += !p.within();
  if (outside > 0) {
    Print("validate", fmt::format("\n{} of {} points outside their tolerance\n", outside, points.size()));
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace zerosim::cli
