// The memory a training process holds besides its tensors (issue 20 item 7; model/report/runtime_memory.h):
// the CUDA context, NCCL's buffers by communicator and channel, cuBLAS's workspaces, the allocator's block
// rounding and the [runtime] memory_reserve, each against a closed form written here from its source; they
// are memory parts, they count towards feasibility, and the batch search keeps the headroom. On 402d782 a
// variant whose tensors fill 97% of the GPU was feasible and the batch search took a micro-batch at 96%.
#include <gtest/gtest.h>

#include <cmath>

#include "model/cost/nccl_channels.h"
#include "model/report/batch_search.h"
#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/report/runtime_memory.h"
#include "model/schedule/schedule_builder.h"
#include "model/spec/calibration.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

constexpr double kMiBytes = 1024.0 * 1024.0;

double TensorBytes(const MemoryBreakdown& r) {
  return r.parameters_bytes + r.gradients_bytes + r.optimizer_states_bytes + r.hpz_secondary_bytes +
         r.gathered_parameters_bytes + r.buffers_bytes + r.activations_bytes;
}

TEST(RuntimeMemory, NcclBuffersAreChannelsTimesTheThreeProtocolBuffers) {
  // NCCL src/init.cc: LL 8 lines x 512 threads x 8 steps x 16 B, LL128 120 x 640 x 8 x 8 B, Simple 4 MiB.
  const double per_channel = 8.0 * 512 * 8 * 16 + 120.0 * 640 * 8 * 8 + 4.0 * kMiBytes;
  EXPECT_DOUBLE_EQ(per_channel, 9633792.0);
  const ModelSpec m = testing::Gpt(2, 1024, 16);
  for (const ClusterSpec& c : {testing::PaperCluster(1, 4, 8), testing::PaperCluster(2, 2, 16)}) {
    // ZeRO-3 runs every collective on the global communicator.
    const Schedule s = BuildSchedule(m, ZeroConfig{}, c);
    EXPECT_DOUBLE_EQ(NcclBufferBytes(s, c), NcclChannels(c) * per_channel) << c.nodes;
    // HSDP adds the replicate group's communicator (shard group of one node).
    ZeroConfig hsdp;
    hsdp.strategy = Strategy::kFsdpHybridShard;
    hsdp.framework = Framework::kFsdp;
    const Schedule h = BuildSchedule(m, hsdp, c);
    const int shard = CommChannels(c, CommShapeOf(GroupKind::kShard, c.gpus_per_node, c)).channels;
    const int replica = CommChannels(c, CommShapeOf(GroupKind::kReplica, c.nodes, c)).channels;
    EXPECT_DOUBLE_EQ(NcclBufferBytes(h, c), (shard + replica) * per_channel) << c.nodes;
  }
}

TEST(RuntimeMemory, CublasWorkspacesFollowPyTorchsDefaultsByArchitecture) {
  ClusterSpec c = testing::PaperCluster();  // V100: ":4096:2:16:8" plus 1 MiB cuBLASLt, two handles
  EXPECT_DOUBLE_EQ(CublasWorkspaceBytes(c), 2.0 * ((4096.0 * 2 + 16 * 8) * 1024 + 1024 * 1024));
  c.gpu.name = "H100-SXM5-80GB";  // Hopper: ":4096:8", two handles
  EXPECT_DOUBLE_EQ(CublasWorkspaceBytes(c), 2.0 * 32 * kMiBytes);
}

TEST(RuntimeMemory, EveryPartIsInTheTotalWithTheReserveOfTheGpusMemory) {
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  for (double reserve : {0.0, 0.05, 0.2}) {
    ZeroConfig z;
    z.runtime.memory_reserve = reserve;
    const Schedule s = BuildSchedule(m, z, c);
    const MemoryBreakdown r = EstimateMemory(m, z, c, s);
    EXPECT_DOUBLE_EQ(r.cuda_context_bytes, 512 * kMiBytes);
    EXPECT_DOUBLE_EQ(r.nccl_buffers_bytes, NcclBufferBytes(s, c));
    EXPECT_DOUBLE_EQ(r.cublas_workspace_bytes, CublasWorkspaceBytes(c));
    // 1 MiB per kept large tensor: with full recompute (the default) one input per block plus one block's 13
    // (QKV input, Q, K, V, core output, FlashAttention's log-sum-exp, MLP input and two intermediates, two
    // norm inputs, two dropout masks), and one per parameter whose 16-bit partition over the 16 GPUs
    // exceeds 1 MiB (the allocator's kSmallSize): the embeddings, not the block matrices (h x 3h / 16 x 2 B
    // = 384 KiB).
    double large_params = 0;
    for (const Param& p : s.graph.params) large_params += 2.0 * p.numel() / 16 > kMiBytes ? 1 : 0;
    EXPECT_GE(large_params, 1);
    EXPECT_LT(large_params, static_cast<double>(s.graph.params.size()));
    const double tensors = m.layers + 13.0 + large_params;
    EXPECT_DOUBLE_EQ(r.allocator_rounding_bytes, tensors * kMiBytes);
    EXPECT_DOUBLE_EQ(r.reserve_bytes, std::ceil(reserve * c.gpu.hbm_bytes));  // whole bytes
    EXPECT_EQ(r.reserve_bytes, std::floor(r.reserve_bytes));
    EXPECT_DOUBLE_EQ(r.total_bytes, TensorBytes(r) + r.cuda_context_bytes + r.nccl_buffers_bytes +
                                        r.cublas_workspace_bytes + r.allocator_rounding_bytes +
                                        r.reserve_bytes);
  }
}

TEST(RuntimeMemory, TensorsAtNinetySevenPercentOfTheGpuDoNotFit) {
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  ClusterSpec c = testing::PaperCluster(1, 2, 8);
  for (double reserve : {kDefaultMemoryReserve, 0.05}) {
    ZeroConfig z;
    z.runtime.memory_reserve = reserve;
    const MemoryBreakdown r = EstimateMemory(m, z, c, BuildSchedule(m, z, c));
    const double runtime = r.cuda_context_bytes + r.nccl_buffers_bytes + r.cublas_workspace_bytes +
                           r.allocator_rounding_bytes;
    // The tensors at 97% of the GPU leave less than the runtime parts and the reserve need.
    c.gpu.hbm_bytes = TensorBytes(r) / 0.97;
    ASSERT_GT(runtime + reserve * c.gpu.hbm_bytes, 0.03 * c.gpu.hbm_bytes);
    const VariantReport v = EvaluateAnalyticVariant("z3", m, z, c, testing::TestCalibration());
    EXPECT_FALSE(v.feasible) << reserve;
    EXPECT_NE(v.infeasible_reason.find("GiB"), std::string::npos) << v.infeasible_reason;
    // With room for the runtime parts and the reserve it fits.
    c.gpu.hbm_bytes = (TensorBytes(r) + runtime) / (1 - reserve) * 1.001;
    EXPECT_TRUE(EvaluateAnalyticVariant("z3", m, z, c, testing::TestCalibration()).feasible) << reserve;
  }
}

TEST(RuntimeMemory, BatchSearchKeepsTheHeadroom) {
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  ClusterSpec c = testing::PaperCluster(1, 2, 8);
  ZeroConfig z;
  z.runtime.memory_reserve = 0.05;
  // The GPU holds six sequences' tensors at 96% of its memory: too little room for the runtime parts and
  // the 5% reserve, so the search stops below six.
  const MemoryBreakdown six = MemoryAtMicroBatch(m, z, c, 6);
  c.gpu.hbm_bytes = TensorBytes(six) / 0.96;
  const BatchSearchResult b = SearchBatch(m, z, c, 0);
  ASSERT_TRUE(b.fits) << b.reason;
  EXPECT_LT(b.largest_micro_batch, 6);
  EXPECT_LE(b.memory.total_bytes, c.gpu.hbm_bytes);
  EXPECT_DOUBLE_EQ(b.memory.reserve_bytes, std::ceil(0.05 * c.gpu.hbm_bytes));
  EXPECT_LE(TensorBytes(b.memory), 0.95 * c.gpu.hbm_bytes);
}

}  // namespace
}  // namespace zerosim::model
