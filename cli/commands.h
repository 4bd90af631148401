// The subcommands of `zerosim`. Each handler is wiring: parse its options, load, run, write. Handlers
// return the process exit status: 0 success, 1 a run that failed its goal (e.g. validation) or whose
// output could not be written (options.h Print), 2 bad usage or bad input.
#pragma once

#include <cstdint>

namespace zerosim::cli {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // argv[0] is the command name
};

int RunCommand(int argc, char** argv);
int ValidateCommand(int argc, char** argv);
int FitCommand(int argc, char** argv);
int SweepCommand(int argc, char** argv);
int PlanCommand(int argc, char** argv);
int CompareCommand(int argc, char** argv);
int CalibrateCommand(int argc, char** argv);
int BenchCommand(int argc, char** argv);

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// --global-batch not given (run, plan): any value given, 0 included, is checked.
inline constexpr int64_t kNoGlobalBatch = INT64_MIN;

}  // namespace zerosim::cli
