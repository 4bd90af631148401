// The rows of a sweep's output (docs/sweeps.md): per point and variant, the sweep, the point and its axes,
// the variant's fields named as `run --format jsonl` names them (model/io/report_fields.h), the cost with
// prices, and the provenance (version, input hashes, calibration kinds).
#pragma once

#include <string>
#include <vector>

#include "model/io/sweep.h"
#include "model/report/report.h"
#include "study/sweep_grid.h"

namespace zerosim::study {

// The JSON lines of one point, newline-terminated; `sweep_hash` (SweepFingerprint, sweep_resume.h), when
// given, is carried by every row so that a resumed output can be checked.
std::string PointRows(const io::SweepSpec& spec, const SweepPoint& p,
                      const std::vector<model::VariantReport>& reports, const std::string& sweep_hash = "");

// The CSV form (`zerosim sweep --format csv`, RFC 4180, CRLF line ends) of the same rows: one column per
// leaf of the JSON row, named by its path with dots. SweepCsvHeader is the header record: `sweep`,
// `sweep_hash`, `point`, `axes.<key>` per axis of `spec` (in point order), the report's field list
// (model/io/report_fields.h, the columns of `run --format csv`), with [cost] the `cost.*` columns, then the
// `provenance.*` columns. A cell is empty where the JSON row has no member (cost of a point that did not
// run).
std::string SweepCsvHeader(const io::SweepSpec& spec);
// The CSV records of one point (no header), each ending in CRLF.
std::string PointRowsCsv(const io::SweepSpec& spec, const SweepPoint& p,
                         const std::vector<model::VariantReport>& reports, const std::string& sweep_hash);

}  // namespace zerosim::study
