#include "model/io/rlhf_loader.h"

#include <fmt/format.h>

#include "model/io/hf_config.h"
#include "model/io/loaders.h"

namespace zerosim::io {
namespace {

// A model TOML or `hf:config.json`, relative to the scenario.
std::optional<model::ModelSpec> ReadModel(TableReader* t, const FileSource& fs, const std::string& path,
                                          const std::string& key, const model::ModelSpec& actor,
                                          Status* status) {
  const std::string rel = t->FileName(key);
  if (!status->ok()) return std::nullopt;
  const bool hf = rel.rfind(kHfModelPrefix, 0) == 0;
  StatusOr<ModelFile> m =
      hf ? LoadHfConfig(fs, ResolvePath(path, rel.substr(3))) : LoadModel(fs, ResolvePath(path, rel));
  if (!m.ok()) {
    t->Fail(key, m.status().message());
    return std::nullopt;
  }
  model::ModelSpec spec = m->model;
  spec.dtype = actor.dtype;
  spec.attention = actor.attention;
  spec.seq_len = actor.seq_len;
  return spec;
}

}  // namespace

std::optional<model::RlhfSpec> ReadRlhf(TableReader* root, const FileSource& fs, const std::string& path,
                                        const model::ModelSpec& actor, Status* status) {
  if (!root->Has("rlhf")) {
    root->MarkKnown("rlhf");
    return std::nullopt;
  }
  TableReader t = root->Table("rlhf");
  model::RlhfSpec r;
  std::optional<model::ModelSpec> critic = ReadModel(&t, fs, path, "critic_model", actor, status);
  if (critic) r.critic = *critic;
  r.reward = r.critic;
  if (t.Has("reward_model")) {
    if (std::optional<model::ModelSpec> m = ReadModel(&t, fs, path, "reward_model", actor, status))
      r.reward = *m;
  }
  r.reference = actor;
  if (t.Has("reference_model")) {
    if (std::optional<model::ModelSpec> m = ReadModel(&t, fs, path, "reference_model", actor, status))
      r.reference = *m;
  }
  r.prompt_len = static_cast<int>(t.IntOr("prompt_len", r.prompt_len, 1, 1 << 20));
  r.answer_len = static_cast<int>(t.IntOr("answer_len", r.answer_len, 1, 1 << 20));
  r.generation_batch_per_gpu =
      static_cast<int>(t.IntOr("generation_batch_per_gpu", r.generation_batch_per_gpu, 1, 1 << 16));
  r.training_batch_per_gpu =
      static_cast<int>(t.IntOr("training_batch_per_gpu", r.training_batch_per_gpu, 1, 1 << 16));
  r.ppo_epochs = static_cast<int>(t.IntOr("ppo_epochs", r.ppo_epochs, 1, 1000));
  r.actor_lora_dim = static_cast<int>(t.IntOr("actor_lora_dim", r.actor_lora_dim, 0, 1 << 16));
  r.critic_lora_dim = static_cast<int>(t.IntOr("critic_lora_dim", r.critic_lora_dim, 0, 1 << 16));
  // --actor_lora_module_name / --critic_lora_module_name: DeepSpeed-Chat adapts every nn.Linear whose name
  // contains it; "decoder.layers." (OPT, the default) and "layers." (Llama) both select every linear layer of
  // the transformer blocks, which is what ZeroSim models.
  for (const char* key : {"lora_module_name"}) {
    if (std::optional<std::string> name = t.OptionalString(key)) {
      if (*name != "decoder.layers." && *name != "layers." && status->ok()) {
        t.Fail(key, fmt::format("\"{}\": ZeroSim models adapters on every linear layer of the blocks "
                                "(\"decoder.layers.\" or \"layers.\")",
                                *name));
      }
    }
  }
  r.critic_gradient_checkpointing =
      t.BoolOr("critic_gradient_checkpointing", r.critic_gradient_checkpointing);
  // [rlhf] hybrid_engine / pin_parameters: --enable_hybrid_engine and (not) --unpin_actor_parameters.
  const bool hybrid = t.BoolOr("hybrid_engine", false);
  const bool pin = t.BoolOr("pin_parameters", true);
  if (!hybrid && t.Has("pin_parameters") && status->ok()) {
    t.Fail("pin_parameters", "pin_parameters is a hybrid-engine setting: set hybrid_engine = true");
  }
  r.generation_gather = !hybrid ? model::GenerationGather::kZeroHooks
                        : pin   ? model::GenerationGather::kPinned
                                : model::GenerationGather::kPerLayerBlocking;
  r.inference_tp_size = static_cast<int>(t.IntOr("inference_tp_size", r.inference_tp_size, 1, 1024));
  if (r.inference_tp_size != 1 && status->ok()) {
    t.Fail("inference_tp_size",
           "the hybrid engine's inference tensor parallelism is not modelled yet (only 1)");
  }
  r.decode_samples = static_cast<int>(t.IntOr("decode_samples", r.decode_samples, 1, 4096));
  r.sft_seq_len = static_cast<int>(t.IntOr("sft_seq_len", r.sft_seq_len, 1, 1 << 20));
  r.sft_batch_per_gpu = static_cast<int>(t.IntOr("sft_batch_per_gpu", r.sft_batch_per_gpu, 1, 1 << 16));
  // The lengths against the actor's positions are model::CheckRlhf's (model::Validate), judged on the
  // model the scenario runs (after `--set model=`).
  t.Finish();
  return r;
}

}  // namespace zerosim::io
