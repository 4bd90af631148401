#include "model/strategy.h"

#include <array>

namespace zerosim::model {
namespace {

constexpr std::array<const char*, kNumStrategies> kNames = {"zero1",
                                                            "zero2",
                                                            "zero3",
                                                            "mics",
                                                            "fsdp_full_shard",
                                                            "fsdp_shard_grad_op",
                                                            "fsdp_no_shard",
                                                            "fsdp_hybrid_shard",
                                                            "fsdp2"};

}  // namespace

const char* StrategyName(Strategy s) { return kNames[static_cast<size_t>(s)]; }

std::optional<Strategy> ParseStrategy(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<Strategy>(i);
  }
  return std::nullopt;
}

const char* StrategyLabel(Strategy s) {
  constexpr std::array<const char*, kNumStrategies> kLabels = {
      "ZeRO-1", "ZeRO-2", "ZeRO-3", "MiCS", "FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID", "FSDP2"};
  return kLabels[static_cast<size_t>(s)];
}

const char* StrategyNames() {
  return "zero1, zero2, zero3, mics, fsdp_full_shard, fsdp_shard_grad_op, fsdp_no_shard, fsdp_hybrid_shard, "
         "fsdp2";
}

const char* FrameworkName(Framework f) { return f == Framework::kFsdp ? "fsdp" : "deepspeed"; }

std::optional<Framework> ParseFramework(std::string_view name) {
  if (name == "deepspeed") return Framework::kDeepSpeed;
  if (name == "fsdp") return Framework::kFsdp;
  return std::nullopt;
}

bool IsFsdp(Strategy s) {
  switch (s) {
    case Strategy::kFsdpFullShard:
    case Strategy::kFsdpShardGradOp:
    case Strategy::kFsdpNoShard:
    case Strategy::kFsdpHybridShard:
    case Strategy::kFsdp2:
      return true;
    default:
      return false;
  }
}

Framework FrameworkOf(Strategy s) { return IsFsdp(s) ? Framework::kFsdp : Framework::kDeepSpeed; }

const char* LauncherName(Launcher l) {
  switch (l) {
    case Launcher::kMegatronDeepSpeed:
      return "megatron-deepspeed";
    case Launcher::kDeepSpeed:
      return "deepspeed";
    case Launcher::kDeepSpeedChat:
      return "deepspeed-chat";
    case Launcher::kTorchrun:
      return "torchrun";
  }
  return "?";
}

std::optional<Launcher> ParseLauncher(std::string_view name) {
  for (Launcher l :
       {Launcher::kMegatronDeepSpeed, Launcher::kDeepSpeed, Launcher::kDeepSpeedChat, Launcher::kTorchrun}) {
    if (name == LauncherName(l)) return l;
  }
  return std::nullopt;
}

const char* LauncherNames() { return "megatron-deepspeed, deepspeed, deepspeed-chat, torchrun"; }

Launcher DefaultLauncher(Framework f) {
  return f == Framework::kFsdp ? Launcher::kTorchrun : Launcher::kDeepSpeed;
}

bool LauncherRuns(Launcher l, Framework f) { return l == Launcher::kTorchrun || f == Framework::kDeepSpeed; }

int LauncherHardwareQueues(Launcher l) {
  switch (l) {
    case Launcher::kMegatronDeepSpeed:
      // Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed) since its mid-2023 merge of Megatron-LM's tree:
      // examples/pretrain_gpt*.sh `export CUDA_DEVICE_MAX_CONNECTIONS=1` (Megatron-LM 7625a9d2, 2023-02-17),
      // and megatron/arguments.py refuses sequence parallelism without it. Its DeepSpeed scripts
      // (examples_deepspeed/) mostly do not export it (3 of 75 at f4157bea), and its tree of 2023-07-01
      // (f01c9e6e) names the variable nowhere: 1 is the Megatron-LM convention the stack inherited.
      return 1;
    case Launcher::kDeepSpeed:
    case Launcher::kDeepSpeedChat:
    case Launcher::kTorchrun:
      // None sets the variable (microsoft/DeepSpeed at 38327e07f, DeepSpeedExamples' DeepSpeed-Chat scripts
      // at 83757d9c: `deepspeed main.py`, PyTorch's torchrun): CUDA's default, 8 (CUDA C++ Programming
      // Guide, "CUDA Environment Variables": CUDA_DEVICE_MAX_CONNECTIONS 1 to 32, default 8).
      return 8;
  }
  return 8;
}

bool HasShardGroup(Strategy s) { return s == Strategy::kMics || s == Strategy::kFsdpHybridShard; }

}  // namespace zerosim::model
