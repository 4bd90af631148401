#include "cli/options.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.h"
#include "study/output_format.h"
#include "study/sweep_output.h"

namespace zerosim::cli {

namespace po = boost::program_options;

std::optional<int> ParseCommandLine(const char* command, int argc, char** argv, const po::options_description& visible,
                                    const po::options_description* hidden,
                                    const po::positional_options_description* positional) {
  po::options_description all;
  all.add(visible);
  if (hidden != nullptr) all.add(*hidden);
  po::variables_map vm;
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(all);
    if (positional != nullptr) parser.positional(*positional);
    po::store(parser.run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "zerosim {}: {}\n\n", command, e.what());
    std::cerr << visible << "\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::ostringstream help;
    help << visible << "\n";
    return Print(command, help.str()) ? kExitOk : kExitFailed;
  }
  return std::nullopt;
}

StatusOr<sim::Reduction> ParseReduction(const std::string& name) {
  if (name == "symmetric") return sim::Reduction::kSymmetric;
  if (name == "full") return sim::Reduction::kFull;
  if (name == "classes") return sim::Reduction::kClasses;
  return Status::Error(fmt::format("unknown reduction '{}' (available: symmetric, classes, full)", name));
}

bool Print(const char* command, std::string_view text, std::FILE* out) {
  const Status st = study::WriteStream(out, text, out == stdout ? "stdout" : "stderr");
  if (!st.ok()) fmt::print(stderr, "zerosim {}: error: {}\n", command, st.message());
  return st.ok();
}

Status WriteOutputFile(const std::string& path, const std::string& text) {
  if (path == "-") return study::WriteStream(stdout, text, "stdout");
  return study::ReplaceFile(path, text);
}

void AddEngineOptions(po::options_description* opts, EngineArgs* a, bool allow_both) {
  opts->add_options()
      ("engine", po::value<std::string>(&a->engine)->value_name("NAME"),
       allow_both ? "how communication is timed: analytic (NCCL's cost model per tier, each collective alone; default), "
                    "sim (SimGrid discrete-event replay: contention, overlap, topology), both (side by side)"
                  : "how communication is timed: analytic (NCCL's cost model per tier, each collective alone; "
                    "default) or sim (SimGrid discrete-event replay: contention, overlap, topology)")
      ("fidelity", po::value<std::string>(&a->fidelity)->value_name("LEVEL"),
       "sim: macro (one flow per ring edge; default) or step (every ring step a flow; validation, <= ~1k GPUs)")
      ("reduction", po::value<std::string>(&a->reduction)->value_name("MODE"),
       "sim: symmetric (one representative rank, two symmetry units of the fabric; default, exact; with "
       "perturbations: classes), classes (one rank per equivalence class of nodes, whole cluster) or full "
       "(every rank, whole cluster)")
      ("cfg", po::value<std::vector<std::string>>(&a->simgrid_cfg)->value_name("KEY:VALUE"),
       "sim: a SimGrid configuration setting, applied after ZeroSim's own (e.g. --cfg "
       "network/crosstraffic:1; SimGrid's --help-cfg lists them); recorded in the report's provenance")
      ("log", po::value<std::vector<std::string>>(&a->simgrid_log)->value_name("SETTING"),
       "sim: a SimGrid logging setting, e.g. --log root.thres:info or --log ker_lmm.thres:debug");
}

Status ResolveEngine(const EngineArgs& a, bool allow_both, study::Engine* engine, sim::SimOptions* o) {
  if (a.engine == "analytic") {
    *engine = study::Engine::kAnalytic;
  } else if (a.engine == "sim") {
    *engine = study::Engine::kSim;
  } else if (a.engine == "both" && allow_both) {
    *engine = study::Engine::kBoth;
  } else {
    return Status::Error(fmt::format("unknown engine '{}' (available: analytic, sim{})", a.engine,
                                     allow_both ? ", both" : ""));
  }
  const bool sim_only = !a.fidelity.empty() || !a.reduction.empty() || !a.simgrid_cfg.empty() ||
                        !a.simgrid_log.empty();
  if (*engine == study::Engine::kAnalytic && sim_only) {
    const char* option = !a.fidelity.empty()      ? "--fidelity"
                         : !a.reduction.empty()   ? "--reduction"
                         : !a.simgrid_cfg.empty() ? "--cfg"
                                                  : "--log";
    return Status::Error(fmt::format("{} applies to the sim engine only (add --engine sim{})", option,
                                     allow_both ? " or --engine both" : ""));
  }
  for (const std::string& c : a.simgrid_cfg) {
    // SimGrid's syntax (xbt/config.cpp: "name:value"); whether the key and value are valid SimGrid checks
    // when the engine starts.
    const size_t colon = c.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == c.size()) {
      return Status::Error(fmt::format("--cfg '{}': want KEY:VALUE, e.g. network/model:CM02", c));
    }
  }
  for (const std::string& l : a.simgrid_log) {
    if (l.empty() || l.find_first_of(" \t\n") != std::string::npos) {
      return Status::Error(
          fmt::format("--log '{}': want one setting without spaces, e.g. root.thres:info", l));
    }
  }
  o->simgrid_cfg = a.simgrid_cfg;
  o->simgrid_log = a.simgrid_log;
  const std::string fidelity = a.fidelity.empty() ? "macro" : a.fidelity;
  if (fidelity != "macro" && fidelity != "step") {
    return Status::Error(fmt::format("unknown fidelity '{}' (available: macro, step)", fidelity));
  }
  o->fidelity = fidelity == "macro" ? sim::Fidelity::kMacro : sim::Fidelity::kStep;
  StatusOr<sim::Reduction> reduction = ParseReduction(a.reduction.empty() ? "symmetric" : a.reduction);
  if (!reduction.ok()) return reduction.status();
  o->reduction = *reduction;
  return Status::Ok();
}

void AddVariantJobsOption(po::options_description* opts, int* jobs) {
  opts->add_options()("jobs,j", po::value<int>(jobs)->value_name("N"),
                      "sim: variants simulated at once, each in its own process (default 0: the machine's "
                      "hardware threads; the report does not depend on it)");
}

Status ResolveVariantJobs(int jobs, sim::SimOptions* o) {
  if (jobs == 0) {
    o->variant_jobs = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    return Status::Ok();
  }
  if (jobs < 1 || jobs > 1024) {
    return Status::Error(fmt::format("--jobs wants 0 (the hardware threads) or 1 to 1024 simulations at once, got {}", jobs));
  }
  o->variant_jobs = jobs;
  return Status::Ok();
}

void AddFormatOption(boost::program_options::options_description* opts, std::string* format) {
  opts->add_options()(
      "format", boost::program_options::value<std::string>(format)->value_name("FORMAT"),
      "table (default), json (the report document, docs/report.md), jsonl or csv (one row per "
      "variant, the sweep rows' field names) on stdout");
}

}  // namespace zerosim::cli
