// `zerosim run [scenario.toml] [--json FILE] [--format FORMAT] [--engine analytic|sim|both] [--trace FILE]`
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "model/io/ds_config.h"
#include "model/io/hf_config.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"
#include "model/io/sweep.h"
#include "model/spec/feasibility.h"
#include "model/units.h"
#include "sim/chrome_trace.h"
#include "study/batch_search_table.h"
#include "study/output_format.h"
#include "study/scenario_runner.h"
#include "study/sweep_grid.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

struct RunArgs {
  std::string scenario;
  std::string json_path;
  EngineArgs engine;
  std::string trace_path;
  std::string trace_ranks;  // empty: not given (rank 0)
  std::string hf_config;    // a Hugging Face config.json whose shape replaces every variant's model
  std::string ds_config;    // a DeepSpeed ds_config.json applied over every variant (model/io/ds_config.h)
  bool search_batch = false;  // per variant, the largest micro-batch that fits (model/report/batch_search.h)
  int64_t global_batch = kNoGlobalBatch;  // with search_batch: the target sequences per optimizer step
  std::vector<std::string> settings;  // --set KEY=VALUE
  std::string format = "table";       // --format: table, json, jsonl or csv (study/output_format.h)
  int jobs = 0;                       // --jobs: variants simulated at once (0: the hardware threads)
};

// Parses "0,1,17" into distinct ranks.
StatusOr<std::vector<int>> ParseRanks(const std::string& text) {
  std::vector<int> ranks;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int r = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), r);
    if (ec != std::errc() || end != item.data() + item.size() || r < 0) {
      return Status::Error(fmt::format("--trace-ranks: '{}' is not a rank number", item));
    }
    if (std::find(ranks.begin(), ranks.end(), r) != ranks.end()) {
      return Status::Error(fmt::format("--trace-ranks: rank {} is listed twice", r));
    }
    ranks.push_back(r);
  }
  if (ranks.empty()) return Status::Error("--trace-ranks: no rank given");
  return ranks;
}

// The engine and SimOptions the arguments ask for, with the traced ranks.
Status ResolveRunEngine(const RunArgs& a, study::Engine* engine, sim::SimOptions* o) {
  if (Status st = ResolveEngine(a.engine, /*allow_both=*/true, engine, o); !st.ok()) return st;
  if (Status st = ResolveVariantJobs(a.jobs, o); !st.ok()) return st;
  if (a.trace_path.empty()) {
    if (!a.trace_ranks.empty()) return Status::Error("--trace-ranks needs --trace FILE");
    return Status::Ok();
  }
  if (*engine == study::Engine::kAnalytic) return Status::Error("--trace needs the sim engine (--engine sim or both)");
  if (a.trace_path == "-" && a.json_path == "-") return Status::Error("--json - and --trace - both want stdout");
  StatusOr<std::vector<int>> ranks = ParseRanks(a.trace_ranks.empty() ? "0" : a.trace_ranks);
  if (!ranks.ok()) return ranks.status();
  if (o->reduction == sim::Reduction::kSymmetric && ranks->size() > 1) {
    // sim/replay.cc: every rank's timeline is the representative rank's under the symmetric reduction.
    return Status::Error(fmt::format("--trace-ranks {}: under --reduction symmetric every rank replays the same "
                                     "timeline; trace one rank, or add --reduction full to see ranks differ",
                                     a.trace_ranks));
  }
  o->trace_ranks = *ranks;
  return Status::Ok();
}

}  // namespace

int RunCommand(int argc, char** argv) {
  RunArgs a;
  po::options_description opts(
      "usage: zerosim run [scenario.toml] [options]\n\n"
      "Evaluates every variant of a scenario (ZeRO-1/2/3, ZeRO++ and any mix of qwZ/hpZ/qgZ, MiCS, FSDP and FSDP2,\n"
      "each with its tensor and pipeline layout) and prints a table:\n"
      "iteration time, TFLOPs per GPU, tokens/s, exposed communication, bytes per link tier and phase, memory\n"
      "per GPU with feasibility. With no scenario, runs the embedded default (the ZeRO++ paper's 18B model\n"
      "on 384 V100 with 1 x 100 Gbps per node). Scenario format: docs/inputs.md; JSON: docs/report.md.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("json", po::value<std::string>(&a.json_path)->value_name("FILE"),
       "also write the full report as JSON to FILE (- for stdout; the table then goes to stderr)");
  AddEngineOptions(&opts, &a.engine, /*allow_both=*/true);
  AddVariantJobsOption(&opts, &a.jobs);
  AddFormatOption(&opts, &a.format);
  opts.add_options()
      ("hf-config", po::value<std::string>(&a.hf_config)->value_name("FILE"),
       "a Hugging Face config.json (llama, mistral, qwen2, gpt2, gpt_neox, mpt, opt) whose model replaces every "
       "variant's; the scenario's training settings (seq_len, attention, batch) still apply")
      ("ds-config", po::value<std::string>(&a.ds_config)->value_name("FILE"),
       "a DeepSpeed ds_config.json applied over every variant: micro-batch, accumulation, fp16/bf16, "
       "zero_optimization.*, communication_data_type, activation_checkpointing; keys ZeroSim does not model "
       "are listed in the report's provenance")
      ("search-batch", po::bool_switch(&a.search_batch),
       "per variant, run at the largest micro-batch that fits HBM (and, with --global-batch, the "
       "accumulation that reaches it)")
      ("global-batch", po::value<int64_t>(&a.global_batch)->value_name("N"),
       "with --search-batch: the target global batch in sequences per optimizer step")
      ("set", po::value<std::vector<std::string>>(&a.settings)->value_name("KEY=VALUE"),
       "a what-if on the scenario, any sweep axis (docs/sweeps.md), e.g. --set nic.bandwidth=200Gbps --set nodes=48")
      ("trace", po::value<std::string>(&a.trace_path)->value_name("FILE"),
       "sim: write a Chrome/Perfetto trace of the chosen ranks' ops on simulated time to FILE")
      ("trace-ranks", po::value<std::string>(&a.trace_ranks)->value_name("LIST"),
       "sim: distinct ranks to trace, comma-separated (default 0; several need --reduction full)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>(&a.scenario));
  po::positional_options_description pos;
  pos.add("scenario", 1);
  if (std::optional<int> stop = ParseCommandLine("run", argc, argv, opts, &hidden, &pos)) return *stop;
  study::Engine engine = study::Engine::kAnalytic;
  sim::SimOptions sim_options;
  StatusOr<study::OutputFormat> format = study::ParseOutputFormat(a.format);
  if (format.ok() && *format != study::OutputFormat::kTable && (a.json_path == "-" || a.trace_path == "-")) {
    format = Status::Error(fmt::format("--format {} writes to stdout, as does --{} -", a.format,
                                       a.json_path == "-" ? "json" : "trace"));
  }
  if (!format.ok()) {
    fmt::print(stderr, "zerosim run: {}\n", format.status().message());
    return kExitUsage;
  }
  if (Status st = ResolveRunEngine(a, &engine, &sim_options); !st.ok()) {
    fmt::print(stderr, "zerosim run: {}\n", st.message());
    return kExitUsage;
  }

  // With what-ifs (--hf-config, --ds-config, --set) the configuration is checked as it will run, after all of them
  // (issue 20 item 21); without, the loader checks it as written and names the file, line and key.
  const bool what_ifs = !a.hf_config.empty() || !a.ds_config.empty() || !a.settings.empty();
  StatusOr<io::Scenario> s = study::LoadScenarioOrDefault(a.scenario, {.check_configuration = !what_ifs});
  if (s.ok() && !a.hf_config.empty()) {
    StatusOr<io::ModelFile> hf = io::LoadHfConfig(io::DiskFileSource(), a.hf_config);
    if (!hf.ok()) {
      s = hf.status();
    } else {
      io::Scenario& scenario = s.value();
      for (io::Variant& v : scenario.variants) {
        model::ModelSpec m = hf->model;
        m.seq_len = v.model.seq_len;      // training settings of the scenario
        m.attention = v.model.attention;
        v.model = m;
      }
      // RLHF: the reference model is a copy of the actor (rlhf_engine.py _init_ref), so it follows.
      if (scenario.rlhf && !scenario.variants.empty()) scenario.rlhf->reference = scenario.variants.front().model;
      scenario.model_file = hf->file;
      scenario.model_source = hf->source;
    }
  }
  if (s.ok() && !a.ds_config.empty()) s = io::ApplyDsConfig(io::DiskFileSource(), a.ds_config, *std::move(s));
  if (s.ok() && !a.settings.empty()) s = study::ApplySettings(io::DiskFileSource(), *s, a.settings);  // checks
  if (s.ok() && what_ifs && a.settings.empty()) {
    std::string what = a.hf_config.empty() ? "" : "--hf-config " + a.hf_config;
    if (!a.ds_config.empty()) what += (what.empty() ? "" : " ") + ("--ds-config " + a.ds_config);
    if (Status st = study::CheckSomeVariantRuns(*s, what); !st.ok()) s = st;
  }
  if (a.global_batch != kNoGlobalBatch && (!a.search_batch || a.global_batch < 1)) {
    fmt::print(stderr,
               "zerosim run: error: --global-batch needs --search-batch and a positive number of sequences "
               "(got {})\n",
               a.global_batch);
    return kExitUsage;
  }
  std::string search_table;
  if (s.ok() && a.search_batch) {
    const study::BatchSearchTable searched =
        study::SearchScenarioBatches(&s.value(), std::max<int64_t>(0, a.global_batch));
    search_table = searched.text;
    // A variant run at another batch would answer another question: the run is refused, saying which.
    if (!searched.unreachable.empty()) {
      s = Status::Error(fmt::format("--global-batch {}: no setting trains exactly that batch: {}",
                                    a.global_batch, searched.unreachable));
    }
  }
  if (!s.ok()) {
    fmt::print(stderr, "zerosim run: error: {}\n", s.status().message());
    return kExitUsage;
  }
  if (s->rlhf && !a.trace_path.empty()) {
    fmt::print(stderr, "zerosim run: --trace is not available for RLHF scenarios ([rlhf]) yet: their phases are many "
                       "schedules\n");
    return kExitUsage;
  }
  // --fidelity step replays O(P^2) flows per collective: a validation mode for about 1k GPUs (README, sim/README.md).
  constexpr int kStepFidelityGpus = 1024;
  if (sim_options.fidelity == sim::Fidelity::kStep && s->cluster.total_gpus() > kStepFidelityGpus) {
    fmt::print(stderr,
               "zerosim run: warning: --fidelity step at {} GPUs, beyond the ~{} GPUs it is meant for: each collective "
               "replays O(P^2) flows, so this may take hours; --fidelity macro (the default) replays O(P)\n",
               s->cluster.total_gpus(), kStepFidelityGpus);
  }
  for (int rank : sim_options.trace_ranks) {
    if (rank >= s->cluster.total_gpus()) {
      fmt::print(stderr, "zerosim run: --trace-ranks: rank {} does not exist: '{}' has {} GPUs (ranks 0 to {})\n", rank,
                 s->cluster.name, s->cluster.total_gpus(), s->cluster.total_gpus() - 1);
      return kExitUsage;
    }
  }
  std::vector<sim::SimRun> runs;
  const StatusOr<model::Report> report = study::EvaluateScenario(*s, engine, sim_options, &runs);
  if (!report.ok()) {
    fmt::print(stderr, "zerosim run: error: {}\n", report.status().message());
    return kExitFailed;
  }
  // With --json - (or --trace -) stdout carries that file alone; the table and messages go to stderr.
  // With --format other than table, stdout carries the rows alone and messages go to stderr.
  const bool stdout_taken = a.json_path == "-" || a.trace_path == "-" || *format != study::OutputFormat::kTable;
  std::FILE* text = stdout_taken ? stderr : stdout;
  if (!Print("run", search_table, text)) return kExitFailed;
  if (*format == study::OutputFormat::kTable) {
    if (!Print("run", io::FormatReportTable(*report), text)) return kExitFailed;
  } else if (!Print("run", study::RenderReport(*report, *format))) {
    return kExitFailed;
  }
  if (!a.json_path.empty()) {
    if (Status st = WriteOutputFile(a.json_path, io::ReportJsonText(*report)); !st.ok()) {
      fmt::print(stderr, "zerosim run: error: {}\n", st.message());
      return kExitFailed;
    }
    if (!Print("run", fmt::format("\nreport written to {}\n", a.json_path == "-" ? "stdout" : a.json_path),
               text))
      return kExitFailed;
  }
  if (!a.trace_path.empty()) {
    std::vector<sim::TracedRun> traced;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!runs[i].schedule.ops.empty()) traced.push_back({s->variants[i].name, &runs[i].schedule, &runs[i].result});
    }
    if (Status st = WriteOutputFile(a.trace_path, sim::ChromeTraceJson(traced)); !st.ok()) {
      fmt::print(stderr, "zerosim run: error: {}\n", st.message());
      return kExitFailed;
    }
    if (!Print("run",
               fmt::format("trace of rank(s) {} written to {} (open it in https://ui.perfetto.dev)\n",
                           a.trace_ranks.empty() ? "0" : a.trace_ranks,
                           a.trace_path == "-" ? "stdout" : a.trace_path),
               text))
      return kExitFailed;
  }
  return kExitOk;
}

}  // namespace zerosim::cli
