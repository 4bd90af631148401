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
#include "model/builders/schedule_builder.h"
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
    const int shard = CommChannels(c, CommShapeOf(GroupKind::kShard, c.gpus_per_node,
                                                  PlacementOfGroup(c, GroupKind::kShard, c.gpus_per_node)))
                          .channels;
    const int replica = CommChannels(c, CommShapeOf(GroupKind::kReplica, c.nodes,
                                                    PlacementOfGroup(c, GroupKind::kReplica, c.nodes)))
                            .channels;
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
    EXPECT_DOUBLE_EQ(r.fragmentation_bytes, 0);  // ZeRO-3: fitted on FSDP2 only (memory.cc)
    EXPECT_NEAR(r.total_bytes,
                TensorBytes(r) + r.cuda_context_bytes + r.nccl_buffers_bytes + r.cublas_workspace_bytes +
                    r.allocator_rounding_bytes + r.fragmentation_bytes + r.reserve_bytes,
                1e-12 * r.total_bytes);
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
                           r.allocator_rounding_bytes + r.fragmentation_bytes;
    // The tensors at 97% of the GPU leave less than the runtime parts and the reserve need.
    c.gpu.hbm_bytes = TensorBytes(r) / 0.97;
    ASSERT_GT(runtime + reserve * c.gpu.hbm_bytes, 0.03 * c.gpu.hbm_bytes);
    const VariantReport v = EvaluateAnalyticVariant("z3", {m, z, c, testing::TestCalibration()});
    EXPECT_FALSE(v.feasible) << reserve;
    EXPECT_NE(v.infeasible_reason.find("GiB"), std::string::npos) << v.infeasible_reason;
    // With room for the runtime parts and the reserve it fits.
    c.gpu.hbm_bytes = (TensorBytes(r) + runtime) / (1 - reserve) * 1.001;
    EXPECT_TRUE(EvaluateAnalyticVariant("z3", {m, z, c, testing::TestCalibration()}).feasible) << reserve;
  }
}

// PyTorch's views of the memory (memory.h): active = the tensors and cuBLAS's workspaces (allocated through the
// caching allocator), reserved = active + the allocator's rounding and fragmentation, total = reserved + the
// CUDA context and NCCL's buffers (outside the allocator) + the reserve.
TEST(RuntimeMemory, ActiveReservedAndTotalAreNestedAsPyTorchReportsThem) {
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  for (RecomputePolicy policy : {RecomputePolicy::kNone, RecomputePolicy::kFull}) {
    ZeroConfig z;
    z.activation_checkpointing = policy == RecomputePolicy::kFull;
    const MemoryBreakdown r = EstimateMemory(m, z, c, BuildSchedule(m, z, c));
    EXPECT_NEAR(r.active_bytes, TensorBytes(r) + r.cublas_workspace_bytes, 1e-12 * r.active_bytes);
    EXPECT_NEAR(r.reserved_bytes, r.active_bytes + r.allocator_rounding_bytes + r.fragmentation_bytes,
                1e-12 * r.reserved_bytes);
    EXPECT_NEAR(r.total_bytes, r.reserved_bytes + r.cuda_context_bytes + r.nccl_buffers_bytes + r.reserve_bytes,
                1e-12 * r.total_bytes);
    EXPECT_GT(r.reserved_bytes, r.active_bytes);  // the rounding at least
    EXPECT_LT(r.reserved_bytes, r.total_bytes);   // the context at least
  }
}

// Fragmentation scales with the tensors allocated and freed within the iteration (activations, gathered
// parameters, buffers), not with the sharded states allocated once: more sequences per micro-batch add to it,
// more parameters held whole (ZeRO-1 against ZeRO-3) do not.
TEST(RuntimeMemory, FragmentationIsTheFittedFractionOfTheTransientTensors) {
  EXPECT_DOUBLE_EQ(AllocatorFragmentationBytes(0), 0);
  EXPECT_DOUBLE_EQ(AllocatorFragmentationBytes(1e9), kAllocatorFragmentation * 1e9);
  EXPECT_GE(kAllocatorFragmentation, 0);  // its fit's bounds (docs/fitted_parameters.md)
  EXPECT_LE(kAllocatorFragmentation, 1);
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  ZeroConfig z3;
  z3.strategy = Strategy::kFsdp2;
  z3.framework = Framework::kFsdp;
  ZeroConfig z1;
  z1.strategy = Strategy::kZero1;
  z1.stage = 1;
  const MemoryBreakdown a = EstimateMemory(m, z3, c, BuildSchedule(m, z3, c));
  const MemoryBreakdown b = EstimateMemory(m, z1, c, BuildSchedule(m, z1, c));
  EXPECT_DOUBLE_EQ(a.fragmentation_bytes,
                   AllocatorFragmentationBytes(a.activations_bytes + a.gathered_parameters_bytes + a.buffers_bytes));
  EXPECT_DOUBLE_EQ(b.fragmentation_bytes, 0);  // fitted on FSDP2 only (memory.cc)
  ZeroConfig big = z3;
  big.train_micro_batch_size_per_gpu = 4 * z3.train_micro_batch_size_per_gpu;
  const MemoryBreakdown d = EstimateMemory(m, big, c, BuildSchedule(m, big, c));
  EXPECT_GT(d.activations_bytes, a.activations_bytes);
  if (kAllocatorFragmentation > 0) {
    EXPECT_GT(d.fragmentation_bytes, a.fragmentation_bytes);
  }
  EXPECT_DOUBLE_EQ(d.fragmentation_bytes - a.fragmentation_bytes,
                   AllocatorFragmentationBytes(d.activations_bytes + d.gathered_parameters_bytes + d.buffers_bytes) -
                       AllocatorFragmentationBytes(a.activations_bytes + a.gathered_parameters_bytes + a.buffers_bytes));
}

// FSDP2 on a pipeline stage keeps the stage's parameters unsharded across the micro-batches (torchtitan:
// reshard_after_forward = not pp_enabled) and their 16-bit gradients accumulating until the last backward
// (torch.distributed.pipelining syncs gradients then only): 2 + 2 bytes per stage element on top of the shards.
// Without a pipeline, or under ZeRO-1, nothing changes.
TEST(RuntimeMemory, Fsdp2OnAPipelineStageHoldsItsParametersAndGradientsUnsharded) {
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  ZeroConfig z;
  z.strategy = Strategy::kFsdp2;
  z.framework = Framework::kFsdp;
  z.stage = 3;
  const Schedule s = BuildSchedule(m, z, c);
  ASSERT_GT(s.param_shards, 1);
  const MemoryBreakdown plain = EstimateMemory(m, z, c, s);
  const PipelineResidency stage{m.layers, 2};
  const MemoryBreakdown staged = EstimateMemory(m, z, c, s, stage);
  EXPECT_DOUBLE_EQ(staged.gathered_parameters_bytes, 2.0 * s.partitioned_elements);
  EXPECT_GT(staged.gathered_parameters_bytes, plain.gathered_parameters_bytes);
  EXPECT_DOUBLE_EQ(staged.buffers_bytes - plain.buffers_bytes, 2.0 * s.partitioned_elements);
  ZeroConfig z1;
  z1.strategy = Strategy::kZero1;
  z1.stage = 1;
  const Schedule s1 = BuildSchedule(m, z1, c);
  EXPECT_DOUBLE_EQ(EstimateMemory(m, z1, c, s1, stage).buffers_bytes, EstimateMemory(m, z1, c, s1).buffers_bytes);
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
