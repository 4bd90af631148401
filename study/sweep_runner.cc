#include "study/sweep_runner.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

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

bool WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// A worker: evaluates its points and sends "<index> <length>\n<rows>" messages through `fd`. It dies with
// the parent (a killed sweep leaves no worker running).
[[noreturn]] void Worker(const io::SweepSpec& spec, const SweepOptions& o, const std::vector<size_t>& points, int fd,
                         const std::string& sweep_hash, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(5);
  model::ScheduleCache cache;
  for (size_t i : points) {
    const SweepPoint p = MakePoint(spec, i);
    StatusOr<std::vector<model::VariantReport>> reports = EvaluatePoint(p, &cache, o.sim, o.sim_options);
    if (!reports.ok()) {
      fmt::print(stderr, "zerosim sweep: {}\n", reports.status().message());
      _exit(4);
    }
    const std::string rows = PointRows(spec, p, *reports, sweep_hash);
    if (!WriteAll(fd, fmt::format("{} {}\n", i, rows.size()) + rows)) _exit(3);
  }
  close(fd);
  _exit(0);
}

// Runs `pending` in `jobs` worker processes; the parent writes rows in point order.
Status RunParallel(const io::SweepSpec& spec, const SweepOptions& o, const std::vector<size_t>& pending, int jobs,
                   const std::string& sweep_hash, SweepOutput* out, Progress* progress) {
  // Worker w takes every jobs-th pending point.
  std::vector<int> fds;
  std::vector<pid_t> pids;
  auto stop_workers = [&] {
    for (int fd : fds) close(fd);
    for (pid_t pid : pids) kill(pid, SIGKILL);
    for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  };
  const pid_t parent = getpid();
  for (int w = 0; w < jobs; ++w) {
    std::vector<size_t> mine;
    for (size_t n = static_cast<size_t>(w); n < pending.size(); n += static_cast<size_t>(jobs)) mine.push_back(pending[n]);
    int pipefd[2];
    if (pipe(pipefd) != 0) {
      stop_workers();
      return Status::Error(fmt::format("pipe: {}", std::strerror(errno)));
    }
    const pid_t pid = fork();
    if (pid < 0) {
      close(pipefd[0]);
      close(pipefd[1]);
      stop_workers();
      return Status::Error(fmt::format("fork: {}", std::strerror(errno)));
    }
    if (pid == 0) {
      close(pipefd[0]);
      for (int fd : fds) close(fd);
      Worker(spec, o, mine, pipefd[1], sweep_hash, parent);
    }
    close(pipefd[1]);
    fds.push_back(pipefd[0]);
    pids.push_back(pid);
  }
  std::vector<std::string> buffers(fds.size());
  std::map<size_t, std::string> ready;
  size_t next = 0;
  size_t open_fds = fds.size();
  std::vector<pollfd> pfds;
  for (int fd : fds) pfds.push_back({fd, POLLIN, 0});
  char chunk[1 << 16];
  while (open_fds > 0) {
    if (poll(pfds.data(), pfds.size(), -1) < 0) continue;
    for (size_t w = 0; w < pfds.size(); ++w) {
      if (pfds[w].fd < 0 || (pfds[w].revents & (POLLIN | POLLHUP)) == 0) continue;
      const ssize_t n = read(pfds[w].fd, chunk, sizeof(chunk));
      if (n <= 0) {
        close(pfds[w].fd);
        fds[w] = -1;
        pfds[w].fd = -1;
        --open_fds;
        continue;
      }
      buffers[w].append(chunk, static_cast<size_t>(n));
      // Parse complete messages.
      for (;;) {
        const size_t nl = buffers[w].find('\n');
        if (nl == std::string::npos) break;
        size_t index = 0, length = 0;
        if (std::sscanf(buffers[w].c_str(), "%zu %zu", &index, &length) != 2) break;
        if (buffers[w].size() < nl + 1 + length) break;
        ready[index] = buffers[w].substr(nl + 1, length);
        buffers[w].erase(0, nl + 1 + length);
      }
    }
    while (next < pending.size() && ready.count(pending[next]) > 0) {
      if (Status st = out->Write(ready[pending[next]]); !st.ok()) {
        std::erase(fds, -1);
        stop_workers();
        return st;
      }
      ready.erase(pending[next]);
      ++next;
    }
    progress->Update(next);
  }
  bool failed = false;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed = failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed || next != pending.size()) {
    return Status::Error(fmt::format("a sweep worker failed after {} of {} points; rerun to resume", next, pending.size()));
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
  std::set<size_t> done;
  if (out.resumable()) {
    StatusOr<std::set<size_t>> d = ResumeState(o.out, std::max<size_t>(1, spec.base.variants.size()), sweep_hash);
    if (!d.ok()) return d.status();
    done = *d;
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
      if (Status st = out.Write(PointRows(spec, p, *reports, sweep_hash)); !st.ok()) return st;
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
