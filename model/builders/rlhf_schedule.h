// The schedules of DeepSpeed-Chat's RLHF phases (rlhf_spec.h), built from the same machinery as a training
// iteration (module_graph, fetch_coordinator, gradient_reducer, op_emitter), so that both evaluators time
// them unchanged:
//   - a forward-only pass (generation prefill, one decode step, an experience forward), its gathers issued by
//     the ZeRO-3 parameter coordinator, per layer and blocking (the hybrid engine unpinned), or not at all
//     (the hybrid engine's pinned weights, gathered once by BuildFullGatherSchedule);
//   - a LoRA training iteration: frozen base weights gathered in the forward and the backward (for the input
//     gradients), only the adapters' gradients reduced and stepped.
#pragma once

#include <utility>
#include <vector>

#include "model/placement/placement.h"
#include "model/schedule/schedule.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// DeepSpeed-Chat's LoRA (dschat/utils/module/lora.py LinearLayer_LoRA, with --only_optimize_lora): every
// nn.Linear under "decoder.layers." keeps its weight and bias frozen and gains lora_right_weight (in x r) and
// lora_left_weight (r x out); y = x W^T + b + (x R) L * scaling. HF models have separate q, k, v (and gate,
// up) projections, so the fused QKV module carries three adapters (h->h, h->kv, h->kv) and a gated MLP's
// fused up-projection two (h->f each). Each adapter adds two forward GEMMs [t x r] = [t x in][in x r] and [t
// x out] = [t x r][r x out].
struct LoraGraph {
  ModuleGraph
      graph;  // the model's graph; with r > 0 every base parameter is frozen and the adapters trainable
  // Per module: its adapters as (in, out) feature pairs (empty for modules without one).
  std::vector<std::vector<std::pair<double, double>>> adapters;
  double lora_elements = 0;  // trainable adapter elements of the whole model
};
// `tokens` = sequences * m.seq_len; r = 0 gives the plain graph with nothing frozen.
LoraGraph BuildLoraGraph(const ModelSpec& m, double tokens, int r);

// Adapter elements of one transformer block: r * sum over its adapted linears of (in + out).
double LoraParamsPerLayer(const ModelSpec& m, int r);

// How a forward-only pass gets its weights.
enum class ForwardGather {
  kCoordinator,       // ZeRO-3 hooks: fetch_sub_module per submodule, with prefetch (fetch_coordinator.h)
  kPerLayerBlocking,  // GatheredParameters per transformer layer (and per other module): blocking, primary
                      // partition
  kNone,              // already gathered (the hybrid engine's pinned parameters)
};

// What a forward-only pass computes: `sequences` sequences of `new_tokens` tokens each, attending to
// `context` positions (prefill and experience: new_tokens = context = the sequence; a decode step: one new
// token over the KV cache of `context` positions). `generation`: HF generate's pass (the logits feed
// sampling, no loss); `value_head`: the critic's or reward model's forward_value (a v_head of h -> 1 instead
// of the logit layer).
struct ForwardShape {
  int sequences = 1;
  int new_tokens = 1;
  int context = 1;
  bool generation = false;
  bool value_head = false;
};

// A forward-only pass of `m` (LoRA rank r), ZeRO-3 / ZeRO++ as `z` says. A decode step's attention reads the
// KV cache: two batched GEMMs per layer, [q/kv x context] = [q/kv x d][d x context] per (sequence, kv head),
// and back, timed by the roofline, so its HBM time covers 2 * context * kv_heads * d * 2 bytes per sequence
// per layer.
Schedule BuildForwardSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, int r,
                              const ForwardShape& shape, ForwardGather gather);

// GatheredParameters over every parameter (the hybrid engine's pinned generate): one all-gather per parameter
// on the global group from the primary partition (int8 codes and fp32 scales for MixZ++'s stored-quantized
// frozen weights, then dequantized), the host blocking until all are done.
Schedule BuildFullGatherSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, int r);

// One training iteration of `m` with LoRA rank r (r = 0: the plain BuildSchedule iteration) over
// micro-batches of `micro_batch` sequences of m.seq_len tokens. Frozen modules' backward computes only the
// input gradient (one GEMM per base GEMM) and the adapters' four small GEMMs; the frozen embeddings run no
// backward (autograd needs no gradient there); the optimizer steps the adapters' partition only.
Schedule BuildLoraTrainingSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, int r,
                                   int micro_batch);

}  // namespace zerosim::model
