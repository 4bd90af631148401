// Inputs for the strategy tests (tests/model/strategy_*_test.cc, tests/sim/strategy_bytes_test.cc): a GPT
// whose every parameter dimension divides the world sizes used, so that no strategy pads (DeepSpeed's
// per-parameter partitions, FSDP's FlatParameter and FSDP2's dim-0 chunks all divide evenly) and the closed
// forms hold exactly; the cluster shapes; and the parameter counts written out.
#pragma once

#include <vector>

#include "model/spec/strategy.h"
#include "model/spec/zero_config.h"
#include "test_util.h"

namespace zerosim::testing {

// GPT, `layers` x `hidden` (16 heads), vocab 50304 = 2^7 x 393, untied head, 2048 positions, seq 2048.
inline model::ModelSpec EvenGpt(int layers = 2, int hidden = 1024) {
  model::ModelSpec m = Gpt(layers, hidden, 16);
  m.vocab = 50304;
  m.tied_embeddings = false;
  return m;
}

// Psi: blocks (Megatron's 12h^2 + 13h), word embedding and untied head (V h each), positions (S h), final
// LayerNorm (2h).
inline double EvenGptParams(const model::ModelSpec& m) {
  const double h = m.hidden, v = m.vocab, s = m.max_position_embeddings;
  return m.layers * (12 * h * h + 13 * h) + 2 * v * h + s * h + 2 * h;
}
// Parameters outside the blocks: FSDP's root unit.
inline double EvenGptRootParams(const model::ModelSpec& m) {
  const double h = m.hidden;
  return 2.0 * m.vocab * h + m.max_position_embeddings * h + 2 * h;
}

// A configuration of `strategy` under its own framework, with every gather explicit (no persistent
// parameters, no prefetch, no reuse across modules: each use of a parameter gathers it, as the closed forms
// count) and no activation checkpointing (no recompute gathers).
inline model::ZeroConfig StrategyConfig(model::Strategy strategy) {
  model::ZeroConfig z;
  z.strategy = strategy;
  z.framework = model::FrameworkOf(strategy);
  z.stage3_param_persistence_threshold = 0;
  z.stage3_max_reuse_distance = 0;
  z.stage3_prefetch_bucket_size = 0;  // a prefetch walk that sees a later use keeps the parameter gathered
  z.activation_checkpointing = false;
  z.overlap_comm = !(strategy == model::Strategy::kZero1 || strategy == model::Strategy::kZero2);
  return z;
}

inline std::vector<model::Strategy> AllStrategies() {
  std::vector<model::Strategy> all;
  for (int i = 0; i < model::kNumStrategies; ++i) all.push_back(static_cast<model::Strategy>(i));
  return all;
}

// Three cluster shapes (K nodes x N GPUs): 4 x 8, 2 x 16 and 8 x 8.
inline std::vector<model::ClusterSpec> StrategyClusters() {
  return {PaperCluster(1, 4, 8), PaperCluster(2, 2, 16), PaperCluster(4, 8, 8)};
}

}  // namespace zerosim::testing
