#include "study/sweep_runner.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "model/report/evaluate.h"
#include "sim/process_pool.h"
#include "study/progress.h"
#include "study/sweep_output.h"
#include "study/sweep_point.h"
#include "study/sweep_resume.h"
#include "study/sweep_rows.h"

namespace zerosim::study {

std::vector<size_t> ShardPoints(size_t points, int shard, int shards) {
  std::vector<size_t> out;
  const size_t begin = points * static_cast<size_t>(shard - 1) / static_cast<size_t>(shards);
  const size_t end = points * static_cast<size_t>(shard) / static_cast<size_t>(shards);
  for (size_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

namespace {

// The rows of one point in the sweep's format.
std::string Rows(const io::SweepSpec& spec, const SweepOptions& o, const SweepPoint& p,
                 const std::vector<model::VariantReport>& reports, const std::string& sweep_hash) {
  return o.format == SweepFormat::kCsv ? PointRowsCsv(spec, p, reports, sweep_hash)
                                       : PointRows(spec, p, reports, sweep_hash);
}

// Runs `pending` in `jobs` worker processes of the process pool (sim/process_pool.h): a worker takes the
// next pending point when it finishes one (a slow point holds one worker, not a stride of points), and
// the parent writes each point's rows in point order as they become ready.
Status RunParallel(const io::SweepSpec& spec, const SweepOptions& o, const std::vector<size_t>& pending, int jobs,
                   const std::string& sweep_hash, SweepOutput* out, Progress* progress) {
  model::ScheduleCache cache;  // each worker's own copy after the fork
  sim::PoolOptions pool;
  pool.workers = jobs;
  pool.child_name = "sweep worker";
  pool.task_name = [&](size_t n) { return fmt::format("point {}", pending[n]); };
  size_t written = 0;
  const Status st = sim::RunPool(
      pending.size(), pool,
      [&](size_t n) -> StatusOr<std::string> {
        const SweepPoint p = MakePoint(spec, pending[n]);
        StatusOr<std::vector<model::VariantReport>> reports = EvaluatePoint(p, &cache, o.sim, o.sim_options);
        if (!reports.ok()) return reports.status();
        return Rows(spec, o, p, *reports, sweep_hash);
      },
      [&](size_t, std::string rows) {
        if (Status w = out->Write(rows); !w.ok()) return w;
        progress->Update(++written);
        return Status::Ok();
      });
  if (!st.ok()) {
    return Status::Error(
        fmt::format("{} ({} of {} points written; rerun to resume)", st.message(), written, pending.size()));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<SweepStats> RunSweep(const io::SweepSpec& spec, const SweepOptions& o) {
  SweepStats stats;
  const std::vector<size_t> shard = ShardPoints(PointCount(spec), o.shard, o.shards);
  stats.points_total = shard.size();
  const std::string sweep_hash = SweepFingerprint(spec, o);
  SweepOutput out;
  if (Status st = out.Open(o.out); !st.ok()) return st;
  const std::string csv_header = o.format == SweepFormat::kCsv ? SweepCsvHeader(spec) : "";
  std::set<size_t> done;
  bool has_header = false;
  if (out.resumable()) {
    const ResumeScope scope{shard, o.shard, o.shards, std::max<size_t>(1, spec.base.variants.size())};
    StatusOr<std::set<size_t>> d = ResumeState(o.out, scope, sweep_hash, csv_header);
    if (!d.ok()) return d.status();
    done = *d;
    std::error_code ec;
    has_header = !csv_header.empty() && std::filesystem::file_size(o.out, ec) > 0 && !ec;
  }
  if (!csv_header.empty() && !has_header) {
    if (Status st = out.Write(csv_header); !st.ok()) return st;
  }
  std::vector<size_t> pending;
  for (size_t i : shard) {
    if (done.count(i) == 0) pending.push_back(i);
  }
  stats.points_skipped = shard.size() - pending.size();

  Progress progress(pending.size(), o.progress);
  std::fflush(stdout);
  std::fflush(stderr);

  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(std::min<size_t>(pending.size(), 4096))));
  if (jobs <= 1) {
    model::ScheduleCache cache;
    for (size_t n = 0; n < pending.size(); ++n) {
      const SweepPoint p = MakePoint(spec, pending[n]);
      StatusOr<std::vector<model::VariantReport>> reports = EvaluatePoint(p, &cache, o.sim, o.sim_options);
      if (!reports.ok()) return reports.status();
      if (Status st = out.Write(Rows(spec, o, p, *reports, sweep_hash)); !st.ok()) return st;
      progress.Update(n + 1);
    }
    stats.schedules_built = cache.builds();
  } else if (Status st = RunParallel(spec, o, pending, jobs, sweep_hash, &out, &progress); !st.ok()) {
    return st;
  }
  if (Status st = out.Close(); !st.ok()) return st;
  progress.Update(pending.size(), true);
  stats.points_run = pending.size();
  stats.wall_s = progress.Seconds();
  return stats;
}

}  // namespace zerosim::study
