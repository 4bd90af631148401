// Command-line plumbing shared by the subcommands.
#pragma once

#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "model/status.h"
#include "sim/sim_options.h"

namespace zerosim::cli {

// Parses argv (argv[0] is the command name) into the variables `visible` and `hidden` are bound to, with
// `positional` naming the positional arguments (may be null). Returns the exit status when the command
// must stop here: usage errors (message and help on stderr) and --help (help on stdout); nothing when the
// command goes on.
std::optional<int> ParseCommandLine(const char* command, int argc, char** argv,
                                    const boost::program_options::options_description& visible,
                                    const boost::program_options::options_description* hidden = nullptr,
                                    const boost::program_options::positional_options_description* positional = nullptr);

// "symmetric" or "full".
StatusOr<sim::Reduction> ParseReduction(const std::string& name);

}  // namespace zerosim::cli
