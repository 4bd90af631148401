// zerosim._core: runs a `zerosim` subcommand's handler (cli/commands.h) in this process, as the command line
// would, and returns its exit status with what it printed. The Python layer (python/zerosim) builds the argv
// and reads the JSON lines the commands write; nothing here interprets an output.
//
// Capture: the handlers print through stdio and fmt on the process's stdout and stderr (file descriptors 1 and
// 2), and the sim engine's and sweep's forked workers (sim/process_pool.h) inherit those descriptors. So the
// capture is at the descriptor level: 1 and 2 point at two unnamed temporary files (std::tmpfile) for the
// call, and are restored after it. One call at a time (a mutex): the descriptors belong to the whole process.
// The GIL is released during the call, so other Python threads run; what they print on the real descriptors
// 1 and 2 during it (not through sys.stdout replaced by Jupyter) lands in the capture.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cli/commands.h"
#include "model/version.h"

namespace py = pybind11;

namespace {

struct Handler {
  const char* name;
  int (*run)(int, char**);
};

// The commands the package drives (not calibrate or bench: they measure this machine's GPU and CPU).
constexpr Handler kHandlers[] = {
    {"run", zerosim::cli::RunCommand},         {"validate", zerosim::cli::ValidateCommand},
    {"sweep", zerosim::cli::SweepCommand},     {"plan", zerosim::cli::PlanCommand},
    {"compare", zerosim::cli::CompareCommand}, {"fit", zerosim::cli::FitCommand},
};

std::mutex capture_mutex;

// The bytes of `f` from its start.
std::string ReadAll(std::FILE* f) {
  std::string text;
  if (std::fseek(f, 0, SEEK_SET) != 0) throw std::runtime_error("zerosim._core: cannot rewind a capture file");
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  return text;
}

// Points descriptor `fd` at `to` until destroyed, then back at what it was.
class Redirect {
 public:
  Redirect(int fd, std::FILE* to) : fd_(fd), saved_(::dup(fd)) {
    if (saved_ < 0 || ::dup2(::fileno(to), fd) < 0) {
      if (saved_ >= 0) ::close(saved_);
      throw std::runtime_error("zerosim._core: cannot redirect descriptor " + std::to_string(fd));
    }
  }
  ~Redirect() {
    ::dup2(saved_, fd_);
    ::close(saved_);
  }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;

 private:
  int fd_;
  int saved_;
};

void FlushAll() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

struct TempFile {
  std::FILE* f = std::tmpfile();
  ~TempFile() {
    if (f != nullptr) std::fclose(f);
  }
};

// (exit status, stdout bytes, stderr bytes) of `zerosim <command> args...`.
std::tuple<int, py::bytes, py::bytes> RunCommand(const std::string& command, std::vector<std::string> args) {
  const Handler* handler = nullptr;
  for (const Handler& h : kHandlers) {
    if (command == h.name) handler = &h;
  }
  if (handler == nullptr) throw py::value_error("zerosim._core: no command '" + command + "'");
  args.insert(args.begin(), command);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int rc = 0;
  std::string out, err, failure;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(capture_mutex);
    TempFile out_file, err_file;
    if (out_file.f == nullptr || err_file.f == nullptr) {
      failure = "zerosim._core: cannot create a temporary file to capture the output";
    } else {
      FlushAll();
      {
        Redirect to_out(1, out_file.f);
        Redirect to_err(2, err_file.f);
        try {
          rc = handler->run(static_cast<int>(args.size()), argv.data());
        } catch (const std::exception& e) {
          failure = std::string("zerosim ") + command + ": " + e.what();
        } catch (...) {
          failure = std::string("zerosim ") + command + ": an unknown C++ exception";
        }
        FlushAll();
      }
      out = ReadAll(out_file.f);
      err = ReadAll(err_file.f);
    }
  }
  if (!failure.empty()) throw std::runtime_error(failure + (err.empty() ? "" : "\n" + err));
  return {rc, py::bytes(out), py::bytes(err)};
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ZeroSim's command handlers in-process (python/zerosim wraps them)";
  m.def("run_command", &RunCommand, py::arg("command"), py::arg("args"),
        "Runs `zerosim COMMAND ARGS...` in this process: (exit status, stdout bytes, stderr bytes).");
  m.def("version", [] { return std::string(zerosim::Version()); }, "ZeroSim's version, as `zerosim --version`.");
  m.def("commands", [] {
    std::vector<std::string> names;
    for (const Handler& h : kHandlers) names.emplace_back(h.name);
    return names;
  }, "The commands run_command accepts.");
}
