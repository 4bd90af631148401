#include "cli/sweep_runner.h"

#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/json_line.h"
#include "cli/scenario_runner.h"
#include "model/invariants.h"
#include "model/io/report_fields.h"
#include "model/version.h"
#include "sim/sim_evaluate.h"

namespace zerosim::cli {

std::vector<size_t> ShardPoints(size_t points, int shard, int shards) {
  std::vector<size_t> out;
  const size_t begin = points * static_cast<size_t>(shard - 1) / static_cast<size_t>(shards);
  const size_t end = points * static_cast<size_t>(shard) / static_cast<size_t>(shards);
  for (size_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

StatusOr<std::vector<model::VariantReport>> EvaluatePoint(const io::SweepPoint& p, model::ScheduleCache* cache,
                                                          bool sim, const sim::SimOptions& sim_options) {
  std::vector<model::VariantReport> out;
  const char* engine = sim ? "sim" : "analytic";
  for (const io::Variant& v : p.variants) {
    if (!p.infeasible.empty()) {
      out.push_back(InfeasibleVariant(v.name, engine, v.model, v.zero, p.infeasible));
      continue;
    }
    if (sim) {
      StatusOr<model::VariantReport> r =
          sim::EvaluateSimVariant(v.name, v.model, v.zero, p.cluster, p.calibration, sim_options);
      if (!r.ok()) return Status::Error(fmt::format("point {}, {}: {}", p.index, v.name, r.status().message()));
      out.push_back(std::move(r).value());
    } else {
      const model::Schedule& s = cache->Get(v.model, v.zero, p.cluster);
      out.push_back(model::EvaluateAnalyticVariant(v.name, v.model, v.zero, p.cluster, p.calibration, s));
    }
    if (Status st = model::InvariantStatus(fmt::format("sweep point {}", p.index), out.back()); !st.ok()) return st;
  }
  return out;
}

std::string SweepFingerprint(const io::SweepSpec& spec, const SweepOptions& o) {
  std::string key = fmt::format("{}|{}|{}|{}|{}", spec.file.hash, spec.base.scenario_file.hash,
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

namespace {

// "measured" when the calibration file holds measurements of that part, "derived" otherwise
// (docs/calibration.md).
const char* KernelsKind(const model::Calibration& c) {
  for (const model::KernelCalibration& k : c.kernels) {
    if (!k.points.empty()) return "measured";
  }
  return "derived";
}
const char* ComputeKind(const model::Calibration& c) {
  return c.measured.gemm.empty() ? "derived" : "measured";
}

JsonLine InputLine(const model::InputFile& f) { return JsonLine().Add("path", f.path).Add("hash", f.hash); }

// The point's provenance (docs/sweeps.md): the version, every input file's hash and the calibration's kinds.
std::string ProvenanceLine(const io::SweepSpec& spec, const io::SweepPoint& p) {
  return JsonLine()
      .Add("zerosim_version", Version())
      .Add("sweep", spec.file.hash)
      .Add("scenario", spec.base.scenario_file.hash)
      .Add("topology", InputLine(p.topology_file))
      .Add("model", InputLine(p.model_file))
      .Add("calibration", InputLine(p.calibration_file))
      .Add("calibration_gpu", p.calibration.gpu)
      .Add("calibration_source", p.calibration.source)
      .Add("kernels_source", KernelsKind(p.calibration))
      .Add("compute_source", ComputeKind(p.calibration))
      .str();
}

}  // namespace

std::string PointRows(const io::SweepSpec& spec, const io::SweepPoint& p,
                      const std::vector<model::VariantReport>& reports, const std::string& sweep_hash) {
  std::string out;
  const model::ClusterSpec& c = p.cluster;
  JsonLine axes;
  for (const auto& [k, v] : p.axes) axes.Add(k, v);
  const std::string provenance = ProvenanceLine(spec, p);
  for (const model::VariantReport& r : reports) {
    JsonLine j;
    j.Add("sweep", spec.name);
    if (!sweep_hash.empty()) j.Add("sweep_hash", sweep_hash);
    j.Add("point", p.index).Add("axes", axes);
    // The variant's fields, named as in `run --format jsonl` (model/io/report_fields.h).
    std::string members;
    io::AppendRowMembers({&r, &c, spec.base.name}, &members);
    j.Members(members);
    if (r.iteration_time_s > 0 && spec.has_price) {
      const model::CostResult cost = model::EstimateCost(c, spec.price, r.tokens_per_s, spec.train_tokens);
      j.Add("cost", JsonLine()
                        .Add("capex_usd", cost.capex_usd)
                        .Add("usd_per_hour", cost.usd_per_hour)
                        .Add("usd_per_million_tokens", cost.usd_per_million_tokens)
                        .Add("train_tokens", spec.train_tokens)
                        .Add("time_to_train_s", cost.time_to_train_s)
                        .Add("cost_to_train_usd", cost.cost_to_train_usd));
    }
    j.Raw("provenance", provenance);
    out += j.str() + "\n";
  }
  return out;
}

namespace {

// Points already complete in an output file: each point writes `rows_per_point` lines at once, in point
// order, so a killed run leaves complete points and at most one torn point at the end; the torn point
// (and a torn last line) is cut off.
StatusOr<std::set<size_t>> ResumeState(const std::string& path, size_t rows_per_point, const std::string& sweep_hash) {
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
      return Status::Error(fmt::format("{}: cannot resume: line at byte {} is not a sweep row ({})", path, pos, e.what()));
    }
    if (hash != sweep_hash) {
      return Status::Error(fmt::format("{}: cannot resume: the row at byte {} comes from another sweep, other inputs or "
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

// The output file, opened for appending and locked against a second sweep; stdout for "" and "-".
class Output {
 public:
  ~Output() {
    if (file_ != nullptr && file_ != stdout) std::fclose(file_);
  }
  Status Open(const std::string& path) {
    path_ = path;
    if (path.empty() || path == "-") {
      file_ = stdout;
      path_ = "stdout";
      return Status::Ok();
    }
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return Status::Error(fmt::format("{} is a directory: -o wants a file", path));
    }
    file_ = std::fopen(path.c_str(), "ab");
    if (file_ == nullptr) return Status::Error(fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
    if (fstat(fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) {
      regular_ = true;
      if (flock(fileno(file_), LOCK_EX | LOCK_NB) != 0) {
        return Status::Error(fmt::format("{} is being written by another sweep (it holds the file's lock); wait for "
                                         "it or write to another file",
                                         path));
      }
    }
    return Status::Ok();
  }
  // Resuming reads a regular file only (not a device or a pipe).
  bool resumable() const { return regular_; }
  Status Write(const std::string& rows) {
    if (std::fwrite(rows.data(), 1, rows.size(), file_) != rows.size() || std::fflush(file_) != 0) {
      return Status::Error(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    }
    return Status::Ok();
  }
  Status Close() {
    if (file_ == nullptr || file_ == stdout) return Status::Ok();
    const int rc = std::fclose(file_);  // releases the lock
    file_ = nullptr;
    if (rc != 0) return Status::Error(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    return Status::Ok();
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool regular_ = false;
};

class Progress {
 public:
  Progress(size_t total, bool enabled) : total_(total), enabled_(enabled), tty_(isatty(2) != 0) {}
  void Update(size_t done, bool final = false) {
    if (!enabled_) return;
    const double now = Seconds();
    if (!final && now - last_ < (tty_ ? 0.1 : 5.0)) return;
    last_ = now;
    const double rate = now > 0 ? static_cast<double>(done) / now : 0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1;
    if (tty_) {
      const int width = 30;
      const int filled = static_cast<int>(frac * width);
      fmt::print(stderr, "\r[{}{}] {:3.0f}% {}/{} points, {:.0f}/s, ETA {:.0f}s   ", std::string(static_cast<size_t>(filled), '='),
                 std::string(static_cast<size_t>(width - filled), ' '), 100 * frac, done, total_, rate, eta);
      if (final) fmt::print(stderr, "\n");
    } else {
      fmt::print(stderr, "sweep: {}/{} points ({:.0f}%), {:.0f} points/s, ETA {:.0f}s\n", done, total_, 100 * frac, rate, eta);
    }
  }
  double Seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  size_t total_;
  bool enabled_;
  bool tty_;
  double last_ = -1e9;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

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
    const io::SweepPoint p = io::MakePoint(spec, i);
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
                   const std::string& sweep_hash, Output* out, Progress* progress) {
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
  const std::vector<size_t> shard = ShardPoints(io::PointCount(spec), o.shard, o.shards);
  stats.points_total = shard.size();
  const std::string sweep_hash = SweepFingerprint(spec, o);
  Output out;
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
      const io::SweepPoint p = io::MakePoint(spec, pending[n]);
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

}  // namespace zerosim::cli
