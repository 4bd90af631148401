#include "model/spec/feasibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/spec/problem_util.h"

namespace zerosim::model {
namespace {

// Leaf modules per transformer block and around the blocks (model/schedule/module_graph.h: 7 per block; word
// and position embeddings, final LayerNorm, logit layer).
constexpr double kModulesPerBlock = 7;
constexpr double kModulesOutsideBlocks = 4;
// Module passes per micro-step: forward, backward, and the recompute of activation checkpointing.
constexpr double kPassesPerMicroStep = 3;
// Ops per module pass, an upper bound over the variants (fetch: host hook, all-gather, quantize and
// dequantize kernels, waits; compute; release; backward: gradient copy, bucket reduction, qgZ's kernels).
// tests/model/feasibility_test.cc checks it bounds BuildSchedule over ZeRO-3 and every ZeRO++ switch.
constexpr double kOpsPerModulePass = 16;
// Memory per op while the schedule is built: the Op itself and its CompactOp (model/schedule/schedule.h).
constexpr double kBytesPerOp = 232;

using checks::Add;
using checks::Range;

}  // namespace

std::vector<Problem> CheckModel(const ModelSpec& m) {
  std::vector<Problem> out;
  Range(&out, "layers", m.layers, 1, kMaxLayers);
  Range(&out, "hidden", m.hidden, 1, kMaxWidth);
  Range(&out, "heads", m.heads, 1, kMaxWidth);
  Range(&out, "ffn_hidden", m.ffn_hidden, 1, kMaxWidth);
  Range(&out, "vocab", m.vocab, 1, kMaxVocab);
  Range(&out, "max_position_embeddings", m.max_position_embeddings, 1, kMaxSequence);
  Range(&out, "head_dim", m.head_dim, 0, kMaxWidth);
  Range(&out, "sliding_window", m.sliding_window, 0, kMaxSequence);
  Range(&out, "full_attention_interval", m.full_attention_interval, 0, kMaxLayers);
  if (m.head_dim == 0 && m.hidden >= 1 && m.heads >= 1 && m.hidden % m.heads != 0) {
    Add(&out, "heads", fmt::format("hidden size {} is not divisible by {} heads", m.hidden, m.heads));
  }
  // Mixture of experts (model_spec.h): top-k among the experts, widths within the limits, a dense prefix
  // shorter than the model.
  if (m.experts != 0) {
    Range(&out, "experts", m.experts, 1, kMaxWidth);
    if (m.experts_per_token < 1 || m.experts_per_token > m.experts) {
      Add(&out, "experts_per_token",
          fmt::format("top-k = {} must be between 1 and the {} experts", m.experts_per_token, m.experts));
    }
    Range(&out, "moe_ffn_hidden", m.moe_ffn_hidden, 1, kMaxWidth);
    Range(&out, "shared_expert_ffn", m.shared_expert_ffn, 0, kMaxWidth);
    Range(&out, "first_dense_layers", m.first_dense_layers, 0, std::max(0, m.layers - 1));
  }
  return out;
}

double EstimateScheduleOps(const ModelSpec& m, const ZeroConfig& z) {
  // An MoE block has the router and the routed experts' two modules in place of the MLP's two, and the shared
  // experts' two when it has them (module_graph.cc AddMoeMlp).
  const double moe_extra = (m.shared_expert_ffn > 0 ? 3.0 : 1.0) * MoeLayers(m);
  const double modules = kModulesPerBlock * m.layers + moe_extra + kModulesOutsideBlocks;
  return static_cast<double>(z.gradient_accumulation_steps) * kPassesPerMicroStep * modules *
         kOpsPerModulePass;
}

std::vector<Problem> CheckZero(const ZeroConfig& z, const ClusterSpec& c) {
  std::vector<Problem> out;
  const int hpz = z.zero_hpz_partition_size;
  if (hpz < 1) {
    Add(&out, "zero_hpz_partition_size", fmt::format("must be at least 1, got {}", hpz));
  } else if (c.gpus_per_node >= 1 && c.gpus_per_node % hpz != 0) {
    Add(&out, "zero_hpz_partition_size",
        fmt::format("hpZ partition size {} does not divide the {} GPUs per node of '{}'", hpz,
                    c.gpus_per_node, c.name));
  }
  // The ZeRO++ switches exist in DeepSpeed's stage 3 only (MiCS replaces its all-gather).
  if (z.strategy != Strategy::kZero3) {
    const char* key = z.zero_quantized_weights        ? "zero_quantized_weights"
                      : z.zero_hpz_partition_size > 1 ? "zero_hpz_partition_size"
                      : z.zero_quantized_gradients    ? "zero_quantized_gradients"
                                                      : nullptr;
    if (key != nullptr) {
      Add(&out, key,
          fmt::format("ZeRO++ ({}) applies to strategy \"zero3\" only, not \"{}\"", key,
                      StrategyName(z.strategy)));
    }
  }
  // Megatron-Core's DDP overlap options exist for its distributed optimizer only (zero_config.h).
  if (z.strategy != Strategy::kZero1 && (z.overlap_grad_reduce || z.overlap_param_gather)) {
    Add(&out, z.overlap_grad_reduce ? "overlap_grad_reduce" : "overlap_param_gather",
        fmt::format("Megatron-Core's DDP overlap options apply to its distributed optimizer (strategy \"zero1\"), "
                    "not \"{}\"",
                    StrategyName(z.strategy)));
  } else if (z.overlap_param_gather && !z.overlap_grad_reduce) {
    // megatron/training/arguments.py: "--overlap-grad-reduce should be turned on when using
    // --overlap-param-gather".
    Add(&out, "overlap_param_gather", "Megatron-Core requires overlap_grad_reduce with overlap_param_gather");
  }
  if (z.runtime.launcher && !LauncherRuns(*z.runtime.launcher, FrameworkOf(z.strategy))) {
    Add(&out, "strategy",
        fmt::format("strategy \"{}\" runs under framework \"{}\", which launcher \"{}\" does not run "
                    "([runtime] launcher)",
                    StrategyName(z.strategy), FrameworkName(FrameworkOf(z.strategy)),
                    LauncherName(*z.runtime.launcher)));
  }
  if (FrameworkOf(z.strategy) != z.framework) {
    Add(&out, "strategy",
        fmt::format("strategy \"{}\" runs under framework \"{}\", not \"{}\" ([runtime] framework)",
                    StrategyName(z.strategy), FrameworkName(FrameworkOf(z.strategy)),
                    FrameworkName(z.framework)));
  }
  if (HasShardGroup(z.strategy) && c.gpus_per_node >= 1 && c.total_gpus() >= 1) {
    const int s = z.shard_group_size() > 0 ? z.shard_group_size() : c.gpus_per_node;
    const char* key = TraitsOf(z.strategy).shard_size_key;
    const bool within = s <= c.gpus_per_node && c.gpus_per_node % s == 0;
    const bool across = s > c.gpus_per_node && s % c.gpus_per_node == 0 && c.total_gpus() % s == 0;
    if (!within && !across) {
      Add(&out, key,
          fmt::format("a shard group of {} ranks must divide the {} GPUs per node or be a multiple of "
                      "them that divides the {} GPUs of '{}'",
                      s, c.gpus_per_node, c.total_gpus(), c.name));
    }
  }
  if (z.max_ongoing_fetch_events < 0 || z.max_param_reduce_events < 0) {
    Add(&out, z.max_ongoing_fetch_events < 0 ? "max_ongoing_fetch_events" : "max_param_reduce_events",
        "must be at least 0");
  }
  for (Problem& p : CheckPrecision(z, c)) out.push_back(std::move(p));
  return out;
}

std::vector<Problem> CheckPrecision(const ZeroConfig& z, const ClusterSpec& c) {
  std::vector<Problem> out;
  const Precision& p = z.precision;
  if (p.fp8_gemms && !(c.gpu.fp8_peak_flops > 0)) {
    Add(&out, "fp8_gemms",
        fmt::format("the {} of '{}' has no FP8 tensor cores (its topology gives no [gpu] fp8_peak_flops)",
                    c.gpu.name, c.name));
  }
  if (p.fp8_weight_all_gather && !p.fp8_gemms) {
    Add(&out, "fp8_weight_all_gather",
        "needs fp8_gemms: the gathered FP8 weights feed Float8Linear's GEMMs (torchao)");
  }
  if (p.fp8_weight_all_gather && z.zero_quantized_weights) {
    Add(&out, "fp8_weight_all_gather",
        "give zero_quantized_weights (qwZ's int8) or the FP8 weight all-gather, not both");
  }
  // The FSDP builders (fsdp_builder.cc) model the reduce dtype (MixedPrecision / MixedPrecisionPolicy
  // reduce_dtype) and, for FSDP2, torchao's FP8 all-gather; they keep FSDP's own fp32 states, so DeepSpeed's
  // state formats are refused there rather than silently ignored (FP8 GEMMs apply to every strategy).
  if (z.framework == Framework::kFsdp) {
    const char* key = p.gradient_accumulation_dtype != FloatFormat::kModel ? "grad_accum_dtype"
                      : p.bf16_master_weights_and_grads                    ? "bf16_master_weights_and_grads"
                                                                           : nullptr;
    if (key != nullptr) {
      Add(&out, key,
          fmt::format("{} is a DeepSpeed format, not one of \"{}\" (framework fsdp keeps fp32 sharded "
                      "parameters and gradients)",
                      key, StrategyName(z.strategy)));
    }
    // torchao's FP8 all-gather hooks into FSDP2's per-parameter all-gather (fsdp_pre_all_gather /
    // fsdp_post_all_gather on the weight's tensor subclass, torchao/float8/fsdp_utils.py); FSDP1 flattens
    // every unit's parameters into one FlatParameter and gathers it in the param dtype, with no such hook.
    if (p.fp8_weight_all_gather && z.strategy != Strategy::kFsdp2) {
      Add(&out, "fp8_weight_all_gather",
          fmt::format("torchao's FP8 all-gather extends FSDP2 (fully_shard) only, not \"{}\" (FSDP1's "
                      "FlatParameter has no all-gather hook)",
                      StrategyName(z.strategy)));
    }
  }
  if (p.bf16_optimizer_states && !p.bf16_master_weights_and_grads) {
    Add(&out, "bf16_optimizer_states", "needs bf16_master_weights_and_grads (DeepSpeed asserts the same)");
  }
  return out;
}

std::vector<Problem> CheckTraining(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c) {
  std::vector<Problem> out;
  Range(&out, "seq_len", m.seq_len, 1, kMaxSequence);
  Range(&out, "train_micro_batch_size_per_gpu", z.train_micro_batch_size_per_gpu, 1, kMaxMicroBatch);
  Range(&out, "gradient_accumulation_steps", z.gradient_accumulation_steps, 1, kMaxGradientAccumulation);
  for (Problem& p : CheckZero(z, c)) out.push_back(std::move(p));
  if (m.seq_len > m.max_position_embeddings) {
    Add(&out, "seq_len",
        fmt::format("sequence length {} exceeds the model's {} position embeddings", m.seq_len,
                    m.max_position_embeddings));
  }
  if (out.empty() && m.layers >= 1) {
    const double ops = EstimateScheduleOps(m, z);
    if (ops > kMaxScheduleOps) {
      Add(&out, z.gradient_accumulation_steps > 1 ? "gradient_accumulation_steps" : "layers",
          fmt::format("{} layers x {} gradient accumulation steps make a schedule of about {:.2g} ops (about "
                      "{:.0f} GB "
                      "to build); ZeroSim builds at most {:.0e} ops",
                      m.layers, z.gradient_accumulation_steps, ops, ops * kBytesPerOp / 1e9,
                      kMaxScheduleOps));
    }
  }
  return out;
}

std::vector<Problem> CheckLayout(const ParallelLayout& l, const ModelSpec& m, const ZeroConfig& z,
                                 const ClusterSpec& c) {
  std::vector<Problem> out;
  Range(&out, "tensor", l.tensor, 1, kMaxGpus);
  Range(&out, "pipeline", l.pipeline, 1, kMaxLayers);
  Range(&out, "virtual_stages", l.virtual_stages, 1, kMaxLayers);
  if (!out.empty()) return out;  // the checks below divide by these
  const int64_t t = l.tensor;
  const int64_t p = l.pipeline;
  const int64_t v = l.virtual_stages;
  const int64_t gpus = c.total_gpus();
  const int64_t per_node = c.gpus_per_node;
  // t p ranks hold one copy of the model; the rest is data parallel: Megatron-LM's
  // megatron/training/arguments.py validate_args asserts world_size % (tensor * pipeline * context) == 0
  // ("world size ... is not divisible by tensor parallel size ... times pipeline parallel size ... times
  // context parallel size"; ZeroSim's context size is 1).
  if (gpus % (t * p) != 0) {
    Add(&out, t > 1 ? "tensor" : "pipeline",
        fmt::format("tensor {} x pipeline {} = {} ranks per model copy do not divide the {} GPUs of '{}' "
                    "(the data-parallel size is GPUs / (tensor x pipeline))",
                    t, p, t * p, gpus, c.name));
  }
  // Heads, key/value groups and the MLP's columns split over t: Megatron's ColumnParallelLinear and
  // attention divide them (megatron/core/transformer/attention.py:350-365 and tensor_parallel/layers.py,
  // megatron/core/utils.py divide -> ensure_divisibility asserts).
  // The model is named in the message: its shape may come from a file other than the scenario (a variant's
  // model, --hf-config; an unnamed Hugging Face config is named by its path).
  if (m.heads % t != 0) {
    Add(&out, "tensor",
        fmt::format("tensor {} does not divide the {} attention heads of model '{}'", t, m.heads, m.name));
  } else if (KvHeads(m) % t != 0) {
    Add(&out, "tensor",
        fmt::format("tensor {} does not divide the {} key/value heads (query groups) of model '{}'", t,
                    KvHeads(m), m.name));
  }
  if (m.ffn_hidden % t != 0) {
    Add(&out, "tensor",
        fmt::format("tensor {} does not divide the ffn_hidden {} of model '{}'", t, m.ffn_hidden, m.name));
  }
  // Sequence parallelism splits the sequence over t: megatron/core/tensor_parallel/mappings.py
  // _split_along_first_dim asserts "First dimension of the tensor should be divisible by tensor parallel
  // size"; torchtitan ParallelDims.seq_len_divisor.
  // Megatron-LM megatron/training/arguments.py: "Tensor parallel communication/GEMM overlap can happen only
  // when sequence parallelism is enabled"; with t = 1 there is nothing to overlap.
  if (l.overlap_p2p_comm && !(l.schedule == PipelineSchedule::kInterleaved1F1B && l.virtual_stages > 1)) {
    Add(&out, "overlap_p2p_comm",
        "overlap_p2p_comm applies to the interleaved schedule only (virtual_stages > 1; Megatron-LM's arguments.py "
        "turns it off otherwise)");
  }
  if (l.tp_comm_overlap && (t == 1 || !l.sequence_parallel)) {
    Add(&out, "tp_comm_overlap",
        t == 1 ? std::string("tp_comm_overlap overlaps tensor-parallel collectives: it needs tensor > 1")
               : std::string("tp_comm_overlap needs sequence_parallel = true (Megatron-Core's --tp-comm-overlap "
                             "requires --sequence-parallel)"));
  }
  // Sequence parallelism splits the norms' and dropouts' tokens over the tensor-parallel group: with t = 1 there
  // is no group and it changes nothing (Megatron-LM's arguments.py switches it off with "Disabling sequence
  // parallelism because tensor model parallelism is disabled"). Refused rather than ignored (issue 39).
  if (l.sequence_parallel && t == 1) {
    Add(&out, "sequence_parallel",
        "sequence_parallel splits activations over the tensor-parallel group: it needs tensor > 1 (with tensor "
        "1 it changes nothing; Megatron-LM turns it off)");
  } else if (l.sequence_parallel && m.seq_len % t != 0) {
    Add(&out, "sequence_parallel",
        fmt::format("sequence parallelism splits the {}-token sequence over tensor {}: it does not divide it",
                    m.seq_len, t));
  }
  // ZeroSim's rule (design sec. 1.5): a TP group inside a node, t | N; Megatron does not enforce it (only the
  // initialize_model_parallel docstring asks for it), but a group across nodes puts every block's collectives
  // on the NICs (Narayanan et al. 2021 sec. 3.2 takeaway 1, Fig. 13).
  if (t > per_node && !l.tensor_across_nodes) {
    Add(&out, "tensor",
        fmt::format("a tensor group of {} spans nodes of {} GPUs: set tensor_across_nodes = true to allow it",
                    t, per_node));
  } else if (t < per_node && per_node % t != 0) {
    Add(&out, "tensor",
        fmt::format("tensor {} does not divide the {} GPUs per node: its groups would straddle nodes", t,
                    per_node));
  } else if (t > per_node && t % per_node != 0) {
    Add(&out, "tensor",
        fmt::format("a tensor group of {} across nodes must be a multiple of the {} GPUs per node", t,
                    per_node));
  }
  // The chunks divide the layers (the embedding and the loss counted where the layout says so).
  for (Problem& problem : CheckPipelineSplit(l, m)) out.push_back(std::move(problem));
  // Interleaving needs a pipeline: Megatron-LM's megatron/core/parallel_state.py initialize_model_parallel
  // raises "pipeline-model-parallel size should be greater than 1 with interleaved schedule" for virtual
  // pipeline stages without pipeline parallelism (older releases required more than 2).
  if (v > 1 && p == 1) {
    Add(&out, "virtual_stages",
        fmt::format("virtual_stages {} interleaves pipeline stages: it needs pipeline > 1", v));
  }
  // The schedule agrees with the chunks: interleaved 1F1B is the schedule of v > 1
  // (schedules.py get_forward_backward_func picks forward_backward_pipelining_with_interleaving exactly
  // then).
  if ((l.schedule == PipelineSchedule::kInterleaved1F1B) != (v > 1)) {
    Add(&out, "schedule",
        fmt::format(
            "schedule \"{}\" with virtual_stages {}: interleaved_1f1b is the schedule of virtual_stages > 1, "
            "1f1b and gpipe that of virtual_stages = 1",
            PipelineScheduleName(l.schedule), v));
  }
  // Older Megatron's interleaved schedule required m % p == 0, m the micro-batches per iteration
  // (schedules.py forward_backward_pipelining_with_interleaving: "number of microbatches is not divisible by
  // pipeline-model-parallel-size when using interleaved schedule"; design sec. 6 decision 3). ZeroSim's m is
  // gradient_accumulation_steps.
  if (v > 1 && z.gradient_accumulation_steps % p != 0) {
    Add(&out, "gradient_accumulation_steps",
        fmt::format(
            "{} micro-batches per iteration are not a multiple of pipeline {}, as the interleaved schedule "
            "requires (Megatron)",
            z.gradient_accumulation_steps, p));
  }
  // DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3: deepspeed/runtime/pipe/engine.py:77 asserts
  // zero_optimization_stage() < ZeroStageEnum.gradients ("ZeRO-2 and ZeRO-3 are incompatible with pipeline
  // parallelism"); MiCS and ZeRO++ are stage 3.
  if (p > 1 && z.framework == Framework::kDeepSpeed && z.strategy != Strategy::kZero1) {
    Add(&out, "pipeline",
        fmt::format(
            "DeepSpeed's pipeline engine refuses ZeRO-2 and ZeRO-3 (pipe/engine.py: \"ZeRO-2 and ZeRO-3 are "
            "incompatible with pipeline parallelism\"): strategy \"{}\" with pipeline {}",
            StrategyName(z.strategy), p));
  }
  // hpZ and qgZ build their groups from world ranks, not the data-parallel group
  // (deepspeed/utils/groups.py _create_zero_param_parallel_group :650-678; comm/coalesced_collectives.py
  // all_to_all_quant_reduce :31ff): with t > 1 they would mix tensor-parallel shards (design sec. 3.3).
  if (t > 1 && (z.zero_hpz_partition_size > 1 || z.zero_quantized_gradients)) {
    const char* key = z.zero_hpz_partition_size > 1 ? "zero_hpz_partition_size" : "zero_quantized_gradients";
    Add(&out, key,
        fmt::format(
            "{} with tensor {}: DeepSpeed builds the hpZ/qgZ groups from world ranks (groups.py "
            "_create_zero_param_parallel_group, coalesced_collectives.py all_to_all_quant_reduce); with "
            "tensor > 1 they mix tensor-parallel shards",
            key, t));
  }
  // Each pipeline stage holds whole nodes (parallel_layout.h stages_fill_nodes): the data-parallel groups'
  // closed forms and the replay's symmetry assume it; stages that share a node are not modelled.
  if (p > 1 && gpus % (t * p) == 0) {
    if (!l.stages_fill_nodes(static_cast<int>(gpus), static_cast<int>(per_node))) {
      Add(&out, "pipeline",
          fmt::format(
              "a pipeline stage of tensor {} x data {} = {} ranks does not fill whole nodes of {} GPUs: "
              "stages that share a node are not modelled",
              t, gpus / (t * p), gpus / p, per_node));
    } else if (c.fabric.kind == FabricKind::kFatTree && c.fabric.nodes_per_leaf > 0 && c.nodes % p == 0) {
      // On a fat tree each stage's nodes fill whole leaves (and pods), or lie inside one: a stage is timed on
      // a fabric of its own nodes (model/report/pipeline_evaluate.h StageCluster, the sim engine's stage
      // platform), which leaves straddled by two stages would split (issue 39: the sim engine stopped with
      // "platform: 6 nodes do not fill groups of 4 nodes").
      const int64_t stage_nodes = c.nodes / p;
      const int64_t leaf = c.fabric.nodes_per_leaf;
      const int64_t pod = c.fabric.leaves_per_pod > 0 ? leaf * c.fabric.leaves_per_pod : 0;
      struct Level {
        int64_t nodes;
        const char* one;
        const char* many;
      };
      for (const Level& g : {Level{leaf, "leaf", "leaves"}, Level{pod, "pod", "pods"}}) {
        if (g.nodes <= 0 || stage_nodes % g.nodes == 0 || g.nodes % stage_nodes == 0) continue;
        Add(&out, "pipeline",
            fmt::format("pipeline {} puts {} nodes in each stage, which neither fill whole fat-tree {} of {} "
                        "nodes nor fit in one: stages that share a {} are not modelled (choose a pipeline "
                        "whose stages fill or divide them)",
                        p, stage_nodes, g.many, g.nodes, g.one));
        break;
      }
    }
  }
  // Expert parallelism (parallel_layout.h `expert`): e divides the experts (each rank holds E/e of them) and
  // the data-parallel size d (Megatron-Core parallel_state.py: the expert grid's world is tensor x expert x
  // expert data x pipeline); a load imbalance rho >= 1.
  if (l.expert < 1) {
    Add(&out, "expert", fmt::format("must be at least 1, got {}", l.expert));
  } else if (l.expert > 1) {
    if (!IsMoe(m)) {
      Add(&out, "expert",
          fmt::format("expert {} needs a mixture-of-experts model (`experts` in the model)", l.expert));
    } else if (m.experts % l.expert != 0) {
      Add(&out, "expert",
          fmt::format("expert parallelism {} does not divide the model's {} experts", l.expert, m.experts));
    }
    if (l.expert_folded()) {
      // Folded (ETP 1): the expert grid's EP x EDP is a stage's t d ranks (parallel_state.py).
      if (gpus % p == 0 && (gpus / p) % l.expert != 0) {
        Add(&out, "expert",
            fmt::format("expert parallelism {} with expert_tensor 1 does not divide a pipeline stage's {} "
                        "ranks (GPUs / pipeline)",
                        l.expert, gpus / p));
      }
    } else if (gpus % (t * p) == 0 && (gpus / (t * p)) % l.expert != 0) {
      Add(&out, "expert",
          fmt::format("expert parallelism {} does not divide the data-parallel size {} (GPUs / "
                      "(tensor x pipeline))",
                      l.expert, gpus / (t * p)));
    }
  }
  // Context parallelism's rules (context_feasibility.cc).
  for (Problem& problem : CheckContextLayout(l, m, gpus)) out.push_back(std::move(problem));
  if (!(l.expert_load_imbalance >= 1.0) || !std::isfinite(l.expert_load_imbalance)) {
    Add(&out, "expert_load_imbalance",
        fmt::format("the busiest rank's rows over the mean must be at least 1, got {}",
                    l.expert_load_imbalance));
  } else if (l.expert_load_imbalance != 1.0 && !IsMoe(m)) {
    Add(&out, "expert_load_imbalance",
        "applies to a mixture-of-experts model's routed experts (`experts` in the model); this model has "
        "none");
  }
  // The dispatcher and ETP only mean something beside expert parallelism (every input used or refused).
  if (l.moe_token_dispatcher != MoeDispatcher::kAllToAll && l.expert <= 1) {
    Add(&out, "moe_token_dispatcher_type",
        fmt::format(
            "moe_token_dispatcher_type \"{}\" applies to expert parallelism: set expert > 1 (an MoE model)",
            MoeDispatcherName(l.moe_token_dispatcher)));
  }
  if (l.expert_tensor > 0 && l.expert <= 1) {
    Add(&out, "expert_tensor",
        fmt::format("expert_tensor {} applies to expert parallelism: set expert > 1 (an MoE model)",
                    l.expert_tensor));
  }
  // A shard group (MiCS, HSDP) partitions over the d data-parallel ranks (design sec. 5 step 1); t = p = 1 is
  // CheckZero's rule over all GPUs.
  if (HasShardGroup(z.strategy) && !l.data_parallel_only() && gpus % (t * p) == 0 &&
      z.shard_group_size() > 0) {
    const int64_t d = gpus / (t * p);
    if (d % z.shard_group_size() != 0) {
      Add(&out, TraitsOf(z.strategy).shard_size_key,
          fmt::format("a shard group of {} ranks does not divide the data-parallel size {} (GPUs / (tensor x "
                      "pipeline))",
                      z.shard_group_size(), d));
    }
  }
  return out;
}

std::vector<Problem> CheckModelled(const ParallelLayout& l, const ZeroConfig& z, bool rlhf) {
  if (l.data_parallel_only()) return {};
  auto refuse = [](const char* key, std::string message) {
    return std::vector<Problem>{{key, std::move(message), ProblemKind::kNotModelled}};
  };
  // Pipelines (model/report/pipeline_evaluate.h) under DeepSpeed's ZeRO-1 (CheckLayout refuses ZeRO-2 and
  // ZeRO-3 there, as DeepSpeed's pipeline engine does) and FSDP2. torch.distributed.pipelining composes with
  // FSDP2 (fully_shard: stage.py backward_maybe_with_nosync's FSDPModule branch) and DDP, and torchtitan's 3D
  // is FSDP2; FSDP1's strategies are not modelled with it.
  if (l.pipeline > 1 && z.framework == Framework::kFsdp && z.strategy != Strategy::kFsdp2) {
    return refuse("pipeline", fmt::format("strategy \"{}\" with pipeline > 1 is not modelled: ZeroSim's "
                                          "pipelines run DeepSpeed's zero1 and FSDP2 (torchtitan's 3D)",
                                          StrategyName(z.strategy)));
  }
  if (l.pipeline > 1 && rlhf)
    return refuse("pipeline", "RLHF phases with pipeline > 1 are not modelled (issue 22)");
  if (rlhf) return refuse("tensor", "RLHF phases with tensor > 1 are not modelled (issue 22)");
  return {};
}

std::vector<Problem> CheckCompute(const ModelSpec& m, const ZeroConfig& z, const ComputeEfficiency& compute) {
  std::vector<Problem> out;
  if (z.precision.fp8_gemms && !(compute.fp8_gemm > 0)) {
    out.push_back(
        {"fp8_gemms", "the calibration gives no gemm_efficiency.fp8_gemm", ProblemKind::kCalibration});
  }
  // An attention kernel other than the generation's needs its efficiencies (calibration.h): FlashAttention v1's
  // attention_v1_*, FlashAttention-2's attention_fa2_*.
  const bool v1 = m.attention == AttentionImpl::kFlashV1, fa2 = m.attention == AttentionImpl::kFlash2;
  if (v1 || fa2) {
    const std::string prefix = v1 ? "attention_v1" : "attention_fa2";
    const double forward = v1 ? compute.attention_v1_forward : compute.attention_fa2_forward;
    const double backward = v1 ? compute.attention_v1_backward : compute.attention_fa2_backward;
    if (!(forward > 0) || !(backward > 0)) {
      out.push_back({"attention",
                     fmt::format("{}: the calibration gives no gemm_efficiency.{}_{}{}", v1 ? "flash_v1" : "flash2",
                                 prefix, !(forward > 0) ? "forward" : "backward",
                                 fa2 ? fmt::format(" (its own kernel is \"{}\")", compute.attention_kernel) : ""),
                     ProblemKind::kCalibration});
    }
  }
  return out;
}

std::string DescribeProblems(const std::vector<Problem>& problems) {
  std::string s;
  for (const Problem& p : problems) s += fmt::format("{}{}: {}", s.empty() ? "" : "; ", p.key, p.message);
  return s;
}

}  // namespace zerosim::model
