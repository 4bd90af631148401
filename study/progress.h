// A long run's progress display on stderr (a sweep's points, a plan's clusters): a bar with rate and ETA on a
// terminal (every 0.1 s), a line every 5 s otherwise; nothing during the first `delay_s` seconds, so that a run
// shorter than that prints nothing (plan: 1 s).
#pragma once

#include <chrono>
#include <cstddef>

namespace zerosim::study {

class Progress {
 public:
  // `total` items to run; nothing is printed unless `enabled`. `what` names the run ("sweep", "plan") and
  // `unit` its items ("points", "clusters").
  Progress(size_t total, bool enabled, const char* what = "sweep", const char* unit = "points", double delay_s = 0);
  // `done` of the total are finished; `final` prints regardless of the interval and ends the bar's line.
  void Update(size_t done, bool final = false);
  // Seconds since construction.
  double Seconds() const;

 private:
  size_t total_;
  bool enabled_;
  const char* what_;
  const char* unit_;
  double delay_s_;
  bool printed_ = false;
  bool tty_;
  double last_ = -1e9;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace zerosim::study
