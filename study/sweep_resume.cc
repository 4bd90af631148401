#include "study/sweep_resume.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/sim_evaluate.h"
#include "sim/sim_options.h"
#include "study/csv_record.h"

namespace zerosim::study {

std::string SweepFingerprint(const io::SweepSpec& spec, const SweepOptions& o) {
  std::string key =
      fmt::format("{}|{}|{}|{}|{}", spec.file.hash, spec.base.scenario_file.hash,
                  spec.base.topology_file.hash, spec.base.model_file.hash, spec.base.calibration_file.hash);
  for (const auto& [topology, calibration] : spec.topologies) key += "|" + topology.file.hash;
  for (const model::InputFile& f : spec.topology_calibration_files) key += "|" + f.hash;
  for (const io::ModelFile& m : spec.models) key += "|" + m.file.hash;
  // The price table's prices are the rows' cost (left out without one, so that older sweeps keep their hash).
  if (!spec.price_table_file.path.empty()) key += "|prices|" + spec.price_table_file.hash;
  key += o.sim ? fmt::format("|sim|{}|{}", sim::FidelityName(o.sim_options.fidelity),
                             sim::ReductionName(o.sim_options.reduction))
               : "|analytic";
  // The user's SimGrid settings change the numbers too.
  for (const std::string& option : sim::SimGridOptions(o.sim_options)) key += "|" + option;
  return io::HashBytes(key);
}

namespace {

// A row's identity: its point and the sweep_hash it carries.
struct RowKey {
  size_t point = 0;
  std::string hash;
};

// Reads the rows of `text` from `pos` with `next` (which returns the row's key and the position after it,
// nullopt for a torn last row, or an error); cuts the file after the last complete point. Row r must be of
// point scope.points[r / rows_per_point].
StatusOr<std::set<size_t>> CompletePoints(
    const std::string& path, const std::string& text, size_t pos, const ResumeScope& scope,
    const std::string& sweep_hash,
    const std::function<StatusOr<std::optional<std::pair<RowKey, size_t>>>(size_t)>& next) {
  std::set<size_t> done;
  const size_t rows_per_point = std::max<size_t>(1, scope.rows_per_point);
  size_t rows = 0;  // complete rows read
  size_t keep = pos;
  while (pos < text.size()) {
    StatusOr<std::optional<std::pair<RowKey, size_t>>> row = next(pos);
    if (!row.ok()) return row.status();
    if (!row->has_value()) break;  // torn last row
    const RowKey& key = (*row)->first;
    if (key.hash != sweep_hash) {
      return Status::Error(
          fmt::format("{}: cannot resume: the row at byte {} comes from another sweep, other inputs or "
                      "another engine (sweep_hash {}, this run {}); write to another file",
                      path, pos, key.hash.empty() ? "missing" : key.hash, sweep_hash));
    }
    const size_t n = rows / rows_per_point;
    if (n >= scope.points.size() || key.point != scope.points[n]) {
      const std::string range =
          scope.points.empty() ? "no points"
                               : fmt::format("points {} to {}", scope.points.front(), scope.points.back());
      return Status::Error(fmt::format(
          "{}: cannot resume: the row at byte {} is of point {}, where shard {}/{} ({}) has {}: the file was "
          "written by another shard or holds shards out of order; write each shard to its own file",
          path, pos, key.point, scope.shard, scope.shards, range,
          n < scope.points.size() ? fmt::format("point {}", scope.points[n]) : std::string("no more points")));
    }
    pos = (*row)->second;
    if (++rows % rows_per_point == 0) {
      done.insert(key.point);
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

}  // namespace

StatusOr<std::set<size_t>> ResumeState(const std::string& path, const ResumeScope& scope,
                                       const std::string& sweep_hash, const std::string& csv_header) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::set<size_t>();  // no output yet
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  if (csv_header.empty()) {
    return CompletePoints(
        path, text, 0, scope, sweep_hash,
        [&](size_t pos) -> StatusOr<std::optional<std::pair<RowKey, size_t>>> {
          const size_t nl = text.find('\n', pos);
          if (nl == std::string::npos) return std::optional<std::pair<RowKey, size_t>>();
          RowKey key;
          try {
            const nlohmann::json row = nlohmann::json::parse(text.substr(pos, nl - pos));
            key.point = row.at("point").get<size_t>();
            key.hash = row.value("sweep_hash", std::string());
          } catch (const std::exception& e) {
            return Status::Error(fmt::format("{}: cannot resume: line at byte {} is not a sweep row ({})",
                                             path, pos, e.what()));
          }
          return std::optional(std::make_pair(key, nl + 1));
        });
  }
  // CSV: the header first (a torn header is cut like a torn row), then records whose columns 1 and 2 are
  // sweep_hash and point (SweepCsvHeader).
  if (text.compare(0, csv_header.size(), csv_header) != 0) {
    if (csv_header.compare(0, text.size(), text) == 0) {
      return CompletePoints(path, text, 0, scope, sweep_hash,
                            [](size_t) { return std::optional<std::pair<RowKey, size_t>>(); });
    }
    return Status::Error(
        fmt::format("{}: cannot resume: its first line is not this sweep's CSV header (another "
                    "sweep, other axes or another --format); write to another file",
                    path));
  }
  return CompletePoints(path, text, csv_header.size(), scope, sweep_hash,
                        [&](size_t pos) -> StatusOr<std::optional<std::pair<RowKey, size_t>>> {
                          auto record = CsvRecord(text, pos);
                          if (!record) return std::optional<std::pair<RowKey, size_t>>();
                          const std::vector<std::string>& cells = record->first;
                          RowKey key;
                          const char* end = cells.size() > 2 ? cells[2].data() + cells[2].size() : nullptr;
                          if (end == nullptr || std::from_chars(cells[2].data(), end, key.point).ptr != end ||
                              cells[2].empty()) {
                            return Status::Error(fmt::format(
                                "{}: cannot resume: the record at byte {} is not a sweep row", path, pos));
                          }
                          key.hash = cells[1];
                          return std::optional(std::make_pair(key, record->second));
                        });
}

}  // namespace zerosim::study
