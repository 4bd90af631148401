// Resuming a sweep: the fingerprint of what its rows depend on, and the points an existing output already
// holds (a killed run leaves complete points and at most one torn point at its end, which is cut off).
#pragma once

#include <set>
#include <string>

#include "model/io/sweep.h"
#include "model/status.h"
#include "study/sweep_options.h"

namespace zerosim::study {

// A fingerprint of what a sweep's rows depend on: the hashes of every input file (sweep, base scenario,
// topologies, models, calibrations) and the engine with its options. Rows of another sweep, other inputs
// or another engine never resume into an output.
std::string SweepFingerprint(const io::SweepSpec& spec, const SweepOptions& o);

// The points complete in the output file `path` (none when it does not exist): each point writes
// `rows_per_point` rows at once, in point order; a torn last point (or row) is cut off the file. JSON lines
// when `csv_header` is empty; otherwise CSV, whose first record must be `csv_header` (SweepCsvHeader; a
// torn header is cut too, leaving an empty file). Errors: a row that is not a sweep row, a row whose
// sweep_hash is not `sweep_hash`, another CSV header, a file that cannot be cut.
StatusOr<std::set<size_t>> ResumeState(const std::string& path, size_t rows_per_point, const std::string& sweep_hash,
                                       const std::string& csv_header = "");

}  // namespace zerosim::study
