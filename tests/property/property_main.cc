// The property run's long mode (issue 39; `./dev.sh property [N]`): the properties of property_check.h over
// N random scenarios (default 5000), every feasible one of at most 128 GPUs also replayed on SimGrid (about
// 2 minutes for 5000 on 2 cores), printing per property the checks and violations and the first violating
// cases. Exit status 1 when a property is violated.
//
//   property_run [--cases N] [--first I] [--seed S] [--sim N] [--sim-gpus G] [--examples N] [--write DIR]
//   property_run [--seed S] --explain I
//
// --write DIR also writes each case's input files to DIR/case_<I>/ (`zerosim run DIR/case_<I>/s.toml`).
// --explain I prints where the engines part on case I (property_explain.h) and runs nothing else.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "property/property_check.h"
#include "property/property_draw.h"
#include "property/property_explain.h"

int main(int argc, char** argv) {
  zerosim::testing::PropertyOptions o;
  o.cases = 5000;
  o.sim_cases = -1;  // every feasible case, unless --sim says otherwise
  o.sim_max_gpus = 128;
  o.examples = 20;
  std::string write;
  int explain = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--cases" && has_value) {
      o.cases = std::atoi(argv[++i]);
    } else if (a == "--first" && has_value) {
      o.first_case = std::atoi(argv[++i]);
    } else if (a == "--seed" && has_value) {
      o.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--sim" && has_value) {
      o.sim_cases = std::atoi(argv[++i]);
    } else if (a == "--sim-gpus" && has_value) {
      o.sim_max_gpus = std::atoi(argv[++i]);
    } else if (a == "--examples" && has_value) {
      o.examples = std::atoi(argv[++i]);
    } else if (a == "--write" && has_value) {
      write = argv[++i];
    } else if (a == "--explain" && has_value) {
      explain = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: property_run [--cases N] [--first I] [--seed S] [--sim N] [--sim-gpus G] "
                   "[--examples N] [--write DIR] | [--seed S] --explain I\n");
      return 2;
    }
  }
  if (explain >= 0) {
    std::fputs(zerosim::testing::ExplainCase(o.seed, explain).c_str(), stdout);
    return 0;
  }
  for (int i = o.first_case; !write.empty() && i < o.first_case + o.cases; ++i) {
    const std::filesystem::path dir = std::filesystem::path(write) / ("case_" + std::to_string(i));
    for (const auto& [name, text] : zerosim::testing::DrawCase(o.seed, i).files) {
      std::filesystem::create_directories((dir / name).parent_path());
      std::ofstream(dir / name) << text;
    }
  }
  if (o.sim_cases < 0) o.sim_cases = o.cases;
  const zerosim::testing::PropertyCounts c = zerosim::testing::RunProperties(o);
  std::fputs(zerosim::testing::FormatCounts(c).c_str(), stdout);
  return c.total_violations() == 0 ? 0 : 1;
}
