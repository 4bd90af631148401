// Quantities with units, as written in input files: "100Gbps", "150GBps", "2us", "32GiB", "125TFLOPs".
// Parsing returns SI doubles (bytes, seconds, bytes per second, FLOP/s). The unit is mandatory and must
// be of the expected dimension; the message of a failure says what was expected, with an example.
#pragma once

#include <string>
#include <string_view>

#include "model/status.h"

namespace zerosim::io {

enum class Dimension {
  kBandwidth,  // bits or bytes per second: bps Kbps Mbps Gbps Tbps, Bps KBps MBps GBps TBps, KiBps MiBps
               // GiBps TiBps; "/s" spellings too (Gb/s, GB/s, GiB/s). Result in bytes per second.
  kTime,       // s ms us (or µs) ns, and min h d y (y = 365 d) for amortization. Result in seconds.
  kBytes,      // B KB MB GB TB (powers of 1000), KiB MiB GiB TiB (powers of 1024).
  kFlopRate,   // FLOPs or FLOPS or FLOP/s with a prefix: GFLOPs TFLOPs PFLOPs. Result in FLOP/s.
  kPower,      // W kW. Result in watts.
};

const char* DimensionName(Dimension d);

// Parses "<number><unit>" (spaces allowed between them). Errors: no number, no unit, unknown unit, a
// unit of another dimension, a negative value.
zerosim::StatusOr<double> ParseQuantity(std::string_view text, Dimension d);

// Formats `value` (SI) with a readable unit of dimension `d`, e.g. 1.5e11 B/s -> "150 GB/s".
std::string FormatQuantity(double value, Dimension d);

}  // namespace zerosim::io
