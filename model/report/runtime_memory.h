// The GPU memory a training process holds besides its tensors (issue 20 item 7): the CUDA context, NCCL's
// communication buffers, cuBLAS's workspaces, the caching allocator's block rounding, and a documented
// reserve for what none of these counts (the allocator's fragmentation beyond its rounding, other libraries).
// Each part in bytes per GPU, each with its source:
//
//   cuda_context       kCudaContextBytes: the context's own device memory (module images, the runtime's
//                      heap, local memory), 512 MiB. It is outside PyTorch's allocator (nvidia-smi shows it,
//                      torch.cuda.memory_reserved() does not); a process that only makes a 4-byte CUDA
//                      tensor already holds 723 MiB on a 2020 stack ("What is the reason for pytorch's GPU
//                      memory floor?", discuss.pytorch.org/t/73021: "The first CUDA call creates the CUDA
//                      context"); CUDA 11.7's lazy module loading (the default from CUDA 12.2) loads fewer
//                      kernel images, so ZeroSim takes 512 MiB.
//   nccl_buffers       every communicator the schedule's collectives run on (one per distinct group and
//                      group size: ProcessGroupNCCL creates one per process group), per channel its ring's
//                      receive connection with one buffer per protocol (NCCL src/init.cc computeBuffSizes:
//                      DEFAULT_LL_BUFFSIZE = NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x
//                      NCCL_STEPS 8 x sizeof(ncclLLFifoLine) 16 = 512 KiB, DEFAULT_LL128_BUFFSIZE =
//                      NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x 8 x 8 = 4,800 KiB,
//                      DEFAULT_BUFFSIZE (NCCL_BUFFSIZE) 4 MiB for Simple): 9.19 MiB per channel, with the
//                      channel count of model/cost/nccl_channels.h. An all-to-all communicator (qgZ's hops)
//                      holds instead one p2p connection per peer with a Simple buffer of NCCL_STEPS chunks
//                      (src/init.cc: NCCL_P2P_NVL_CHUNKSIZE 512 KiB inside a node, NCCL_P2P_NET_CHUNKSIZE
//                      128 KiB across nodes). Not counted: tree, NVLS and CollNet buffers (NCCL 2.22 on
//                      connects an algorithm's buffers only when a collective first runs it,
//                      NCCL_RUNTIME_CONNECT=1; ZeroSim times rings), and host-pinned proxy buffers.
//   cublas_workspace   PyTorch's cuBLAS workspace, one per (handle, stream) pair (aten/src/ATen/cuda/
//                      CublasHandlePool.cpp getCUDABlasLtWorkspace / cublas_handle_stream_to_workspace):
//                      CUBLAS_WORKSPACE_CONFIG's default ":4096:8" = 32 MiB on Hopper and Blackwell (compute
//                      capability 9.0 and 10.0: cuBLAS recommends 32 MiB there, cublasSetWorkspace),
//                      ":4096:2:16:8" = 8,320 KiB before, plus the 1 MiB cuBLASLt workspace
//                      (CUBLASLT_WORKSPACE_SIZE) where it is separate (before Hopper). Two handles use the
//                      compute stream: the Python thread's forward and the autograd engine's device thread's
//                      backward (torch/csrc/autograd/engine.cpp runs the backward of CUDA tensors on its own
//                      per-device thread; the handle pool gives each thread its own handle).
//   allocator_rounding the caching allocator's block rounding (c10/cuda/CUDACachingAllocator.cpp): every
//                      request is rounded to kMinBlockSize 512 B; a block of the large pool is split only
//                      when more than kSmallSize 1 MiB would remain, requests of 1 to 10 MiB (kMinLargeAlloc)
//                      take a 20 MiB segment (kLargeBuffer), larger ones a segment rounded to kRoundLarge 2
//                      MiB: each live large block wastes up to 1 MiB of its segment, taken as 1 MiB for every
//                      tensor the training keeps at its peak (`live_tensors`, memory.h).
//   fragmentation      the caching allocator's reserved-but-inactive memory beyond its rounding, a fitted
//                      fraction kAllocatorFragmentation of the transient tensors (activations, gathered
//                      parameters, communication buffers: what is allocated and freed within an iteration;
//                      the sharded parameters, gradients and optimizer states are allocated once, at the same
//                      sizes every step, and reuse their blocks). Mechanisms, all in c10/cuda/
//                      CUDACachingAllocator.cpp: blocks are cached per stream (BlockPool entries carry their
//                      stream; get_free_block matches it), so what a side stream freed (FSDP's all-gather and
//                      reduce-scatter streams, record_stream's deferred frees: a block freed while another
//                      stream still uses it stays reserved until that stream's event) cannot serve the compute
//                      stream; a segment is returned to CUDA only whole (release_cached_blocks on an allocation
//                      failure), so the segments the widest transient (the loss's logits, a recompute's working
//                      set) split stay reserved when narrower tensors fill them in another pattern;
//                      expandable_segments (PYTORCH_CUDA_ALLOC_CONF, off by default) would map pages instead.
//                      The fraction is fitted on the published peak reserved memory of
//                      scenarios/published/memory/ (torchtitan's max_reserved) with leave-one-out
//                      (scripts/fit_allocator_fragmentation.py; docs/fitted_parameters.md): it lumps together
//                      the mechanisms above and what the tensor estimate leaves out there (torch.compile's
//                      buffers); the eager loss's fp32 copies of the logits, which it lumped before, are counted
//                      since (memory.h LossBytesPerLogit), and the fraction fell from 0.19 to 0.057. Applied to
//                      FSDP2 only (memory.cc): at 0.19, 61 published runs of other stacks that ran (llm-foundry
//                      FSDP1, Megatron-Core, DeepSpeed) would have read infeasible with it; at 0.057, 8 (llm-foundry
//                      FSDP1 5, Azure DeepSpeed 1, the ZeRO++ paper 2; `zerosim validate`, 2026-12-07).
//   reserve            ZeroConfig::memory_reserve (`[runtime] memory_reserve`, default 0.005) of the GPU's
//                      memory, kept free for what the parts above do not count: fragmentation across segments
//                      (the allocator's blocks freed in a pattern later requests do not fit; PyTorch's
//                      "reserved but unallocated" memory), cuDNN and the FlashAttention kernels' scratch, the
//                      torch.compile / CUDA-graph pools, and the parts' own spread (the context's size
//                      varies with the driver and the kernels loaded). The default is small because the
//                      tensor estimates (memory.h) are upper bounds already: published runs that ran sit at
//                      99.3% of the GPU without any reserve (the Azure GPT-175B run at 16 x 8 A100-80GB,
//                      micro- batch 16: 79.44 of 80 GiB), 98.4% (the ZeRO++ paper's 138B at 2K tokens on
//                      V100-32GB) and 97.3% (llm-foundry's MPT-350m on A100-40GB), so a reserve above 0.7%
//                      would call them infeasible. 0.005 keeps every one of them feasible; raise it to plan
//                      with more headroom (0.05 to 0.1 is common advice for PyTorch's allocator).
#pragma once

#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kCudaContextBytes = 512.0 * kMiB;
// NCCL src/init.cc defaults (above).
inline constexpr double kNcclLlBufferBytes = 8.0 * 512 * 8 * 16;      // 512 KiB
inline constexpr double kNcclLl128BufferBytes = 120.0 * 640 * 8 * 8;  // 4,800 KiB
inline constexpr double kNcclSimpleBufferBytes = 4.0 * kMiB;          // NCCL_BUFFSIZE
inline constexpr double kNcclSteps = 8;
inline constexpr double kNcclP2pNvlChunkBytes = 512.0 * 1024;  // NCCL_P2P_NVL_CHUNKSIZE
inline constexpr double kNcclP2pNetChunkBytes = 128.0 * 1024;  // NCCL_P2P_NET_CHUNKSIZE
// c10/cuda/CUDACachingAllocator.cpp kSmallSize: the most a large block leaves unsplit.
inline constexpr double kAllocatorRoundingPerTensorBytes = 1.0 * kMiB;
inline constexpr double kDefaultMemoryReserve = 0.005;
// The fitted fragmentation fraction (above; docs/fitted_parameters.md "allocator fragmentation").
inline constexpr double kAllocatorFragmentation = 0.0518;

struct RuntimeMemory {
  double cuda_context_bytes = 0;
  double nccl_buffers_bytes = 0;
  double cublas_workspace_bytes = 0;
  double allocator_rounding_bytes = 0;
  double reserve_bytes = 0;
  double total() const {
    return cuda_context_bytes + nccl_buffers_bytes + cublas_workspace_bytes + allocator_rounding_bytes +
           reserve_bytes;
  }
};

// NCCL's device buffers for the communicators the collectives of `s` run on (above).
double NcclBufferBytes(const Schedule& s, const ClusterSpec& c);

// PyTorch's cuBLAS workspaces on one GPU of `c` (above).
double CublasWorkspaceBytes(const ClusterSpec& c);

// The allocator's fragmentation (above): kAllocatorFragmentation x `transient_bytes`, the bytes of the tensors
// allocated and freed within an iteration at the memory peak (activations, gathered parameters, buffers).
double AllocatorFragmentationBytes(double transient_bytes);

// Every part above; `live_tensors` is the number of tensors the training keeps at its memory peak.
RuntimeMemory EstimateRuntimeMemory(const ZeroConfig& z, const ClusterSpec& c, const Schedule& s,
                                    double live_tensors);

}  // namespace zerosim::model
