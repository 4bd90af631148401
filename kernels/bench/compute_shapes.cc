#include "kernels/bench/compute_shapes.h"

#include <array>
#include <charconv>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace zerosim::kernels::bench {
namespace {

// "AxBxC" -> {A, B, C}, each a positive integer at most 2^20 (a larger dimension is a typo here).
StatusOr<std::array<int64_t, 3>> ParseTriple(const std::string& item, const char* form) {
  std::array<int64_t, 3> v{};
  const char* p = item.data();
  const char* end = item.data() + item.size();
  for (int i = 0; i < 3; ++i) {
    const auto [next, ec] = std::from_chars(p, end, v[static_cast<size_t>(i)]);
    const bool sep_ok = i < 2 ? (next != end && (*next == 'x' || *next == 'X')) : next == end;
    if (ec != std::errc() || !sep_ok || v[static_cast<size_t>(i)] <= 0 ||
        v[static_cast<size_t>(i)] > (int64_t{1} << 20)) {
      return Status::Error("\"" + item + "\" is not " + form +
                           " (three positive integers up to 1048576 joined by 'x')");
    }
    p = next + (i < 2 ? 1 : 0);
  }
  return v;
}

// Comma-separated items; empty items (",," or a trailing comma) are errors.
std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == ',') {
      items.emplace_back();
    } else if (c != ' ') {
      items.back() += c;
    }
  }
  return items;
}

}  // namespace

std::vector<int64_t> GemmGridSizes(GemmGrid grid) {
  std::vector<int64_t> sizes;
  if (grid == GemmGrid::kNone) return sizes;
  for (int64_t s = 256; s <= 16384; s *= grid == GemmGrid::kFull ? 2 : 4) sizes.push_back(s);
  return sizes;
}

std::string GemmGridText(GemmGrid grid) {
  if (grid == GemmGrid::kNone) return "no grid";
  std::string sizes;
  for (int64_t s : GemmGridSizes(grid)) {
    if (!sizes.empty()) sizes += ", ";
    sizes += std::to_string(s);
  }
  return std::string(grid == GemmGrid::kFull ? "full" : "reduced") + " grid (" + sizes +
         " in each of m, n, k)";
}

std::vector<GemmShape> GemmGridShapes(GemmGrid g) {
  const std::vector<int64_t> sizes = GemmGridSizes(g);
  std::vector<GemmShape> grid;
  for (int64_t m : sizes) {
    for (int64_t n : sizes) {
      for (int64_t k : sizes) grid.push_back({m, n, k});
    }
  }
  return grid;
}

std::vector<AttentionShape> DefaultAttentionShapes() {
  std::vector<AttentionShape> shapes;
  for (int64_t seq = 512; seq <= 8192; seq *= 2) shapes.push_back({32, seq, 128});
  shapes.push_back({32, 2048, 64});
  return shapes;
}

StatusOr<std::vector<GemmShape>> ParseGemmShapes(const std::string& text) {
  std::vector<GemmShape> shapes;
  for (const std::string& item : SplitCommas(text)) {
    StatusOr<std::array<int64_t, 3>> v = ParseTriple(item, "MxNxK");
    if (!v.ok()) return Status::Error("--gemm-shapes: " + v.status().message());
    shapes.push_back({(*v)[0], (*v)[1], (*v)[2]});
  }
  return shapes;
}

StatusOr<std::vector<AttentionShape>> ParseAttentionShapes(const std::string& text) {
  std::vector<AttentionShape> shapes;
  for (const std::string& item : SplitCommas(text)) {
    StatusOr<std::array<int64_t, 3>> v = ParseTriple(item, "BHxSxD (batch_heads x seq x head_dim)");
    if (!v.ok()) return Status::Error("--attention-shapes: " + v.status().message());
    shapes.push_back({(*v)[0], (*v)[1], (*v)[2]});
  }
  return shapes;
}

std::vector<GemmShape> GemmShapesToRun(GemmGrid grid, const std::vector<GemmShape>& extra) {
  std::vector<GemmShape> all = GemmGridShapes(grid);
  all.insert(all.end(), extra.begin(), extra.end());
  std::set<std::tuple<int64_t, int64_t, int64_t>> seen;
  std::vector<GemmShape> out;
  for (const GemmShape& s : all) {
    if (seen.insert({s.m, s.n, s.k}).second) out.push_back(s);
  }
  return out;
}

std::string GemmShapesText(const std::vector<GemmShape>& shapes) {
  std::string text;
  for (const GemmShape& s : shapes) {
    if (!text.empty()) text += ",";
    text += fmt::format("{}x{}x{}", s.m, s.n, s.k);
  }
  return text;
}

double GemmFlops(const GemmShape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

double DenseTensorFlopsPerSmPerClock(int cc_major, int cc_minor) {
  // 2 FLOPs per FMA. Sources: NVIDIA Turing architecture whitepaper (T4: 40 SMs x 1.59 GHz x 1024 = 65
  // TFLOP/s), A100 whitepaper table 1 (312 TFLOP/s at 108 SMs, 1.41 GHz), GA102 whitepaper (A6000-class:
  // 1024 per SM), Ada whitepaper (L40S: 142 SMs x 2.52 GHz x 1024 = 366), H100 whitepaper (989.4 TFLOP/s
  // at 132 SMs, 1.83 GHz), Blackwell datasheet (B200: 2.25 PFLOP/s dense at 148 SMs), RTX Blackwell
  // whitepaper (GB20x: Ada's rate per SM).
  switch (cc_major) {
    case 7:
      return cc_minor >= 5 ? 1024 : 0;  // Volta (7.0) is not built by CUDA 13
    case 8:
      return cc_minor == 0 ? 2048 : 1024;
    case 9:
      return 4096;
    case 10:
      return 8192;
    case 12:
      return 1024;
    default:
      return 0;
  }
}

double TensorPeakFlops(int cc_major, int cc_minor, int sm_count, double clock_hz) {
  return DenseTensorFlopsPerSmPerClock(cc_major, cc_minor) * sm_count * clock_hz;
}

}  // namespace zerosim::kernels::bench
