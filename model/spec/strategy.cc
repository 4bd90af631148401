#include "model/spec/strategy.h"

#include <array>

#include "model/enum_names.h"

namespace zerosim::model {
namespace {

using B = StrategyTraits::Builder;
constexpr ShardOver kNone = ShardOver::kNone, kData = ShardOver::kDataParallel,
                    kGroup = ShardOver::kShardGroup;

// One row per Strategy, in its order. The sharding of each state: DeepSpeed's stages (stage_1_and_2.py,
// stage3.py: 1 the optimizer states, 2 and the gradients, 3 and the parameters; mics.py over the shard
// group); FSDP's sharding strategies (fsdp/api.py ShardingStrategy: FULL_SHARD and SHARD_GRAD_OP shard all
// three, the latter keeping the parameters unsharded between forward and backward; NO_SHARD none;
// HYBRID_SHARD over the shard group; FSDP2's fully_shard all three).
constexpr std::array<StrategyTraits, kNumStrategies> kTraits = {{
    {"zero1", "ZeRO-1", Framework::kDeepSpeed, 1, kNone, kNone, kData, nullptr, B::kZero12},
    {"zero2", "ZeRO-2", Framework::kDeepSpeed, 2, kNone, kData, kData, nullptr, B::kZero12},
    {"zero3", "ZeRO-3", Framework::kDeepSpeed, 3, kData, kData, kData, nullptr, B::kStage3},
    {"mics", "MiCS", Framework::kDeepSpeed, 3, kGroup, kGroup, kGroup, "mics_shard_size", B::kStage3},
    {"fsdp_full_shard", "FULL_SHARD", Framework::kFsdp, 0, kData, kData, kData, nullptr, B::kFsdp},
    {"fsdp_shard_grad_op", "SHARD_GRAD_OP", Framework::kFsdp, 0, kData, kData, kData, nullptr, B::kFsdp},
    {"fsdp_no_shard", "NO_SHARD", Framework::kFsdp, 0, kNone, kNone, kNone, nullptr, B::kFsdp},
    {"fsdp_hybrid_shard", "HYBRID", Framework::kFsdp, 0, kGroup, kGroup, kGroup, "hsdp_shard_size", B::kFsdp},
    {"fsdp2", "FSDP2", Framework::kFsdp, 0, kData, kData, kData, nullptr, B::kFsdp},
}};

}  // namespace

const StrategyTraits& TraitsOf(Strategy s) { return kTraits[static_cast<size_t>(s)]; }

const char* StrategyName(Strategy s) { return TraitsOf(s).name; }

std::optional<Strategy> ParseStrategy(std::string_view name) {
  for (size_t i = 0; i < kTraits.size(); ++i) {
    if (name == kTraits[i].name) return static_cast<Strategy>(i);
  }
  return std::nullopt;
}

const char* StrategyLabel(Strategy s) { return TraitsOf(s).label; }

const char* StrategyNames() {
  return "zero1, zero2, zero3, mics, fsdp_full_shard, fsdp_shard_grad_op, fsdp_no_shard, fsdp_hybrid_shard, "
         "fsdp2";
}

Strategy DeepSpeedStrategyOfStage(int stage, bool mics) {
  if (stage == 1) return Strategy::kZero1;
  if (stage == 2) return Strategy::kZero2;
  return mics ? Strategy::kMics : Strategy::kZero3;
}

const char* FrameworkName(Framework f) { return f == Framework::kFsdp ? "fsdp" : "deepspeed"; }

std::optional<Framework> ParseFramework(std::string_view name) {
  if (name == "deepspeed") return Framework::kDeepSpeed;
  if (name == "fsdp") return Framework::kFsdp;
  return std::nullopt;
}

bool IsFsdp(Strategy s) { return TraitsOf(s).framework == Framework::kFsdp; }

Framework FrameworkOf(Strategy s) { return TraitsOf(s).framework; }

// Launcher's order.
constexpr std::array<const char*, 4> kLauncherNames = {"megatron-deepspeed", "deepspeed", "deepspeed-chat",
                                                       "torchrun"};

const char* LauncherName(Launcher l) { return NameOf(kLauncherNames, l); }

std::optional<Launcher> ParseLauncher(std::string_view name) {
  return ValueNamed<Launcher>(kLauncherNames, name);
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

bool HasShardGroup(Strategy s) { return TraitsOf(s).shard_size_key != nullptr; }

}  // namespace zerosim::model
