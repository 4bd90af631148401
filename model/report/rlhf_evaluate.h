// Evaluating one RLHF variant: the phases of DeepSpeed-Chat's step 3 (generation, experience, training) and
// its step 1 (sft) as schedules (rlhf_schedule.h), each timed by the engine the caller supplies (engine.h: the
// analytic evaluator or the SimGrid replay), assembled into a VariantReport with its `phases`.
//
// Which DeepSpeed configuration each model runs (DeepSpeed-Chat dschat/rlhf/rlhf_engine.py,
// dschat/utils/ds_utils.py):
//   actor      the variant's ZeRO config (get_train_ds_config: MixZ++, i.e.
//   zero_quantized_nontrainable_weights
//              and hpZ over the node, is passed to the actor only); LoRA rank actor_lora_dim
//   reference  get_eval_ds_config: ZeRO-3, no ZeRO++; the actor's shape, no LoRA
//   critic     get_train_ds_config without MixZ++: ZeRO-3, no ZeRO++; LoRA rank critic_lora_dim
//   reward     get_eval_ds_config: ZeRO-3, no ZeRO++
// The three other models take the variant's stage-3 knobs (prefetch, buckets, persistence), which
// DeepSpeed-Chat sets alike for all (ds_utils.py).
#pragma once

#include <string>

#include "model/analytic/analytic.h"
#include "model/placement/traffic.h"
#include "model/report/engine.h"
#include "model/report/report.h"
#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/configuration.h"
#include "model/spec/model_spec.h"
#include "model/spec/rlhf_spec.h"
#include "model/spec/zero_config.h"
#include "model/status.h"

namespace zerosim::model {

// KV cache bytes per GPU: 2 (K and V) * layers * kv_heads * head_dim * element bytes * tokens cached, tokens
// = sequences * (prompt + answer) (HF's past_key_values at the end of generate).
double KvCacheBytes(const ModelSpec& m, double sequences, double positions);

// The ZeRO config DeepSpeed-Chat gives the reference, critic and reward models: `actor`'s stage-3 knobs with
// the ZeRO++ switches off.
ZeroConfig PlainZero3(const ZeroConfig& actor);

// Evaluates the variant (the actor v.model with v.zero) under its RLHF phases *v.rlhf (an error without
// them). Errors: an engine's failure, or a phase that breaks an invariant (finite non-negative numbers; each
// pass at least its compute and its link-time bound; bytes conserved between the schedule and the engine).
StatusOr<VariantReport> EvaluateRlhfVariant(const std::string& name, const Configuration& v, Engine& engine);

}  // namespace zerosim::model
