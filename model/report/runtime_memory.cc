#include "model/report/runtime_memory.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "model/cost/collective_time.h"
#include "model/cost/nccl_channels.h"

namespace zerosim::model {

double NcclBufferBytes(const Schedule& s, const ClusterSpec& c) {
  // One communicator per distinct group (kind and size); an all-to-all group is one too (qgZ's hops run on
  // their own process groups, model/schedule/schedule.h Queue).
  // A schedule has a handful of distinct groups among tens of thousands of collectives: a small sorted list
  // (the order a std::set would give, so the sum below is the same) instead of a tree insert per op.
  // Each with one of its collectives, placed on the schedule's grid (nccl_channels.h CommShapeOf).
  using Comm = std::tuple<GroupKind, int, bool>;
  std::vector<std::pair<Comm, CollectiveSpec>> comms;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.coll.group_size <= 1) continue;
    const Comm comm{op.coll.group, op.coll.group_size, op.coll.kind == CollectiveKind::kAllToAll};
    auto same = [&comm](const std::pair<Comm, CollectiveSpec>& k) { return k.first == comm; };
    if (std::find_if(comms.begin(), comms.end(), same) == comms.end()) comms.emplace_back(comm, op.coll);
  }
  std::sort(comms.begin(), comms.end(),
            [](const std::pair<Comm, CollectiveSpec>& a, const std::pair<Comm, CollectiveSpec>& b) {
              return a.first < b.first;
            });
  const double per_channel = kNcclLlBufferBytes + kNcclLl128BufferBytes + kNcclSimpleBufferBytes;
  double bytes = 0;
  const Placement placement(c, GridOf(s));
  for (const auto& [comm, spec] : comms) {
    const auto& [group, size, all_to_all] = comm;
    const NcclCommShape shape = CommShapeOf(spec, placement);
    if (all_to_all) {
      // A peer in the node over NVLink, every other one through the network.
      const double local_peers = std::max(0, shape.gpus_per_node - 1);
      const double remote_peers = std::max(0, size - shape.gpus_per_node);
      bytes += kNcclSteps * (local_peers * kNcclP2pNvlChunkBytes + remote_peers * kNcclP2pNetChunkBytes);
    } else {
      bytes += CommChannels(c, shape).channels * per_channel;
    }
  }
  return bytes;
}

double CublasWorkspaceBytes(const ClusterSpec& c) {
  const int cc = GpuComputeCapability(c);
  const double per_handle = cc >= 90 ? 4096.0 * 1024 * 8 : (4096.0 * 2 + 16.0 * 8) * 1024 + 1024.0 * 1024;
  return 2.0 * per_handle;
}

double AllocatorFragmentationBytes(double transient_bytes) {
  return kAllocatorFragmentation * transient_bytes;
}

RuntimeMemory EstimateRuntimeMemory(const ZeroConfig& z, const ClusterSpec& c, const Schedule& s,
                                    double live_tensors) {
  RuntimeMemory r;
  r.cuda_context_bytes = kCudaContextBytes;
  r.nccl_buffers_bytes = NcclBufferBytes(s, c);
  r.cublas_workspace_bytes = CublasWorkspaceBytes(c);
  r.allocator_rounding_bytes = kAllocatorRoundingPerTensorBytes * live_tensors;
  // Whole bytes, at least the fraction asked for (a reserve of 0.5% of 141 GiB is not 0.48 of a byte more).
  r.reserve_bytes = std::ceil(z.runtime.memory_reserve * c.gpu.hbm_bytes);
  return r;
}

}  // namespace zerosim::model
