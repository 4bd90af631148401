// A sweep's progress display on stderr: a bar with rate and ETA on a terminal (every 0.1 s), a line every
// 5 s otherwise.
#pragma once

#include <chrono>
#include <cstddef>

namespace zerosim::study {

class Progress {
 public:
  // `total` points to run; nothing is printed unless `enabled`.
  Progress(size_t total, bool enabled);
  // `done` of the total are finished; `final` prints regardless of the interval and ends the bar's line.
  void Update(size_t done, bool final = false);
  // Seconds since construction.
  double Seconds() const;

 private:
  size_t total_;
  bool enabled_;
  bool tty_;
  double last_ = -1e9;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace zerosim::study
