// Running a sweep: the pending points of a shard (sweep_resume.h) evaluated (sweep_point.h) in worker
// processes, rows (sweep_rows.h) written in point order to the locked output (sweep_output.h), so that the
// same sweep gives the same bytes and an interrupted output is always a prefix that a rerun completes; a
// progress display on stderr (progress.h); timings kept out of the rows.
#pragma once

#include <string>
#include <vector>

#include "model/io/sweep.h"
#include "model/status.h"
#include "study/sweep_options.h"

namespace zerosim::study {

struct SweepStats {
  size_t points_total = 0;    // in this shard
  size_t points_skipped = 0;  // already in the output (resumed)
  size_t points_run = 0;
  double wall_s = 0;
  int schedules_built = 0;
};

// The points of shard `shard` of `shards` (contiguous blocks, so shards' outputs concatenate into the
// unsharded output).
std::vector<size_t> ShardPoints(size_t points, int shard, int shards);

// Runs the pending points of the shard into `options.out`. Errors: an output that is a directory, locked
// by another sweep (flock), holds rows of another sweep (sweep_hash) or is not a prefix of this shard's rows
// (another shard's output, shards out of order; ResumeState), a failed write (disk full), a failed worker
// or simulation, a broken invariant.
StatusOr<SweepStats> RunSweep(const io::SweepSpec& spec, const SweepOptions& options);

}  // namespace zerosim::study
