// Strategy: which sharded data-parallel algorithm a variant trains with, and the software stack (framework)
// that runs it. Each strategy has its own schedule builder (schedule_builder.h dispatches); they share the
// module trace, the op emitter, the traffic derivation and the memory accounting.
//
//   DeepSpeed (deepspeed/runtime/zero/):
//     zero1   stage 1: optimizer states partitioned over P; fp16 parameters and gradients replicated;
//             gradients reduce-scattered once per step at the accumulation boundary, then the updated fp16
//             partitions are all-gathered (stage_1_and_2.py reduce_gradients, step -> all_gather_dp_groups)
//     zero2   stage 2: gradients partitioned too, reduced in reduce_bucket_size buckets during every
//             backward (stage_1_and_2.py reduce_independent_p_g_buckets_and_remove_grads, average_tensor)
//     zero3   stage 3 (and ZeRO++ on it: the qwZ / hpZ / qgZ switches apply to this strategy only)
//     mics    MiCS (mics.py): stage 3 with parameters, gradients and optimizer states partitioned over a
//             shard group of mics_shard_size ranks, replicated across the P / mics_shard_size groups;
//             gradient partitions all-reduced across the replication group at the accumulation boundary
//   PyTorch FSDP (torch/distributed/fsdp/, one FlatParameter per wrapped unit):
//     fsdp_full_shard    FULL_SHARD: all-gather per unit before forward and again before backward,
//                        reduce-scatter per unit after its backward
//     fsdp_shard_grad_op SHARD_GRAD_OP: parameters stay unsharded from the forward to the backward
//     fsdp_no_shard      NO_SHARD: DDP-like, all-reduce of each unit's gradient
//     fsdp_hybrid_shard  HYBRID_SHARD (HSDP): FULL_SHARD inside a shard group (default: one node),
//                        all-reduce of the gradient shard across the groups
//     fsdp2              fully_shard (torch/distributed/_composable/fsdp): per-parameter sharding, copy-in /
//                        copy-out around each all-gather, implicit forward and explicit backward prefetch
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zerosim::model {

enum class Strategy : uint8_t {
  kZero1,
  kZero2,
  kZero3,
  kMics,
  kFsdpFullShard,
  kFsdpShardGradOp,
  kFsdpNoShard,
  kFsdpHybridShard,
  kFsdp2,
};
inline constexpr int kNumStrategies = 9;

// The software stack: its hooks, streams and runtime defaults ([runtime] framework).
enum class Framework : uint8_t { kDeepSpeed, kFsdp };

// The input spelling ("zero3", "fsdp_full_shard", ...) and back; nullopt for an unknown name.
const char* StrategyName(Strategy s);
std::optional<Strategy> ParseStrategy(std::string_view name);
// A short label for tables (at most 13 characters): "ZeRO-1", "MiCS", "FULL_SHARD", "HYBRID", "FSDP2", ...
const char* StrategyLabel(Strategy s);
// Every strategy name, comma-separated (for error messages).
const char* StrategyNames();

const char* FrameworkName(Framework f);
std::optional<Framework> ParseFramework(std::string_view name);

// The framework a strategy belongs to.
Framework FrameworkOf(Strategy s);

// How the job is launched: the training stack around the framework, which sets the runtime defaults the
// framework itself leaves to the environment ([runtime] launcher; docs/inputs.md).
enum class Launcher : uint8_t {
  kMegatronDeepSpeed,  // Megatron-DeepSpeed's pretrain scripts (DeepSpeed strategies)
  kDeepSpeed,          // the `deepspeed` launcher: HF Trainer / Accelerate with DeepSpeed, plain scripts
  kDeepSpeedChat,      // DeepSpeed-Chat (DeepSpeedExamples applications/DeepSpeed-Chat), via `deepspeed`
  kTorchrun,           // PyTorch's torchrun (FSDP; DeepSpeed too)
};
const char* LauncherName(Launcher l);
std::optional<Launcher> ParseLauncher(std::string_view name);
// Every launcher name, comma-separated (for error messages).
const char* LauncherNames();
// The launcher a framework's runs get without [runtime] launcher: deepspeed for DeepSpeed, torchrun for FSDP.
Launcher DefaultLauncher(Framework f);
// Whether the launcher runs the framework's strategies (Megatron-DeepSpeed and DeepSpeed's launchers run
// DeepSpeed only; torchrun both).
bool LauncherRuns(Launcher l, Framework f);
// CUDA_DEVICE_MAX_CONNECTIONS a launcher's runs get (strategy.cc names each source): 1 for
// Megatron-DeepSpeed, CUDA's default 8 for the others, which do not set the variable.
int LauncherHardwareQueues(Launcher l);

// Over which ranks a strategy divides one of the model states (parameters, gradients, optimizer states).
enum class ShardOver : uint8_t {
  kNone,          // whole on every rank
  kDataParallel,  // over the d ranks of the data-parallel group
  kShardGroup,    // over a shard group of `shard_size_key` ranks, replicated across the groups
};

// What a strategy is, one row per strategy (strategy.cc): the builders, the memory and the loaders read it
// instead of testing strategies one by one.
struct StrategyTraits {
  const char* name;   // the input spelling ("zero3", "fsdp_full_shard")
  const char* label;  // for tables, at most 13 characters ("ZeRO-3", "FULL_SHARD")
  Framework framework;
  // DeepSpeed's zero_optimization.stage it is (1, 2, 3; MiCS 3), 0 for FSDP.
  int zero_stage;
  ShardOver parameters;  // the 16-bit parameters (the forward gathers them unless kNone)
  ShardOver gradients;
  ShardOver optimizer_states;
  // The key sizing its shard group ("mics_shard_size", "hsdp_shard_size"); nullptr: no shard group.
  const char* shard_size_key;
  // The schedule builder that emulates it (schedule_builder.cc).
  enum class Builder : uint8_t { kZero12, kStage3, kFsdp } builder;
};

const StrategyTraits& TraitsOf(Strategy s);

// DeepSpeed's strategy for zero_optimization.stage 1, 2 or 3 (MiCS at stage 3 when `mics`); the inverse of
// TraitsOf(s).zero_stage. Precondition: 1 <= stage <= 3.
Strategy DeepSpeedStrategyOfStage(int stage, bool mics);

// Whether it runs under FSDP (TraitsOf(s).framework).
bool IsFsdp(Strategy s);

// The strategy shards parameters over a group smaller than the world and replicates across groups
// (MiCS, HSDP): TraitsOf(s).shard_size_key is set.
bool HasShardGroup(Strategy s);

}  // namespace zerosim::model
