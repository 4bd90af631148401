#include "model/io/quantity.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "model/enum_names.h"

namespace zerosim::io {
namespace {

struct UnitInfo {
  Dimension dim;
  double scale;  // multiply the number by this to get SI
};

const std::map<std::string, UnitInfo, std::less<>>& Units() {
  static const std::map<std::string, UnitInfo, std::less<>> units = [] {
    std::map<std::string, UnitInfo, std::less<>> u;
    const std::pair<const char*, double> si[] = {{"", 1}, {"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
    const std::pair<const char*, double> iec[] = {{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
                                                  {"Ti", 1099511627776.0}};
    for (const auto& [p, s] : si) {
      const std::string pre = p;
      u[pre + "bps"] = {Dimension::kBandwidth, s / 8.0};
      u[pre + "b/s"] = {Dimension::kBandwidth, s / 8.0};
      u[pre + "Bps"] = {Dimension::kBandwidth, s};
      u[pre + "B/s"] = {Dimension::kBandwidth, s};
      u[pre + "B"] = {Dimension::kBytes, s};
    }
    for (const auto& [p, s] : iec) {
      const std::string pre = p;
      u[pre + "Bps"] = {Dimension::kBandwidth, s};
      u[pre + "B/s"] = {Dimension::kBandwidth, s};
      u[pre + "B"] = {Dimension::kBytes, s};
    }
    const std::pair<const char*, double> flop_prefix[] = {{"", 1}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
    for (const auto& [p, s] : flop_prefix) {
      const std::string pre = p;
      for (const char* spelling : {"FLOPs", "FLOPS", "FLOP/s", "flops"}) u[pre + spelling] = {Dimension::kFlopRate, s};
    }
    u["W"] = {Dimension::kPower, 1};
    u["kW"] = {Dimension::kPower, 1e3};
    u["s"] = {Dimension::kTime, 1};
    u["ms"] = {Dimension::kTime, 1e-3};
    u["us"] = {Dimension::kTime, 1e-6};
    u["\xc2\xb5s"] = {Dimension::kTime, 1e-6};  // µs
    u["ns"] = {Dimension::kTime, 1e-9};
    u["min"] = {Dimension::kTime, 60};
    u["h"] = {Dimension::kTime, 3600};
    u["d"] = {Dimension::kTime, 86400};
    u["y"] = {Dimension::kTime, 365 * 86400.0};  // 365 days
    return u;
  }();
  return units;
}

const char* Example(Dimension d) {
  constexpr std::array<const char*, 5> kExamples = {"\"100Gbps\" or \"150GBps\"", "\"2us\" or \"1.5ms\"",
                                                    "\"32GiB\" or \"80GB\"", "\"125TFLOPs\"", "\"500W\""};
  return model::NameOf(kExamples, d, "");
}

}  // namespace

const char* DimensionName(Dimension d) {
  constexpr std::array<const char*, 5> kNames = {"a bandwidth", "a time", "a size", "a FLOP rate", "a power"};
  return model::NameOf(kNames, d, "a quantity");
}

StatusOr<double> ParseQuantity(std::string_view text, Dimension d) {
  auto fail = [&](const std::string& why) {
    return Status::Error(
        fmt::format("expected {} like {}, got \"{}\" ({})", DimensionName(d), Example(d), text, why));
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  double value = 0;
  const char* begin = text.data() + i;
  const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec != std::errc() || ptr == begin) return fail("no number");
  std::string_view unit = text.substr(static_cast<size_t>(ptr - text.data()));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.remove_prefix(1);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.remove_suffix(1);
  if (unit.empty()) return fail("no unit");
  const auto it = Units().find(unit);
  if (it == Units().end()) return fail(fmt::format("unknown unit \"{}\"", unit));
  if (it->second.dim != d) {
    return fail(fmt::format("\"{}\" is {}", unit, DimensionName(it->second.dim)));
  }
  if (!std::isfinite(value) || value < 0) return fail("must be a finite number >= 0");
  // "1e300TBps" is a finite number whose SI value is not: every quantity must stay finite in SI units.
  const double si = value * it->second.scale;
  if (!std::isfinite(si)) return fail(fmt::format("{:g} {} is too large", value, unit));
  // Plausibility bounds (not measurements: they keep every duration the engines compute finite and the SimGrid
  // replay away from rates it cannot schedule; issue 20 item 24: 1e-320Bps deadlocked the replay and broke an
  // invariant in the analytic engine). Zero stays allowed (keys that must be positive say so themselves).
  struct Range {
    double lo, hi;
    const char* text;
  };
  const Range range = d == Dimension::kBandwidth ? Range{1e6, 1e15, "1MBps to 1000TBps"}
                      : d == Dimension::kTime    ? Range{1e-12, 1e10, "1e-12s to 1e10s"}
                      : d == Dimension::kBytes   ? Range{1, 1e18, "1B to 1000000TB"}
                      : d == Dimension::kPower   ? Range{1, 1e5, "1W to 100kW"}
                                                 : Range{1e6, 1e20, "1e6 to 1e20 FLOP/s"};
  if (si != 0 && (si < range.lo || si > range.hi)) {
    return fail(fmt::format("outside the plausible range {}", range.text));
  }
  return si;
}

std::string FormatQuantity(double value, Dimension d) {
  switch (d) {
    case Dimension::kBandwidth:
      return fmt::format("{:g} GB/s", value / 1e9);
    case Dimension::kTime:
      if (value < 1e-3) return fmt::format("{:g} us", value * 1e6);
      if (value < 1) return fmt::format("{:g} ms", value * 1e3);
      return fmt::format("{:g} s", value);
    case Dimension::kBytes:
      return fmt::format("{:.1f} GiB", value / 1073741824.0);
    case Dimension::kFlopRate:
      return fmt::format("{:g} TFLOP/s", value / 1e12);
    case Dimension::kPower:
      return fmt::format("{:g} W", value);
  }
  return fmt::format("{:g}", value);
}

}  // namespace zerosim::io
