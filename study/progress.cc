#include "study/progress.h"

#include <unistd.h>

#include <string>

#include <fmt/format.h>

namespace zerosim::study {

Progress::Progress(size_t total, bool enabled, const char* what, const char* unit, double delay_s)
    : total_(total), enabled_(enabled), what_(what), unit_(unit), delay_s_(delay_s), tty_(isatty(2) != 0) {}

void Progress::Update(size_t done, bool final) {
  if (!enabled_) return;
  const double now = Seconds();
  // Within the delay, nothing; a final update only ends what was printed.
  if (now < delay_s_ && !printed_) return;
  if (final && !printed_ && delay_s_ > 0) return;
  if (!final && now - last_ < (tty_ ? 0.1 : 5.0)) return;
  printed_ = true;
  last_ = now;
  const double rate = now > 0 ? static_cast<double>(done) / now : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1;
  if (tty_) {
    const int width = 30;
    const int filled = static_cast<int>(frac * width);
    fmt::print(stderr, "\r[{}{}] {:3.0f}% {}/{} {}, {:.{}f}/s, ETA {:.0f}s   ",
               std::string(static_cast<size_t>(filled), '='), std::string(static_cast<size_t>(width - filled), ' '),
               100 * frac, done, total_, unit_, rate, rate < 10 ? 1 : 0, eta);
    if (final) fmt::print(stderr, "\n");
  } else {
    fmt::print(stderr, "{}: {}/{} {} ({:.0f}%), {:.{}f} {}/s, ETA {:.0f}s\n", what_, done, total_, unit_, 100 * frac,
               rate, rate < 10 ? 1 : 0, unit_, eta);
  }
}

double Progress::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace zerosim::study
