// Running a sweep: points evaluated in worker processes, rows written as JSON lines in point order (so
// the same sweep gives the same bytes, and an interrupted output is always a prefix that a rerun
// completes), a progress display on stderr, and timings kept out of the rows (in a separate log).
#pragma once

#include <string>
#include <vector>

#include "model/evaluate.h"
#include "model/io/sweep.h"
#include "model/report.h"
#include "model/status.h"
#include "sim/sim_options.h"

namespace zerosim::cli {

struct SweepOptions {
  bool sim = false;    // time with the SimGrid replay (one child process per variant) instead of analytically
  sim::SimOptions sim_options;
  int jobs = 1;        // worker processes
  int shard = 1;       // 1-based: this run does shard `shard` of `shards`
  int shards = 1;
  std::string out;     // JSONL output ("" or "-": stdout, no resume)
  std::string log;     // timings log ("" : out + ".log", none for stdout)
  bool progress = true;
};

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

// Evaluates one point: one report per variant (infeasible points give reports with feasible = false). With
// `sim`, each variant is replayed on SimGrid (sim/sim_evaluate.h) with `sim_options`.
StatusOr<std::vector<model::VariantReport>> EvaluatePoint(const io::SweepPoint& p, model::ScheduleCache* cache,
                                                          bool sim = false, const sim::SimOptions& sim_options = {});

// The JSON lines of one point (docs/sweeps.md), newline-terminated; `sweep_hash` (SweepFingerprint),
// when given, is carried by every row so that a resumed output can be checked.
std::string PointRows(const io::SweepSpec& spec, const io::SweepPoint& p,
                      const std::vector<model::VariantReport>& reports, const std::string& sweep_hash = "");

// A fingerprint of what a sweep's rows depend on: the hashes of every input file (sweep, base scenario,
// topologies, models, calibrations) and the engine with its options. Rows of another sweep, other inputs
// or another engine never resume into an output.
std::string SweepFingerprint(const io::SweepSpec& spec, const SweepOptions& o);

// Runs the pending points of the shard into `options.out`. Errors: an output that is a directory, locked
// by another sweep (flock) or holds rows of another sweep (sweep_hash), a failed write (disk full), a
// failed worker or simulation, a broken invariant.
StatusOr<SweepStats> RunSweep(const io::SweepSpec& spec, const SweepOptions& options);

}  // namespace zerosim::cli
