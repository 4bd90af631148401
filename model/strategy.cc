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

bool HasShardGroup(Strategy s) { return s == Strategy::kMics || s == Strategy::kFsdpHybridShard; }

}  // namespace zerosim::model
