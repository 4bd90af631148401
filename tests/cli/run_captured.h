// Runs a command handler (cli/commands.h) as `zerosim` would, capturing what it prints: the one helper of the CLI
// tests (buyer_cli_test, output_file_test, trust_test, validate_gate_test).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace zerosim::testing {

struct CommandResult {
  int rc = 0;
  std::string out;  // stdout
  std::string err;  // stderr
};

// `command` with `args` (args[0] is the command's name, as argv[0]), stdout and stderr captured.
inline CommandResult RunCaptured(int (*command)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  CommandResult r;
  r.rc = command(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

}  // namespace zerosim::testing
