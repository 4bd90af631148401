// RlhfSpec: one DeepSpeed-Chat step-3 (PPO) iteration and its step-1 (SFT) run, as a scenario's `[rlhf]`
// section describes them. Defaults are DeepSpeed-Chat's (DeepSpeedExamples applications/DeepSpeed-Chat,
// training/step3_rlhf_finetuning/main.py arguments and dschat/utils/ds_utils.py), each cited at its field.
//
// What one step-3 iteration runs (dschat/rlhf/ppo_trainer.py):
//   generation   actor.module.generate(prompts, max_length = prompt + answer, synced_gpus = ZeRO-3): a
//   prefill over
//                the prompt, then one forward per generated token (HF generate with the KV cache)
//   experience   generate_experience: forward passes over prompt + answer of the actor (log-probs), the
//   reference
//                (log-probs), the reward model (score) and the critic (values)
//   training     train_rlhf, ppo_epochs times: actor forward/backward/step, then critic forward/backward/step
// Step 1 (SFT) is a plain training iteration of the actor (with LoRA when lora_dim > 0).
#pragma once

#include "model/spec/model_spec.h"

namespace zerosim::model {

// How the actor's weights reach the generation (DeepSpeed deepspeed/runtime/hybrid_engine.py generate, eval).
enum class GenerationGather {
  // No hybrid engine (--enable_hybrid_engine off): HF generate runs under the ZeRO-3 hooks, so every forward
  // (the
  // prefill and each token) gathers each submodule through the parameter coordinator with its prefetch;
  // frozen
  // weights come from the hpZ secondary partition (intra-node) and, with MixZ++, as int8.
  kZeroHooks,
  // Hybrid engine, pin_parameters = true (DeepSpeed's default): GatheredParameters over every parameter once
  // per
  // generate call (one all-gather per parameter on the data-parallel group, from the primary partition:
  // partition_parameters.py _allgather_params_coalesced uses ds_tensor and ds_process_group), held for all
  // tokens.
  kPinned,
  // Hybrid engine, pin_parameters = false (--unpin_actor_parameters): _zero3_forward wraps each transformer
  // layer in GatheredParameters, a blocking gather of that layer per forward (per token), from the primary
  // partition on the data-parallel group (no prefetch, no hpZ).
  kPerLayerBlocking,
};
const char* GenerationGatherName(GenerationGather g);

struct RlhfSpec {
  ModelSpec critic;  // --critic_model_name_or_path (seq_len set per phase)
  ModelSpec
      reference;  // a copy of the actor's pre-trained weights (rlhf_engine.py _init_ref): the actor's shape
  ModelSpec reward;  // the step-2 reward model: the critic's shape (rlhf_engine.py _init_reward)

  int prompt_len = 256;  // --max_prompt_seq_len (main.py default 256)
  int answer_len = 256;  // --max_answer_seq_len (main.py default 256): generate runs to max_length
  int generation_batch_per_gpu = 16;           // --per_device_generation_batch_size (main.py default 16)
  int training_batch_per_gpu = 16;             // --per_device_training_batch_size (main.py default 16)
  int ppo_epochs = 1;                          // --ppo_epochs (main.py default 1)
  int actor_lora_dim = 0;                      // --actor_lora_dim (main.py default 0: no LoRA)
  int critic_lora_dim = 0;                     // --critic_lora_dim (main.py default 0)
  bool critic_gradient_checkpointing = false;  // --critic_gradient_checkpointing (default off)

  GenerationGather generation_gather = GenerationGather::kZeroHooks;
  int inference_tp_size = 1;  // hybrid_engine.inference_tp_size (DeepSpeed default 1; only 1 is modelled)
  // ZeroSim: decode steps are timed at this many context lengths (the midpoints of equal spans of the
  // answer), each standing for its span's tokens. A step's time is affine in its context (the KV cache read),
  // so the midpoint rule is exact for it; the count only bounds how finely the max of compute and
  // communication is sampled.
  int decode_samples = 4;

  // Step 1 (SFT, training/step1_supervised_finetuning/main.py): --max_seq_len (default 512) and
  // --per_device_train_batch_size (default 16).
  int sft_seq_len = 512;
  int sft_batch_per_gpu = 16;

  bool operator==(const RlhfSpec&) const = default;
};

}  // namespace zerosim::model
