// Unit constants. Inside ZeroSim every quantity is an SI double (bytes, seconds, bytes per second,
// FLOPs, FLOP/s); units appear only at the edges: in input strings ("400Gbps", "2us", "80GiB") and in
// printed tables. Names carry the unit: `_bytes`, `_s`, `_Bps`, `_flops`.
#pragma once

namespace zerosim {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;
inline constexpr double kGB = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kMicrosecond = 1e-6;

}  // namespace zerosim
