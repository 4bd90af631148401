#include "study/sweep_resume.h"

#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/sim_evaluate.h"
#include "sim/sim_options.h"

namespace zerosim::study {

std::string SweepFingerprint(const io::SweepSpec& spec, const SweepOptions& o) {
  std::string key =
      fmt::format("{}|{}|{}|{}|{}", spec.file.hash, spec.base.scenario_file.hash,
                  spec.base.topology_file.hash, spec.base.model_file.hash, spec.base.calibration_file.hash);
  for (const auto& [topology, calibration] : spec.topologies) key += "|" + topology.file.hash;
  for (const model::InputFile& f : spec.topology_calibration_files) key += "|" + f.hash;
  for (const io::ModelFile& m : spec.models) key += "|" + m.file.hash;
  key += o.sim ? fmt::format("|sim|{}|{}", sim::FidelityName(o.sim_options.fidelity),
                             sim::ReductionName(o.sim_options.reduction))
               : "|analytic";
  // The user's SimGrid settings change the numbers too.
  for (const std::string& option : sim::SimGridOptions(o.sim_options)) key += "|" + option;
  return io::HashBytes(key);
}

StatusOr<std::set<size_t>> ResumeState(const std::string& path, size_t rows_per_point,
                                       const std::string& sweep_hash) {
  std::set<size_t> done;
  std::ifstream in(path, std::ios::binary);
  if (!in) return done;  // no output yet
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::map<size_t, size_t> rows;  // point -> rows seen
  size_t pos = 0, keep = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // torn last line
    size_t point = 0;
    std::string hash;
    try {
      const nlohmann::json row = nlohmann::json::parse(text.substr(pos, nl - pos));
      point = row.at("point").get<size_t>();
      hash = row.value("sweep_hash", std::string());
    } catch (const std::exception& e) {
      return Status::Error(
          fmt::format("{}: cannot resume: line at byte {} is not a sweep row ({})", path, pos, e.what()));
    }
    if (hash != sweep_hash) {
      return Status::Error(
          fmt::format("{}: cannot resume: the row at byte {} comes from another sweep, other inputs or "
                      "another engine (sweep_hash {}, this run {}); write to another file",
                      path, pos, hash.empty() ? "missing" : hash, sweep_hash));
    }
    pos = nl + 1;
    if (++rows[point] == rows_per_point) {
      done.insert(point);
      keep = pos;
    }
  }
  if (keep != text.size()) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text.substr(0, keep);
    out.close();
    if (!out) return Status::Error(fmt::format("{}: cannot cut the torn last point", path));
  }
  return done;
}

}  // namespace zerosim::study
