// Command-line plumbing shared by the subcommands.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "study/scenario_runner.h"
#include "model/status.h"
#include "sim/sim_options.h"

namespace zerosim::cli {

// Parses argv (argv[0] is the command name) into the variables `visible` and `hidden` are bound to, with
// `positional` naming the positional arguments (may be null). Returns the exit status when the command
// must stop here: usage errors (message and help on stderr) and --help (help on stdout, kExitFailed when
// it cannot be written); nothing when the command goes on.
std::optional<int> ParseCommandLine(const char* command, int argc, char** argv,
                                    const boost::program_options::options_description& visible,
                                    const boost::program_options::options_description* hidden = nullptr,
                                    const boost::program_options::positional_options_description* positional = nullptr);

// "symmetric" or "full".
StatusOr<sim::Reduction> ParseReduction(const std::string& name);

// Writes `text` to `out` (stdout, or stderr where stdout carries another output), flushed and checked
// (study::WriteStream). On failure prints "zerosim <command>: error: cannot write stdout: <reason>" on
// stderr and returns false: the command then exits kExitFailed, as sweep does for its rows. Every
// command's output goes through it (fmt::print on a full stdout throws, and std::cout loses it silently).
bool Print(const char* command, std::string_view text, std::FILE* out = stdout);

// Writes `text` to `path` (study::ReplaceFile: a temporary file renamed over it, under the lock a sweep's
// output takes), or to stdout when `path` is "-"; an error naming the path and the system's reason on
// failure, which leaves no cut-off file.
Status WriteOutputFile(const std::string& path, const std::string& text);

// --engine, --fidelity, --reduction, --cfg and --log: how communication is timed, shared by run,
// validate, sweep and compare.
// Empty fidelity or reduction: not given (the sim engine's defaults, macro and symmetric); giving either
// with the analytic engine is an error, since it would change nothing.
struct EngineArgs {
  std::string engine = "analytic";
  std::string fidelity;
  std::string reduction;
  std::vector<std::string> simgrid_cfg;  // --cfg KEY:VALUE, passed to SimGrid (sim engine only)
  std::vector<std::string> simgrid_log;  // --log SETTING, passed to SimGrid's logging (sim engine only)
};
// Adds the three options to `opts`; `allow_both` offers --engine both.
void AddEngineOptions(boost::program_options::options_description* opts, EngineArgs* a, bool allow_both);
// The engine and SimOptions the arguments ask for; an error for an unknown name or for sim-only options
// given to the analytic engine.
Status ResolveEngine(const EngineArgs& a, bool allow_both, study::Engine* engine, sim::SimOptions* o);

// --jobs/-j N for the commands that evaluate scenarios one by one (run, validate, compare): how many
// variants the sim engine simulates at once (SimOptions::variant_jobs); 0 (the default): the
// machine's hardware threads.
void AddVariantJobsOption(boost::program_options::options_description* opts, int* jobs);
// Sets o->variant_jobs: `jobs`, or the machine's hardware threads for 0 (reports do not depend on it); an
// error outside 0 to 1024.
Status ResolveVariantJobs(int jobs, sim::SimOptions* o);

// Adds `--format table|json|jsonl|csv` (default table) bound to `format` (study/output_format.h).
void AddFormatOption(boost::program_options::options_description* opts, std::string* format);

}  // namespace zerosim::cli
