#include "model/report/rlhf_evaluate.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "model/analytic/analytic.h"
#include "model/cost/nccl_allreduce.h"
#include "model/cost/placed_collectives.h"
#include "model/report/invariants.h"
#include "model/report/memory.h"
#include "model/report/runtime_memory.h"
#include "model/builders/rlhf_schedule.h"

namespace zerosim::model {
namespace {

// One schedule of a phase and how many times the phase runs it.
struct Segment {
  Schedule schedule;
  double count = 1;
};

struct PhaseTotals {
  PhaseReport report;
  double peak_gathered_elements = 0;
};

bool Close(double a, double b) { return std::abs(a - b) <= kInvariantTolerance * std::max({1.0, a, b}); }

// The invariants of one timed pass (model/report/invariants.h, restated for a schedule without a
// VariantReport).
std::string CheckPass(const std::string& what, const Schedule& s, const TimedSchedule& t,
                      const ClusterSpec& c) {
  std::vector<std::string> bad;
  const Timing& tm = t.timing;
  for (double v : {tm.iteration_s, tm.compute_s, tm.optimizer_s, tm.gpu_side_s, tm.exposed_comm_s}) {
    if (!std::isfinite(v) || v < 0) bad.push_back("a time is negative or not finite");
  }
  if (!(tm.iteration_s > 0)) bad.push_back("the pass takes no time");
  const double work = tm.compute_s + tm.optimizer_s;
  if (tm.iteration_s < work * (1 - kInvariantTolerance)) {
    bad.push_back(fmt::format("time {} s below its compute {} s", tm.iteration_s, work));
  }
  const double bound = LinkTimeLowerBound(c, s);
  if (tm.iteration_s < bound * (1 - kInvariantTolerance)) {
    bad.push_back(fmt::format("time {} s below its link-time bound {} s", tm.iteration_s, bound));
  }
  const TierVolumes planned = WireVolumes(s, c);
  for (size_t i = 0; i < planned.cross_node.size(); ++i) {
    if (!Close(planned.cross_node[i], t.volumes.cross_node[i]) ||
        !Close(planned.intra_node[i], t.volumes.intra_node[i])) {
      bad.push_back("bytes per tier differ between the schedule and the engine");
      break;
    }
  }
  std::string out;
  for (const std::string& b : bad) out += (out.empty() ? "" : "; ") + what + ": " + b;
  return out;
}

StatusOr<PhaseTotals> TimePhase(const std::string& name, const std::vector<Segment>& segments,
                                const ClusterSpec& c, Engine& engine, std::string* violations) {
  PhaseTotals p;
  p.report.name = name;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& seg = segments[i];
    StatusOr<TimedSchedule> t = engine.Time(seg.schedule, c, /*timeline=*/false);
    if (!t.ok()) return t.status();
    const std::string bad = CheckPass(fmt::format("{} pass {}", name, i), seg.schedule, *t, c);
    if (!bad.empty()) *violations += (violations->empty() ? "" : "; ") + bad;
    const Timing& tm = t->timing;
    p.report.time_s += seg.count * tm.iteration_s;
    p.report.compute_s += seg.count * (tm.compute_s + tm.optimizer_s + tm.gpu_side_s);
    p.report.exposed_comm_s += seg.count * tm.exposed_comm_s;
    const TierVolumes& v = t->volumes;
    auto add = [&seg](PhaseBytes* b, const std::array<double, kNumPurposes>& tier) {
      b->forward_allgather += seg.count * tier[static_cast<size_t>(Purpose::kForwardAllGather)];
      b->backward_allgather += seg.count * tier[static_cast<size_t>(Purpose::kBackwardAllGather)];
      b->gradient_reduce += seg.count * tier[static_cast<size_t>(Purpose::kGradientReduce)];
      b->tensor_parallel += seg.count * tier[static_cast<size_t>(Purpose::kTensorParallel)];
      b->expert_parallel += seg.count * tier[static_cast<size_t>(Purpose::kExpertParallel)];
      b->context_parallel += seg.count * tier[static_cast<size_t>(Purpose::kContextParallel)];
    };
    add(&p.report.bytes.cross_node, v.cross_node);
    add(&p.report.bytes.intra_node, v.intra_node);
    p.peak_gathered_elements = std::max(p.peak_gathered_elements, seg.schedule.peak_gathered_elements);
  }
  return p;
}

// Bytes per GPU a model's partitions and training state hold for the whole run (DeepSpeed-Chat keeps the four
// engines on the GPU without --offload): 16-bit partitions e Psi / P (e = BytesPerElement of the model's
// dtype; MixZ++'s frozen weights: int8 codes plus one fp32 scale per group), the hpZ secondary partition of
// frozen weights (kept for good, int8 with MixZ++), and for trained parameters their gradients and optimizer
// states in the variant's number formats (memory.h: ZeRO paper sec. 3, 2 + 2 + 12 = 16 bytes per parameter
// over P with fp16 and Adam's fp32 states; precision.h changes the gradient and state bytes).
double ResidentBytes(const ModelSpec& m, const ZeroConfig& z, int r, bool trained, double gpus) {
  const double total = TotalParams(m);
  const double element = BytesPerElement(m.dtype);
  const double trained_element =
      element + GradientPartitionBytes(z.precision) + OptimizerStateBytesPerParam(z.precision);
  if (r <= 0) {
    double bytes = (trained ? trained_element : element) * total / gpus;
    if (trained && z.hpz_enabled()) bytes += element * total / z.zero_hpz_partition_size;
    return bytes;
  }
  const double lora = LoraParamsPerLayer(m, r) * m.layers;
  const double frozen_element = z.zero_quantized_nontrainable_weights
                                    ? 1.0 + 4.0 / static_cast<double>(z.weight_quantization_group_target)
                                    : element;
  double bytes = frozen_element * total / gpus + (trained ? trained_element : element) * lora / gpus;
  if (z.hpz_enabled())
    bytes += frozen_element * total / z.zero_hpz_partition_size + element * lora / z.zero_hpz_partition_size;
  return bytes;
}

// Parameter tensors of `m` whose partition over `gpus` takes a large-pool block (memory.h).
double LargeParameterTensors(const ModelSpec& m, double gpus) {
  return LargeParameterTensors(BuildModuleGraph(m, 1).params, BytesPerElement(m.dtype), gpus);
}

// The process's memory besides its tensors (runtime_memory.h) for the whole run, which every phase holds:
// the CUDA context, cuBLAS's workspaces and the reserve; NCCL's buffers of every communicator a phase's
// collectives run on (the process groups live for the run: one schedule holding all their collectives); the
// allocator's rounding for the four models' large parameter partitions and the actor's training activations.
RuntimeMemory RunRuntimeMemory(const std::vector<const std::vector<Segment>*>& phases, const ZeroConfig& z,
                               const ClusterSpec& c, double live_tensors) {
  Schedule collectives;
  for (const std::vector<Segment>* phase : phases) {
    for (const Segment& seg : *phase) {
      for (const Op& op : seg.schedule.ops) {
        if (op.kind == OpKind::kCollective) collectives.ops.push_back(op);
      }
    }
  }
  return EstimateRuntimeMemory(z, c, collectives, live_tensors);
}

// Activations of a training pass (memory.h ActivationBytes) plus the logits, fp16 and fp32 for the loss (6 b
// s V).
double TrainingActivationBytes(const ModelSpec& m, const ZeroConfig& z, double batch) {
  return ActivationBytes(m, batch, RecomputeOf(z), z.recompute_block_interval) +
         6.0 * batch * m.seq_len * m.vocab;
}

}  // namespace

double KvCacheBytes(const ModelSpec& m, double sequences, double positions) {
  const double head_dim = HeadDim(m);
  return 2.0 * m.layers * KvHeads(m) * head_dim * BytesPerElement(m.dtype) * sequences * positions;
}

ZeroConfig PlainZero3(const ZeroConfig& actor) {
  ZeroConfig z = actor;
  z.zero_quantized_weights = false;
  z.zero_hpz_partition_size = 1;
  z.zero_quantized_gradients = false;
  z.zero_quantized_nontrainable_weights = false;
  return z;
}

StatusOr<VariantReport> EvaluateRlhfVariant(const std::string& name, const Configuration& v, Engine& engine) {
  if (v.rlhf == nullptr) return Status::Error(fmt::format("{}: not an RLHF configuration (no [rlhf])", name));
  const ModelSpec& actor = v.model;
  const ZeroConfig& z = v.zero;
  const RlhfSpec& spec = *v.rlhf;
  const ClusterSpec& c = v.cluster;
  const double gpus = c.total_gpus();
  const ZeroConfig plain = PlainZero3(z);
  const int b = spec.generation_batch_per_gpu;
  const int full = spec.prompt_len + spec.answer_len;
  std::string violations;

  // --- generation: prefill over the prompt, then one forward per generated token ---
  std::vector<Segment> gen;
  ForwardGather gather = ForwardGather::kCoordinator;
  if (spec.generation_gather == GenerationGather::kPinned) {
    gather = ForwardGather::kNone;
    gen.push_back({BuildFullGatherSchedule(actor, z, c, spec.actor_lora_dim), 1});
  } else if (spec.generation_gather == GenerationGather::kPerLayerBlocking) {
    gather = ForwardGather::kPerLayerBlocking;
  }
  gen.push_back({BuildForwardSchedule(actor, z, c, spec.actor_lora_dim,
                                      ForwardShape{b, spec.prompt_len, spec.prompt_len, true, false}, gather),
                 1});
  // Decode step t (0-based) attends to prompt + t + 1 positions; each sample stands for an equal span of
  // steps at its mean context.
  const int samples = std::max(1, std::min(spec.decode_samples, spec.answer_len));
  for (int k = 0; k < samples; ++k) {
    const int first = spec.answer_len * k / samples,
              last = spec.answer_len * (k + 1) / samples;  // [first, last)
    if (last <= first) continue;
    const int context = spec.prompt_len + (first + last + 1) / 2;
    gen.push_back({BuildForwardSchedule(actor, z, c, spec.actor_lora_dim,
                                        ForwardShape{b, 1, context, true, false}, gather),
                   static_cast<double>(last - first)});
  }

  // --- experience: actor, reference, reward and critic forwards over prompt + answer ---
  ModelSpec actor_full = actor, ref_full = spec.reference, critic_full = spec.critic,
            reward_full = spec.reward;
  actor_full.seq_len = ref_full.seq_len = critic_full.seq_len = reward_full.seq_len = full;
  std::vector<Segment> exp;
  exp.push_back({BuildForwardSchedule(actor_full, z, c, spec.actor_lora_dim,
                                      ForwardShape{b, full, full, false, false}, ForwardGather::kCoordinator),
                 1});
  exp.push_back({BuildForwardSchedule(ref_full, plain, c, 0, ForwardShape{b, full, full, false, false},
                                      ForwardGather::kCoordinator),
                 1});
  exp.push_back({BuildForwardSchedule(reward_full, plain, c, 0, ForwardShape{b, full, full, false, true},
                                      ForwardGather::kCoordinator),
                 1});
  exp.push_back({BuildForwardSchedule(critic_full, plain, c, spec.critic_lora_dim,
                                      ForwardShape{b, full, full, false, true}, ForwardGather::kCoordinator),
                 1});

  // --- training: ppo_epochs x (actor step, critic step) per training micro-batch of the generated samples
  // ---
  const double steps = spec.ppo_epochs * std::ceil(static_cast<double>(b) / spec.training_batch_per_gpu);
  std::vector<Segment> train;
  train.push_back(
      {BuildLoraTrainingSchedule(actor_full, z, c, spec.actor_lora_dim, spec.training_batch_per_gpu), steps});
  ZeroConfig critic_zero = plain;
  critic_zero.activation_checkpointing = spec.critic_gradient_checkpointing;
  train.push_back({BuildLoraTrainingSchedule(critic_full, critic_zero, c, spec.critic_lora_dim,
                                             spec.training_batch_per_gpu),
                   steps});

  // --- step 1 (SFT): one LoRA training iteration of the actor ---
  ModelSpec actor_sft = actor;
  actor_sft.seq_len = spec.sft_seq_len;
  std::vector<Segment> sft;
  sft.push_back({BuildLoraTrainingSchedule(actor_sft, z, c, spec.actor_lora_dim, spec.sft_batch_per_gpu), 1});

  VariantReport r;
  r.name = name;
  r.engine = engine.name();
  r.model = actor;
  r.zero = z;
  r.gpus = c.total_gpus();
  // Step 3 holds all four engines; step 1 (sft) is its own run with the actor alone.
  const double actor_resident = ResidentBytes(actor, z, spec.actor_lora_dim, true, gpus);
  const double resident = actor_resident + ResidentBytes(spec.reference, plain, 0, false, gpus) +
                          ResidentBytes(spec.critic, plain, spec.critic_lora_dim, true, gpus) +
                          ResidentBytes(spec.reward, plain, 0, false, gpus);
  // The runtime's memory: step 3's process holds the four models and every phase's communicators; step 1's
  // (sft) the actor alone.
  const RecomputePolicy policy = RecomputeOf(z);
  const RuntimeMemory runtime = RunRuntimeMemory(
      {&gen, &exp, &train}, z, c,
      LargeParameterTensors(actor, gpus) + LargeParameterTensors(spec.reference, gpus) +
          LargeParameterTensors(spec.critic, gpus) + LargeParameterTensors(spec.reward, gpus) +
          SavedActivationTensors(actor_full, policy, z.recompute_block_interval));
  const RuntimeMemory sft_runtime =
      RunRuntimeMemory({&sft}, z, c,
                       LargeParameterTensors(actor, gpus) +
                           SavedActivationTensors(actor_sft, policy, z.recompute_block_interval));
  const double bytes = BytesPerElement(actor.dtype);
  struct Built {
    const char* name;
    std::vector<Segment>* segments;
  };
  for (const Built& phase : {Built{"generation", &gen}, Built{"experience", &exp}, Built{"training", &train},
                             Built{"sft", &sft}}) {
    StatusOr<PhaseTotals> t = TimePhase(phase.name, *phase.segments, c, engine, &violations);
    if (!t.ok())
      return Status::Error(fmt::format("{}: {} phase: {}", name, phase.name, t.status().message()));
    PhaseReport p = t->report;
    p.resident_bytes = std::string(phase.name) == "sft" ? actor_resident : resident;
    p.runtime_bytes = (std::string(phase.name) == "sft" ? sft_runtime : runtime).total();
    p.gathered_bytes = bytes * t->peak_gathered_elements;
    const std::string pn = phase.name;
    if (pn == "generation") {
      p.kv_cache_bytes = KvCacheBytes(actor, b, full);
      p.activations_bytes =
          2.0 * bytes * b * spec.prompt_len * actor.vocab;  // the prefill's logits (fp16, fp32)
      p.throughput = static_cast<double>(b) * spec.answer_len / p.time_s;
      p.throughput_unit = "tokens/s";
      p.composition = fmt::format(
          "{}prefill of {} x {} + {} decode steps ({} context samples), gathers: {}",
          spec.generation_gather == GenerationGather::kPinned ? "one gather of all, " : "", b,
          spec.prompt_len, spec.answer_len, samples, GenerationGatherName(spec.generation_gather));
    } else if (pn == "experience") {
      // The largest single forward: the actor's logits dominate (log_softmax over V in fp32).
      p.activations_bytes = 6.0 * b * full * actor.vocab;
      p.throughput = b / p.time_s;
      p.throughput_unit = "samples/s";
      p.composition = "actor, reference, reward and critic forwards";
    } else if (pn == "training") {
      p.activations_bytes = TrainingActivationBytes(actor_full, z, spec.training_batch_per_gpu);
      p.throughput = b / p.time_s;
      p.throughput_unit = "samples/s";
      p.composition =
          fmt::format("{} x (actor + critic LoRA steps of {} sequences)", steps, spec.training_batch_per_gpu);
    } else {
      p.activations_bytes = TrainingActivationBytes(actor_sft, z, spec.sft_batch_per_gpu);
      p.throughput = spec.sft_batch_per_gpu / p.time_s;
      p.throughput_unit = "samples/s";
      p.composition = fmt::format("step 1: one actor LoRA iteration of {} x {}", spec.sft_batch_per_gpu,
                                  spec.sft_seq_len);
    }
    p.memory_bytes =
        p.resident_bytes + p.kv_cache_bytes + p.activations_bytes + p.gathered_bytes + p.runtime_bytes;
    r.phases.push_back(p);
  }

  // The step: generation + experience + training (step 1 is a separate run).
  for (size_t i = 0; i < 3; ++i) {
    const PhaseReport& p = r.phases[i];
    r.iteration_time_s += p.time_s;
    r.compute_s += p.compute_s;
    r.exposed_comm_s += p.exposed_comm_s;
    r.bytes.cross_node.forward_allgather += p.bytes.cross_node.forward_allgather;
    r.bytes.cross_node.backward_allgather += p.bytes.cross_node.backward_allgather;
    r.bytes.cross_node.gradient_reduce += p.bytes.cross_node.gradient_reduce;
    r.bytes.intra_node.forward_allgather += p.bytes.intra_node.forward_allgather;
    r.bytes.intra_node.backward_allgather += p.bytes.intra_node.backward_allgather;
    r.bytes.intra_node.gradient_reduce += p.bytes.intra_node.gradient_reduce;
  }
  r.tokens_per_s = gpus * r.phases[0].throughput;
  r.memory.hbm_bytes = c.gpu.hbm_bytes;
  double worst = 0;
  std::string worst_phase;
  for (const PhaseReport& p : r.phases) {
    if (p.memory_bytes > worst) {
      worst = p.memory_bytes;
      worst_phase = p.name;
    }
  }
  // What every phase of step 3 holds; the parts that change with the phase are per phase
  // (phases[i].memory_bytes).
  r.memory.parameters_bytes = resident;
  r.memory.cuda_context_bytes = runtime.cuda_context_bytes;
  r.memory.nccl_buffers_bytes = runtime.nccl_buffers_bytes;
  r.memory.cublas_workspace_bytes = runtime.cublas_workspace_bytes;
  r.memory.allocator_rounding_bytes = runtime.allocator_rounding_bytes;
  r.memory.reserve_bytes = runtime.reserve_bytes;
  r.memory.total_bytes = resident + runtime.total();
  // No fragmentation term here (memory.h's is fitted on pre-training runs); active and reserved as memory.h
  // defines them.
  r.memory.active_bytes = resident + runtime.cublas_workspace_bytes;
  r.memory.reserved_bytes = r.memory.active_bytes + runtime.allocator_rounding_bytes;
  if (worst > c.gpu.hbm_bytes) {
    r.feasible = false;
    r.infeasible_reason =
        fmt::format("the {} phase needs {:.1f} GiB per GPU, the GPU has {:.1f} GiB", worst_phase,
                    worst / (1024.0 * 1024 * 1024), c.gpu.hbm_bytes / (1024.0 * 1024 * 1024));
  }
  r.invariant_violation = violations;
  return r;
}

}  // namespace zerosim::model
