#include "cli/options.h"

#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"

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
    std::cout << visible << "\n";
    return kExitOk;
  }
  return std::nullopt;
}

StatusOr<sim::Reduction> ParseReduction(const std::string& name) {
  if (name == "symmetric") return sim::Reduction::kSymmetric;
  if (name == "full") return sim::Reduction::kFull;
  return Status::Error(fmt::format("unknown reduction '{}' (available: symmetric, full)", name));
}

}  // namespace zerosim::cli
