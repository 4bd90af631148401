#include "sim/isolation.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "sim/replay.h"

namespace zerosim::sim {
namespace {

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace

StatusOr<std::string> RunInChild(const std::function<StatusOr<std::string>()>& work, ChildUsage* usage) {
  int fds[2];
  if (pipe(fds) != 0) return Status::Error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // or the child would print the parent's buffered output again
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Status::Error(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // The child dies with its parent (kill -9 of zerosim must not leave a simulation running); if the
    // parent is already gone, the child has no one to report to.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(5);
    close(fds[0]);
    StatusOr<std::string> r = work();
    // First byte: 1 for a result, 0 for an error message.
    const std::string framed =
        r.ok() ? std::string(1, '\1') + *r : std::string(1, '\0') + r.status().message();
    const bool written = WriteAll(fds[1], framed.data(), framed.size());
    close(fds[1]);
    std::fflush(nullptr);
    _exit(written ? 0 : 3);
  }
  close(fds[1]);
  std::string bytes = ReadAll(fds[0]);
  close(fds[0]);
  int wstatus = 0;
  struct rusage ru {};
  while (wait4(pid, &wstatus, 0, &ru) < 0) {
    if (errno != EINTR) return Status::Error(fmt::format("wait: {}", std::strerror(errno)));
  }
  if (usage != nullptr) {
    usage->max_rss_bytes = static_cast<double>(ru.ru_maxrss) * 1024.0;
    usage->cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                   1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || bytes.empty()) {
    if (WIFSIGNALED(wstatus)) {
      return Status::Error(fmt::format("simulation process died of signal {}", WTERMSIG(wstatus)));
    }
    return Status::Error(fmt::format("simulation process failed (exit status {})", WEXITSTATUS(wstatus)));
  }
  if (bytes[0] == '\0') return Status::Error(bytes.substr(1));
  return bytes.substr(1);
}

StatusOr<SimResult> SimulateIsolated(const model::Schedule& s, const model::ClusterSpec& c,
                                     const model::Calibration& cal, const SimOptions& o, ChildUsage* usage) {
  StatusOr<std::string> bytes = RunInChild(
      [&]() -> StatusOr<std::string> {
        StatusOr<SimResult> r = SimulateSchedule(s, c, cal, o);
        if (!r.ok()) return r.status();
        return SerializeSimResult(*r);
      },
      usage);
  if (!bytes.ok()) return bytes.status();
  return DeserializeSimResult(*bytes);
}

}  // namespace zerosim::sim
