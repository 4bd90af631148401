#include "study/progress.h"

#include <unistd.h>

#include <string>

#include <fmt/format.h>

namespace zerosim::study {

Progress::Progress(size_t total, bool enabled) : total_(total), enabled_(enabled), tty_(isatty(2) != 0) {}

void Progress::Update(size_t done, bool final) {
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
    fmt::print(stderr, "\r[{}{}] {:3.0f}% {}/{} points, {:.0f}/s, ETA {:.0f}s   ",
               std::string(static_cast<size_t>(filled), '='),
               std::string(static_cast<size_t>(width - filled), ' '), 100 * frac, done, total_, rate, eta);
    if (final) fmt::print(stderr, "\n");
  } else {
    fmt::print(stderr, "sweep: {}/{} points ({:.0f}%), {:.0f} points/s, ETA {:.0f}s\n", done, total_,
               100 * frac, rate, eta);
  }
}

double Progress::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace zerosim::study
