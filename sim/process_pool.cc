#include "sim/process_pool.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace zerosim::sim {
namespace {

// Messages on a worker's socket. Parent to worker: the next task, 8 bytes. Worker to parent: the task (8
// bytes), 1 for a result or 0 for an error message (1 byte), the payload's length (8 bytes), the payload.
constexpr size_t kHeaderBytes = 17;

// send() with MSG_NOSIGNAL: a peer that died gives an error, not SIGPIPE.
bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadExactly(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// A child: runs `first`, then (unless one task per process) each task the parent sends, until the parent
// closes the socket.
[[noreturn]] void ChildMain(int fd, size_t first, bool one_task, pid_t parent,
                            const std::function<StatusOr<std::string>(size_t)>& work) {
  // The child dies with its parent (kill -9 of zerosim must not leave a child running); if the parent is
  // already gone, the child has no one to report to.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(5);
  size_t task = first;
  for (;;) {
    StatusOr<std::string> r = work(task);
    const std::string& payload = r.ok() ? *r : r.status().message();
    std::string frame;
    PutU64(&frame, task);
    frame.push_back(r.ok() ? '\1' : '\0');
    PutU64(&frame, payload.size());
    std::fflush(nullptr);
    if (!SendAll(fd, frame.data(), frame.size()) || !SendAll(fd, payload.data(), payload.size())) _exit(3);
    if (one_task || !r.ok()) break;
    char next[8];
    if (!ReadExactly(fd, next, sizeof next)) break;  // no more tasks
    task = GetU64(next);
  }
  close(fd);
  std::fflush(nullptr);
  _exit(0);
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  bool busy = false;  // a task is in flight
  size_t task = 0;
  std::string buffer;  // bytes received, not yet a whole message
};

class Pool {
 public:
  Pool(size_t tasks, const PoolOptions& o, const std::function<StatusOr<std::string>(size_t)>& work,
       ChildUsage* usage)
      : tasks_(tasks), o_(o), work_(work), usage_(usage) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() { StopAll(); }

  Status Run(const std::function<Status(size_t, std::string)>& deliver) {
    const size_t tasks = tasks_;
    const size_t workers = std::min<size_t>(static_cast<size_t>(std::max(1, o_.workers)), tasks);
    for (size_t w = 0; w < workers; ++w) {
      if (Status st = Spawn(next_task_++); !st.ok()) return st;
    }
    std::map<size_t, std::string> ready;
    size_t delivered = 0;
    char chunk[1 << 16];
    while (delivered < tasks) {
      std::vector<pollfd> pfds;
      std::vector<size_t> which;
      for (size_t c = 0; c < children_.size(); ++c) {
        if (children_[c].fd >= 0) {
          pfds.push_back({children_[c].fd, POLLIN, 0});
          which.push_back(c);
        }
      }
      if (pfds.empty()) {
        return Status::Error(fmt::format("{}: no child left with tasks pending", o_.child_name));
      }
      if (poll(pfds.data(), pfds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return Status::Error(fmt::format("poll: {}", std::strerror(errno)));
      }
      for (size_t k = 0; k < pfds.size(); ++k) {
        if ((pfds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        Child& ch = children_[which[k]];
        const ssize_t n = read(ch.fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          if (Status st = Closed(&ch); !st.ok()) return st;
          continue;
        }
        ch.buffer.append(chunk, static_cast<size_t>(n));
        while (ch.buffer.size() >= kHeaderBytes) {
          const size_t length = static_cast<size_t>(GetU64(ch.buffer.data() + 9));
          if (ch.buffer.size() < kHeaderBytes + length) break;
          const size_t task = static_cast<size_t>(GetU64(ch.buffer.data()));
          const bool ok = ch.buffer[8] == '\1';
          std::string payload = ch.buffer.substr(kHeaderBytes, length);
          ch.buffer.erase(0, kHeaderBytes + length);
          ch.busy = false;
          if (!ok) return Status::Error(payload);
          ready.emplace(task, std::move(payload));
          if (Status st = HandOut(&ch); !st.ok()) return st;
        }
      }
      for (auto it = ready.find(delivered); it != ready.end(); it = ready.find(delivered)) {
        if (Status st = deliver(delivered, std::move(it->second)); !st.ok()) return st;
        ready.erase(it);
        ++delivered;
      }
    }
    // Every task delivered: the idle children exit when their socket closes.
    for (Child& ch : children_) {
      if (ch.fd >= 0) close(ch.fd);
      ch.fd = -1;
    }
    for (Child& ch : children_) {
      if (ch.pid > 0) Reap(&ch);
    }
    return Status::Ok();
  }

 private:
  Status Spawn(size_t task) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
      return Status::Error(fmt::format("socketpair: {}", std::strerror(errno)));
    }
    std::fflush(nullptr);  // or the child would print the parent's buffered output again
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return Status::Error(fmt::format("fork: {}", std::strerror(errno)));
    }
    if (pid == 0) {
      close(fds[0]);
      for (const Child& other : children_) {
        if (other.fd >= 0) close(other.fd);
      }
      ChildMain(fds[1], task, o_.process_per_task, parent, work_);
    }
    close(fds[1]);
    Child ch;
    ch.pid = pid;
    ch.fd = fds[0];
    ch.busy = true;
    ch.task = task;
    children_.push_back(std::move(ch));
    return Status::Ok();
  }

  // After `ch` sent a result: its next task, or (one task per process, or none left) its end.
  Status HandOut(Child* ch) {
    if (o_.process_per_task || next_task_ >= tasks_) return Status::Ok();  // it exits, or idles until the end
    std::string msg;
    PutU64(&msg, next_task_);
    if (!SendAll(ch->fd, msg.data(), msg.size())) return Died(ch);
    ch->busy = true;
    ch->task = next_task_++;
    return Status::Ok();
  }

  // The child's socket closed: expected after its one task (then a fresh child takes the next task), an
  // error while it ran one.
  Status Closed(Child* ch) {
    close(ch->fd);
    ch->fd = -1;
    if (ch->busy) return Died(ch);
    const int wstatus = Reap(ch);
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) return Describe(*ch, wstatus);
    if (o_.process_per_task && next_task_ < tasks_) return Spawn(next_task_++);
    return Status::Ok();
  }

  Status Died(Child* ch) {
    if (ch->fd >= 0) close(ch->fd);
    ch->fd = -1;
    const int wstatus = Reap(ch);
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
      // Exited cleanly without sending the task's result.
      return Status::Error(fmt::format("{} failed (exit status 0){}", o_.child_name, While(*ch)));
    }
    return Describe(*ch, wstatus);
  }

  Status Describe(const Child& ch, int wstatus) const {
    if (WIFSIGNALED(wstatus)) {
      return Status::Error(
          fmt::format("{} died of signal {}{}", o_.child_name, WTERMSIG(wstatus), While(ch)));
    }
    return Status::Error(
        fmt::format("{} failed (exit status {}){}", o_.child_name, WEXITSTATUS(wstatus), While(ch)));
  }

  std::string While(const Child& ch) const {
    return o_.task_name ? " while running " + o_.task_name(ch.task) : std::string();
  }

  // Waits for the child and adds its resources to the usage; returns its wait status.
  int Reap(Child* ch) {
    int wstatus = 0;
    struct rusage ru {};
    while (wait4(ch->pid, &wstatus, 0, &ru) < 0) {
      if (errno != EINTR) break;
    }
    ch->pid = -1;
    if (usage_ != nullptr) {
      usage_->max_rss_bytes = std::max(usage_->max_rss_bytes, static_cast<double>(ru.ru_maxrss) * 1024.0);
      usage_->cpu_s += static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    }
    return wstatus;
  }

  // Kills and reaps every child still running (after a failure).
  void StopAll() {
    for (Child& ch : children_) {
      if (ch.fd >= 0) close(ch.fd);
      ch.fd = -1;
      if (ch.pid > 0) kill(ch.pid, SIGKILL);
    }
    for (Child& ch : children_) {
      if (ch.pid > 0) Reap(&ch);
    }
  }

  const size_t tasks_;
  const PoolOptions& o_;
  const std::function<StatusOr<std::string>(size_t)>& work_;
  ChildUsage* usage_;
  std::deque<Child> children_;  // a deque: a reference to a child survives Spawn
  size_t next_task_ = 0;
};

}  // namespace

Status RunPool(size_t tasks, const PoolOptions& options,
               const std::function<StatusOr<std::string>(size_t)>& work,
               const std::function<Status(size_t, std::string)>& deliver, ChildUsage* usage) {
  if (tasks == 0) return Status::Ok();
  Pool pool(tasks, options, work, usage);
  return pool.Run(deliver);
}

}  // namespace zerosim::sim
