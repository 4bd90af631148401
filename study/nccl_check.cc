#include "study/nccl_check.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/cost/collective_time.h"
#include "model/cost/nccl_allreduce.h"
#include "model/placement/traffic.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::study {
namespace {

struct Checked {
  std::string id;
  std::string source;
  std::string collective;
  int gpus = 0;
  double bytes = 0;
  double measured_GBps = 0;
  double predicted_GBps = 0;
  std::string algorithm;  // what ZeroSim's tuner picked, "Ring/LL128", "Tree/LL", "NVLS/Simple", ...
  double error() const { return predicted_GBps / measured_GBps - 1; }
};

// A cluster of the point's shape with NCCL's default cost model; NVSwitch inside nodes.
model::ClusterSpec PointCluster(const nlohmann::json& p) {
  model::ClusterSpec c;
  c.name = p.at("id").get<std::string>();
  c.nodes = p.at("nodes").get<int>();
  c.gpus_per_node = p.at("gpus_per_node").get<int>();
  c.gpu.name = p.at("gpu").get<std::string>();
  c.gpu.sms = p.at("sms").get<int>();
  c.intra.bandwidth_Bps = p.at("nvlink_GBps").get<double>() * 1e9;
  c.nic.count = std::max(1, p.at("nics_per_node").get<int>());
  c.nic.bandwidth_Bps = std::max(1e-9, p.at("nic_Gbps").get<double>()) * 1e9 / 8;
  c.fabric.kind = model::FabricKind::kSingleSwitch;
  // The point's NCCL release when the source states it; a Hopper or Blackwell point that does not takes the
  // current tables (2.18 to 2.27 share their ring tables; NVLS latency 25 us from 2.21); others keep the
  // default.
  const std::string release = p.value("nccl_release", "");
  const bool recent_gpu = model::GpuComputeCapability(c) >= 90;  // the one GPU-architecture function
  model::NcclLibraryForRelease(!release.empty() ? release : (recent_gpu ? "2.27" : c.nccl.release), &c.nccl);
  // The network plugin's reported latency (aws-ofi-nccl on EC2; scripts/nccl_points_to_checks.py).
  c.nccl.net_latency_s = p.value("net_latency_s", 0.0);
  return c;
}

// nccl-tests' bus bandwidth of one call: message size times the algorithm factor over the time (nccl-tests
// PERFORMANCE.md: all-reduce 2(n-1)/n, all-gather, reduce-scatter and all-to-all (n-1)/n; the message is the
// whole buffer of one rank).
double PredictedBusBw(const std::string& collective, const std::string& algorithm, double bytes,
                      double overhead_s, const model::ClusterSpec& c, std::string* picked) {
  const int n = c.total_gpus();
  auto time = [&](model::CollectiveKind kind) {
    const model::Traffic t = model::LoneCollectiveTraffic(kind, model::GroupKind::kGlobal, n, bytes, c);
    const model::CollectiveTime ct = model::EstimateCollective(t, c);
    *picked = std::string(ct.algorithm) + "/" + ct.protocol;
    return ct.seconds;
  };
  double seconds = 0, factor = static_cast<double>(n - 1) / n;
  if (collective == "all_reduce") {
    // NCCL's tuner picks among ring, tree, single-node NVLS and NVLSTree (model/cost/nccl_allreduce.h); a
    // point that forced one keeps it (NCCL_ALGO=Ring, NVLS).
    const model::Traffic ring = model::LoneCollectiveTraffic(model::CollectiveKind::kAllReduce,
                                                             model::GroupKind::kGlobal, n, bytes, c);
    const unsigned algorithms = algorithm == "ring"       ? model::kNcclRing
                                : algorithm == "nvls"     ? model::kNcclNvls
                                : algorithm == "tree"     ? model::kNcclTree
                                : algorithm == "nvlstree" ? model::kNcclNvlsTree
                                                          : model::kNcclAllAlgorithms;
    const model::CollectiveTime ct = model::EstimateAllReduce(ring, bytes, c, algorithms);
    *picked = std::string(ct.algorithm) + "/" + ct.protocol;
    seconds = ct.seconds;
    factor *= 2;
  } else if (collective == "all_gather") {
    seconds = time(model::CollectiveKind::kAllGather);
  } else if (collective == "reduce_scatter") {
    seconds = time(model::CollectiveKind::kReduceScatter);
  } else {
    // All-to-all over a single node, or across nodes one rank per node: ZeroSim's two placements.
    seconds = time(model::CollectiveKind::kAllToAll);
  }
  // The benchmark's own cost per call inside its timing (scripts/nccl_points_to_checks.py BENCHMARKS).
  seconds += overhead_s;
  return seconds > 0 ? bytes * factor / seconds / 1e9 : 0;
}

}  // namespace

StatusOr<NcclCheck> CheckNcclPoints(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error(fmt::format("{}: cannot read", path));
  std::stringstream text;
  text << in.rdbuf();
  std::vector<Checked> rows;
  try {
    const nlohmann::json doc = nlohmann::json::parse(text.str());
    if (doc.value("format", "") != "zerosim-nccl-points-1") {
      return Status::Error(fmt::format("{}: format: expected \"zerosim-nccl-points-1\"", path));
    }
    for (const nlohmann::json& p : doc.at("points")) {
      Checked r;
      r.id = p.at("id").get<std::string>();
      // Per source and benchmark: one source can hold runs of different benchmarks (nccl-tests, torch).
      r.source = p.at("source").get<std::string>().substr(0, 36) + " [" + p.value("benchmark", "?") + "]";
      r.collective = p.at("collective").get<std::string>();
      r.bytes = p.at("message_bytes").get<double>();
      r.measured_GBps = p.at("busbw_GBps").get<double>();
      model::ClusterSpec c = PointCluster(p);
      r.gpus = c.total_gpus();
      if (c.nodes <= 0 || c.gpus_per_node <= 0 || r.bytes <= 0 || r.measured_GBps <= 0) {
        return Status::Error(
            fmt::format("{}: point {}: counts, size and bandwidth must be positive", path, r.id));
      }
      r.predicted_GBps = PredictedBusBw(r.collective, p.value("algorithm", "default"), r.bytes,
                                        p.value("benchmark_overhead_s", 0.0), c, &r.algorithm);
      rows.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(fmt::format("{}: {}", path, e.what()));
  }
  std::string out =
      fmt::format("{:<44} {:<14} {:>5} {:>12} {:>10} {:>10} {:>8}  {}\n", "NCCL point", "collective", "GPUs",
                  "bytes", "measured", "ZeroSim", "error", "ZeroSim's pick");
  std::map<std::string, std::vector<double>> by_source;
  std::vector<double> all;
  for (const Checked& r : rows) {
    out += fmt::format("{:<44} {:<14} {:>5} {:>12.0f} {:>10.1f} {:>10.1f} {:>+7.1f}%  {}\n",
                       r.id.substr(0, 44), r.collective, r.gpus, r.bytes, r.measured_GBps, r.predicted_GBps,
                       100 * r.error(), r.algorithm);
    by_source[r.source.substr(0, 60)].push_back(r.error());
    all.push_back(r.error());
  }
  NcclCheck check;
  auto summarise = [](const std::string& source, std::vector<double> e) {
    NcclSummary m;
    m.source = source;
    m.n = static_cast<int>(e.size());
    double sum = 0;
    for (double x : e) sum += x;
    for (double& x : e) x = std::abs(x);
    std::sort(e.begin(), e.end());
    const size_t n = e.size();
    m.median_abs = n % 2 == 1 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
    m.worst_abs = e.back();
    m.mean_signed = sum / static_cast<double>(n);
    return m;
  };
  auto line = [](const NcclSummary& m) {
    return fmt::format("{:<62} {:>4} {:>8.1f}% {:>+10.1f}%", m.source, m.n, 100 * m.median_abs, 100 * m.mean_signed);
  };
  out += fmt::format("\n{:<62} {:>4} {:>9} {:>11}\n", "source (bus bandwidth, ZeroSim vs measured)", "n",
                     "median|e|", "mean signed");
  for (const auto& [source, errors] : by_source) {
    check.sources.push_back(summarise(source, errors));
    out += line(check.sources.back()) + "\n";
  }
  if (!all.empty()) {
    check.sources.push_back(summarise("all", all));
    out += line(check.sources.back()) + "   [target: median within 15%]\n";
  }
  check.table = std::move(out);
  return check;
}

}  // namespace zerosim::study
