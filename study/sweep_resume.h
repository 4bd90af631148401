// Resuming a sweep: the fingerprint of what its rows depend on, and the points an existing output already
// holds (a killed run leaves complete points and at most one torn point at its end, which is cut off).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/io/sweep.h"
#include "model/status.h"
#include "study/sweep_options.h"

namespace zerosim::study {

// A fingerprint of what a sweep's rows depend on: the hashes of every input file (sweep, base scenario,
// topologies, models, calibrations) and the engine with its options. Rows of another sweep, other inputs
// or another engine never resume into an output.
std::string SweepFingerprint(const io::SweepSpec& spec, const SweepOptions& o);

// What a resumed output must hold: the prefix of this run's rows. `points` are the run's points in order
// (its shard, ShardPoints in sweep_runner.h; `shard` and `shards` name it in messages); each point writes
// `rows_per_point` rows at once.
struct ResumeScope {
  std::vector<size_t> points;
  int shard = 1;
  int shards = 1;
  size_t rows_per_point = 1;
};

// The points complete in the output file `path` (none when it does not exist); a torn last point (or row)
// is cut off the file. JSON lines when `csv_header` is empty; otherwise CSV, whose first record must be
// `csv_header` (SweepCsvHeader; a torn header is cut too, leaving an empty file). Errors: a row that is not
// a sweep row, a row whose sweep_hash is not `sweep_hash`, another CSV header, a row of a point that is not
// the next of `scope` (the file was written by another shard, or holds shards out of order: resuming
// would append this shard's points after them), a file that cannot be cut.
StatusOr<std::set<size_t>> ResumeState(const std::string& path, const ResumeScope& scope,
                                       const std::string& sweep_hash, const std::string& csv_header = "");

}  // namespace zerosim::study
