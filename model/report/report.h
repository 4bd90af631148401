// Report: what ZeroSim tells a user about each configuration it evaluated, with the provenance that makes
// the numbers reproducible. Serialised by model/io (JSON: docs/report.md; table: report_table.h).
#pragma once

#include <string>
#include <vector>

#include "model/report/band.h"
#include "model/report/memory.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// Bytes per iteration summed over all GPUs, per purpose.
struct PhaseBytes {
  double forward_allgather = 0;
  double backward_allgather = 0;
  double gradient_reduce = 0;
  double tensor_parallel = 0;  // Megatron's TP collectives (Purpose::kTensorParallel)
  double pipeline = 0;  // point-to-point sends between pipeline stages (model/report/pipeline_evaluate.h)
  double expert_parallel = 0;  // MoE token dispatch and combine (Purpose::kExpertParallel)
  double context_parallel = 0;  // the attention blocks' key/value ring (Purpose::kContextParallel)
  double total() const {
    return forward_allgather + backward_allgather + gradient_reduce + tensor_parallel + pipeline +
           expert_parallel + context_parallel;
  }
};

struct VolumeReport {
  PhaseBytes cross_node;
  PhaseBytes intra_node;
};

// One phase of an RLHF iteration (model/report/rlhf_evaluate.h): generation, experience, training or sft.
struct PhaseReport {
  std::string name;
  double time_s = 0;             // the phase's wall time on the cluster
  double throughput = 0;         // per GPU, in throughput_unit
  std::string throughput_unit;   // "tokens/s" (generation: generated tokens) or "samples/s"
  double compute_s = 0;          // GPU compute-stream work (nominal), summed over the phase's passes
  double exposed_comm_s = 0;     // time_s not spent on the GPU's own work
  VolumeReport bytes;            // summed over all GPUs
  double memory_bytes = 0;       // per GPU, peak during the phase (resident models + the phase's working set)
  double kv_cache_bytes = 0;     // per GPU: 2 * layers * kv_heads * head_dim * 2 bytes * tokens (generation)
  double activations_bytes = 0;  // per GPU: activations (and logits) of the phase's passes
  double gathered_bytes = 0;     // per GPU: parameters gathered at once (the schedule's peak)
  double resident_bytes =
      0;  // per GPU: the partitions of actor, reference, critic and reward, optimizer states
  double runtime_bytes = 0;  // per GPU: CUDA context, NCCL buffers, cuBLAS, allocator rounding, reserve
  std::string composition;   // how the phase was built from schedules, e.g. "prefill + 256 decode steps"
};

// Sim engine only: the link capacity (bytes; a flow of w wire bytes at bandwidth factor f loads w / f) that
// SimGrid moved on the simulated platform's NIC-egress and NVSwitch-port-egress links (sim/README.md: the
// meter), beside what the schedule's flows planned for them. The replay fails when the two differ by more
// than 1e-3 (bytes not conserved, sim/carried_bytes.h); `bytes` below is the planned payload per purpose on
// SimGrid's own routes, which this measurement confirms. On the simulated platform only: with rank classes or
// the symmetric reduction it is smaller than the cluster's (sim/README.md).
struct LinkLoadReport {
  bool measured = false;  // false for the analytic engine
  double nic_carried_bytes = 0;
  double nic_planned_bytes = 0;
  double nvlink_carried_bytes = 0;
  double nvlink_planned_bytes = 0;
};

struct VariantReport {
  std::string name;
  std::string engine;  // "analytic" or "sim"
  ModelSpec model;     // with the variant's seq_len
  ZeroConfig zero;
  ParallelLayout layout;  // tensor (and pipeline) parallelism beside the data parallelism of `zero`
  bool feasible = true;
  std::string infeasible_reason;
  double iteration_time_s = 0;
  double tflops_per_gpu = 0;  // Megatron's count (with recompute when checkpointing) / (t * P)
  // Model FLOPs utilisation (PaLM, Chowdhery et al. 2022, app. B): (6 N + 12 l h s) FLOPs per token, no
  // recompute, times tokens/s per GPU, over the GPU's dense fp16/bf16 peak whatever the GEMMs' dtype: the
  // convention published MFUs use (Llama 3 paper Table 4, BF16; NVIDIA's and torchtitan's FP8 runs are quoted
  // against the BF16 peak too), so that an FP8 run's MFU reads beside a BF16 run's (issue 38). N is every
  // parameter (embeddings included, tied ones once).
  double mfu = 0;
  // With FP8 GEMMs (and a GPU with an FP8 peak): the same FLOPs over the dense FP8 peak, labelled as such; 0
  // otherwise.
  double mfu_fp8_peak = 0;
  double tokens_per_s = 0;
  double exposed_comm_s = 0;  // iteration time not spent on GPU work: waiting for and interference with comm.
  double compute_s = 0;       // GEMM/attention time
  double optimizer_s = 0;
  double gpu_side_s = 0;  // quantization kernels and memory passes beside the compute stream
  double comm_interference_s =
      0;  // the part of exposed_comm_s lost to NCCL kernels holding SMs beside compute
  // Why: compute_s split by kind (compute_cost.h), and exposed_comm_s by cause.
  double gemm_s = 0;            // GEMMs (wave quantization and the HBM roofline included)
  double attention_s = 0;       // FlashAttention kernels
  double memory_bound_s = 0;    // norms, activations, residuals, dropout, casts, the loss
  double kernel_gaps_s = 0;     // idle GPU time between kernels
  double queue_blocking_s = 0;  // compute held behind other streams' ops by one hardware queue (each engine)
  double waiting_for_data_s =
      0;  // the rest of exposed_comm_s: waiting for gathers, reductions and host syncs
  // Pipeline parallelism (model/report/pipeline_evaluate.h): the critical stage's idle time in the pipeline
  // (its iteration minus its serial schedule's time), and its (makespan - busy) / busy of the pipeline's
  // passes
  // ((p - 1) / (m v) for uniform stages and free sends); 0 without a pipeline.
  double pipeline_bubble_s = 0;
  double pipeline_bubble_fraction = 0;
  int gpus = 0;        // P, for per-GPU figures
  VolumeReport bytes;  // summed over all GPUs
  MemoryBreakdown memory;
  int num_ops = 0;  // size of the schedule
  // RLHF scenarios only ([rlhf], model/report/rlhf_evaluate.h): the phases; iteration_time_s is then one PPO
  // step (generation + experience + training) and tokens_per_s the generated tokens per second of the
  // cluster.
  std::vector<PhaseReport> phases;
  LinkLoadReport link_load;  // sim engine only
  // How far the throughputs and the time can be trusted (model/report/band.h): set by the studies from the
  // shipped band table. Throughputs lie in [x band.low, x band.high], the iteration time in [t / band.high, t
  // / band.low]; the headline is the value times band.center (1 unless the band excludes the model's value).
  Band band;
  // Non-empty: the report breaks an invariant (model/report/invariants.h), a bug; studies stop on it
  // (InvariantStatus) instead of printing the numbers.
  std::string invariant_violation;
};

// Whether a variant's numbers stand: it fits (feasible) and was evaluated. Every output (table, JSON, rows,
// compare, plan) leaves the throughputs, times and bytes of one that does not out and shows its
// infeasible_reason instead (docs/report.md).
inline bool Ran(const VariantReport& v) { return v.feasible && v.iteration_time_s > 0; }

// Whether its memory was estimated: it stays in every output, since it is why a variant does not fit in HBM
// (a variant refused before its schedule was built has none).
inline bool HasMemoryEstimate(const VariantReport& v) { return v.memory.total_bytes > 0; }

struct InputFile {
  std::string path;
  std::string hash;  // "fnv1a64:<16 hex digits>" of the file's bytes
};

struct Provenance {
  std::string zerosim_version;
  InputFile scenario;
  InputFile topology;
  InputFile model;
  InputFile calibration;
  std::string calibration_gpu;
  std::string calibration_source;  // "measured" or "derived"
  std::string calibration_provenance;
  std::string gemm_efficiency_source;
  std::string network_model;               // how communication was timed
  std::string simgrid_version;             // empty for the analytic engine
  std::string fp8_gemm_efficiency_source;  // the calibration's FP8 GEMM efficiency source (empty: none)
  // The power model's line (gpu_power.h PowerModelText): the limit, the tensor-core clock factor and its rule;
  // empty when neither the GPU nor the calibration set is power-capped.
  std::string power_model;
  // A DeepSpeed config (`deepspeed_config`, `zerosim run --ds-config`): the file, and the JSON paths of its
  // keys ZeroSim does not model ("$.steps_per_print"), listed so that nothing is dropped silently. Empty
  // without one.
  InputFile deepspeed_config;
  std::vector<std::string> ignored_config_keys;
  std::vector<std::string> simgrid_options;  // the user's --cfg / --log ("--cfg=KEY:VALUE"), sim engine only
};

struct Report {
  Provenance provenance;
  std::string scenario_name;
  ModelSpec model;
  ClusterSpec cluster;
  std::vector<VariantReport> variants;
};

}  // namespace zerosim::model
