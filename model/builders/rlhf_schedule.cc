#include "model/builders/rlhf_schedule.h"

#include "model/spec/rlhf_spec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "model/cost/compute_cost.h"
#include "model/cost/kernel_cost.h"
#include "model/enum_names.h"
#include "model/placement/traffic.h"
#include "model/builders/fetch_coordinator.h"
#include "model/builders/gradient_reducer.h"
#include "model/builders/op_emitter.h"
#include "model/builders/schedule_builder.h"
#include "model/builders/schedule_parts.h"

namespace zerosim::model {
namespace {

constexpr double kAct = 2.0;  // fp16/bf16 activation bytes

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The adapters DeepSpeed-Chat's convert_linear_layer_to_lora puts on a block module (HF's separate
// projections).
std::vector<std::pair<double, double>> AdaptersOf(const ModelSpec& m, const std::string& name) {
  const double h = m.hidden, f = m.ffn_hidden, kv = KvWidth(m), q = QueryWidth(m);
  if (EndsWith(name, "attention.query_key_value")) return {{h, q}, {h, kv}, {h, kv}};
  if (EndsWith(name, "attention.dense")) return {{q, h}};
  if (EndsWith(name, "mlp.dense_h_to_4h")) {
    if (m.mlp != MlpKind::kGelu) return {{h, f}, {h, f}};
    return {{h, f}};
  }
  if (EndsWith(name, "mlp.dense_4h_to_h")) return {{f, h}};
  return {};
}

void Begin(Schedule* s, const ZeroConfig& z, const RankShape& c, ModuleGraph graph, double tokens) {
  SetScheduleFrame(s, z, c, std::move(graph), /*micro_steps=*/1, tokens);
}

// A forward pass of a decode step: the attention core reads the KV cache of `context` positions for one new
// token per sequence. Grouped heads share their K/V: per (sequence, kv head) a [g x ctx] = [g x d][d x ctx]
// score GEMM and a [g x d] = [g x ctx][ctx x d] GEMM, g = heads / kv_heads (DeepSpeed-Inference's
// softmax_context and HF's attention both stream K and V from HBM once per step); the softmax reads and
// writes the scores.
void PatchDecodeAttention(const ModelSpec& m, ModuleGraph* g, double sequences, double context) {
  const double kvh = KvHeads(m), group = static_cast<double>(m.heads) / kvh;
  const double d = HeadDim(m);
  for (Module& mod : g->modules) {
    if (!EndsWith(mod.name, "attention.core")) continue;
    ModuleWork w;
    w.gemms.push_back(Gemm{group, context, d, sequences * kvh});
    w.gemms.push_back(Gemm{group, d, context, sequences * kvh});
    w.elementwise_bytes = 2.0 * kAct * sequences * m.heads * context;
    w.kernels = 3;
    mod.work = w;
    mod.forward_flops = 4.0 * sequences * context * m.hidden;
  }
}

// HF generate keeps the last position's logits for sampling (one softmax over V per sequence), no loss.
void PatchGenerationHead(const ModelSpec& m, ModuleGraph* g, double sequences) {
  if (g->head_module < 0) return;
  g->modules[static_cast<size_t>(g->head_module)].work.elementwise_bytes = 2.0 * kAct * sequences * m.vocab;
}

// forward_value (dschat/utils/model/reward_model.py): the transformer, then v_head = nn.Linear(h, 1,
// bias=False), a 1-column GEMM, instead of the logit layer. v_head (h elements) stays below the persistence
// threshold.
void PatchValueHead(const ModelSpec& m, ModuleGraph* g, double tokens) {
  if (g->head_module < 0) return;
  Module& head = g->modules[static_cast<size_t>(g->head_module)];
  head.params.clear();
  head.work = ModuleWork{{Gemm{tokens, 1, static_cast<double>(m.hidden), 1}}, {}, 2.0 * kAct * tokens, 2};
  head.forward_flops = 2.0 * tokens * m.hidden;
  head.name = "v_head";
}

// The backward of a frozen linear module with adapters, as one explicit list of GEMMs (timed as a forward
// pass of that work): the input gradient of each base GEMM ([t x in] = [t x out][out x in], same FLOPs), and
// per adapter dZ = dY L^T [t x r], dL = Z^T dY [r x out], dX += dZ R^T [t x in], dR = X^T dZ [in x r].
ModuleWork FrozenBackwardWork(const Module& mod, const std::vector<std::pair<double, double>>& adapters,
                              double tokens, int r, double base_gemms) {
  ModuleWork w;
  for (size_t i = 0; i < static_cast<size_t>(base_gemms); ++i) {
    const Gemm& fwd = mod.work.gemms[i];
    w.gemms.push_back(Gemm{fwd.m, fwd.k, fwd.n, fwd.batch});
  }
  for (const auto& [in, out] : adapters) {
    w.gemms.push_back(Gemm{tokens, static_cast<double>(r), out, 1});
    w.gemms.push_back(Gemm{static_cast<double>(r), out, tokens, 1});
    w.gemms.push_back(Gemm{tokens, in, static_cast<double>(r), 1});
    w.gemms.push_back(Gemm{in, static_cast<double>(r), tokens, 1});
  }
  w.elementwise_bytes = mod.work.elementwise_bytes * kBackwardBytesFactor;
  w.kernels = 2 * mod.work.kernels;
  return w;
}

// DeepSpeed's GatheredParameters (partition_parameters.py _all_gather, _allgather_params_coalesced):
// blocking, one all-gather per parameter on the data-parallel group from the primary partition;
// stored-quantized params (MixZ++) gather int8 codes and fp32 scales, then dequantize. The host waits for all
// of them.
void BlockingGather(OpEmitter* emit, const ModuleGraph& g, const ZeroConfig& z,
                    const std::vector<int>& params, Purpose purpose) {
  const int world = emit->group_size(GroupKind::kGlobal);
  if (world <= 1 || params.empty()) return;
  for (int p : params) {
    const Param& param = g.params[static_cast<size_t>(p)];
    const double shard = std::ceil(param.numel() / world);
    if (z.zero_quantized_nontrainable_weights && param.frozen) {
      const double group =
          QuantizationGroupSize(shard, static_cast<double>(z.weight_quantization_group_target));
      const int codes = emit->Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kGlobal,
                                         shard * world, 1.0, purpose, {});
      const int scales = emit->Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kGlobal,
                                          4.0 * (shard / group) * world, 4.0, purpose, {});
      KernelSpec k{Kernel::kDequantizeInt8, shard * world, z.weight_quantization_bits, group, 1, 0};
      k.bytes = KernelBytes(k.kernel, k.elements, k.bits, k.group_size, k.fan_in);
      emit->Kernel(Queue::kAllGatherStream, k, {codes, scales});
    } else {
      emit->Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kGlobal, shard * world * 2.0,
                       2.0, purpose, {});
    }
  }
  emit->Host(0.0, emit->tail(Queue::kNcclDp));
  if (emit->tail(Queue::kAllGatherStream) >= 0) emit->Host(0.0, emit->tail(Queue::kAllGatherStream));
}

std::vector<int> Unpersisted(const ModuleGraph& g, const ZeroConfig& z, const std::vector<int>& params) {
  std::vector<int> out;
  for (int p : params) {
    if (g.params[static_cast<size_t>(p)].numel() >= z.stage3_param_persistence_threshold) out.push_back(p);
  }
  return out;
}

}  // namespace

const char* GenerationGatherName(GenerationGather g) {
  constexpr std::array<const char*, 3> kNames = {"zero_hooks", "pinned", "per_layer"};
  return NameOf(kNames, g);
}

LoraGraph BuildLoraGraph(const ModelSpec& m, double tokens, int r) {
  LoraGraph lg;
  lg.graph = BuildModuleGraph(m, tokens);
  lg.adapters.assign(lg.graph.modules.size(), {});
  if (r <= 0) return lg;
  for (Param& p : lg.graph.params) p.frozen = true;
  for (size_t i = 0; i < lg.graph.modules.size(); ++i) {
    Module& mod = lg.graph.modules[i];
    if (mod.layer < 0) continue;
    lg.adapters[i] = AdaptersOf(m, mod.name);
    int k = 0;
    for (const auto& [in, out] : lg.adapters[i]) {
      const std::string base = mod.name + ".lora" + std::to_string(k++);
      lg.graph.params.push_back(Param{base + ".lora_right_weight", static_cast<int64_t>(in), r, false});
      mod.params.push_back(static_cast<int>(lg.graph.params.size()) - 1);
      lg.graph.params.push_back(Param{base + ".lora_left_weight", r, static_cast<int64_t>(out), false});
      mod.params.push_back(static_cast<int>(lg.graph.params.size()) - 1);
      const Gemm down{tokens, static_cast<double>(r), in, 1};
      const Gemm up{tokens, out, static_cast<double>(r), 1};
      mod.work.gemms.push_back(down);
      mod.work.gemms.push_back(up);
      mod.work.kernels += 2;
      mod.forward_flops += down.flops() + up.flops();
      lg.lora_elements += r * (in + out);
    }
  }
  return lg;
}

double LoraParamsPerLayer(const ModelSpec& m, int r) {
  double total = 0;
  for (const char* name :
       {"attention.query_key_value", "attention.dense", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h"}) {
    for (const auto& [in, out] : AdaptersOf(m, name)) total += r * (in + out);
  }
  return total;
}

Schedule BuildForwardSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, int r,
                              const ForwardShape& shape, ForwardGather gather) {
  ModelSpec pass = m;
  pass.seq_len = shape.new_tokens;
  const double tokens = static_cast<double>(shape.sequences) * shape.new_tokens;
  LoraGraph lg = BuildLoraGraph(pass, tokens, r);
  if (shape.context != shape.new_tokens) PatchDecodeAttention(m, &lg.graph, shape.sequences, shape.context);
  if (shape.value_head) {
    PatchValueHead(m, &lg.graph, tokens);
  } else if (shape.generation) {
    PatchGenerationHead(m, &lg.graph, shape.sequences);
  }
  Schedule s;
  Begin(&s, z, c, std::move(lg.graph), tokens);
  const ModuleGraph& g = s.graph;
  std::vector<TraceStep> trace;
  for (int i = 0; i < static_cast<int>(g.modules.size()); ++i) trace.push_back({i, Phase::kForward});

  OpEmitter emit(&s, z.zero_hpz_partition_size);
  FetchCoordinator fetch(g, z, &emit);
  if (gather == ForwardGather::kCoordinator) fetch.BeginPass(&trace);
  double peak = 0;
  for (int step = 0; step < static_cast<int>(trace.size()); ++step) {
    const int module = trace[static_cast<size_t>(step)].module;
    const Module& mod = g.modules[static_cast<size_t>(module)];
    emit.SetContext(Phase::kForward, 0, module);
    emit.Host(z.runtime.host_overhead_per_module_s);
    int gathered = -1;
    if (gather == ForwardGather::kCoordinator) {
      gathered = fetch.Fetch(step);
    } else if (gather == ForwardGather::kPerLayerBlocking) {
      // _zero3_forward: the whole layer at its first module; other modules (embeddings, final norm, head) as
      // their own gather.
      std::vector<int> params;
      if (mod.layer < 0) {
        params = mod.params;
      } else if (module == g.block_begin[static_cast<size_t>(mod.layer)]) {
        for (int i = module; i < g.block_end[static_cast<size_t>(mod.layer)]; ++i) {
          for (int p : g.modules[static_cast<size_t>(i)].params) params.push_back(p);
        }
      }
      params = Unpersisted(g, z, params);
      double elements = 0;
      for (int p : params) elements += g.params[static_cast<size_t>(p)].numel();
      peak = std::max(peak, elements);
      BlockingGather(&emit, g, z, params, Purpose::kForwardAllGather);
    }
    emit.Compute(mod.forward_flops, ComputeClassOf(&s, mod.work, false), {gathered});
    if (gather == ForwardGather::kCoordinator) fetch.Release(step);
  }
  if (gather == ForwardGather::kCoordinator) {
    emit.SetContext(Phase::kForward, 0, -1);
    fetch.EndPass();
    peak = fetch.peak_live_elements();
  } else if (gather == ForwardGather::kNone) {
    peak = s.partitioned_elements;  // every parameter stays gathered
  }
  s.peak_gathered_elements = peak;
  s.persistent_elements = fetch.persistent_elements();
  FinishSchedule(&s);
  return s;
}

Schedule BuildFullGatherSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, int r) {
  ModelSpec pass = m;
  pass.seq_len = 1;
  Schedule s;
  Begin(&s, z, c, BuildLoraGraph(pass, 1.0, r).graph, 0.0);
  OpEmitter emit(&s, z.zero_hpz_partition_size);
  emit.SetContext(Phase::kForward, 0, -1);
  std::vector<int> all;
  for (int p = 0; p < static_cast<int>(s.graph.params.size()); ++p) all.push_back(p);
  all = Unpersisted(s.graph, z, all);
  BlockingGather(&emit, s.graph, z, all, Purpose::kForwardAllGather);
  s.peak_gathered_elements = s.partitioned_elements;
  FinishSchedule(&s);
  return s;
}

Schedule BuildLoraTrainingSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, int r,
                                   int micro_batch) {
  if (r <= 0) {
    ZeroConfig plain = z;
    plain.train_micro_batch_size_per_gpu = micro_batch;
    plain.gradient_accumulation_steps = 1;
    return BuildSchedule(m, plain, c);
  }
  const double tokens = static_cast<double>(micro_batch) * m.seq_len;
  LoraGraph lg = BuildLoraGraph(m, tokens, r);
  Schedule s;
  std::vector<std::vector<std::pair<double, double>>> adapters = std::move(lg.adapters);
  const double lora_elements = lg.lora_elements;
  // Base GEMMs of each module before the adapters were appended.
  std::vector<double> base_gemms;
  for (size_t i = 0; i < lg.graph.modules.size(); ++i) {
    base_gemms.push_back(static_cast<double>(lg.graph.modules[i].work.gemms.size() - 2 * adapters[i].size()));
  }
  Begin(&s, z, c, std::move(lg.graph), tokens);
  const ModuleGraph& g = s.graph;

  // The trace without the embeddings' backward (frozen, their input is token ids: autograd stops there).
  const int first_block = g.num_blocks > 0 ? g.block_begin.front() : static_cast<int>(g.modules.size());
  std::vector<TraceStep> trace;
  for (const TraceStep& ts : BuildTrace(g, z.activation_checkpointing)) {
    if (ts.phase == Phase::kBackward && ts.module < first_block) continue;
    trace.push_back(ts);
  }
  std::vector<int> last_backward(g.params.size(), -1);
  for (int step = 0; step < static_cast<int>(trace.size()); ++step) {
    if (trace[static_cast<size_t>(step)].phase != Phase::kBackward) continue;
    for (int p : g.modules[static_cast<size_t>(trace[static_cast<size_t>(step)].module)].params) {
      last_backward[static_cast<size_t>(p)] = step;
    }
  }
  std::vector<int> forward_class, backward_class;
  for (size_t i = 0; i < g.modules.size(); ++i) {
    const Module& mod = g.modules[i];
    forward_class.push_back(ComputeClassOf(&s, mod.work, false));
    if (!adapters[i].empty()) {
      backward_class.push_back(
          ComputeClassOf(&s, FrozenBackwardWork(mod, adapters[i], tokens, r, base_gemms[i]), false));
    } else {
      backward_class.push_back(ComputeClassOf(&s, mod.work, true));
    }
  }

  OpEmitter emit(&s, z.zero_hpz_partition_size);
  FetchCoordinator fetch(g, z, &emit);
  GradientReducer reduce(g, z, c.nodes, c.gpus_per_node, &emit);
  fetch.BeginPass(&trace);
  std::vector<int> ready;
  for (int step = 0; step < static_cast<int>(trace.size()); ++step) {
    const TraceStep& ts = trace[static_cast<size_t>(step)];
    const Module& mod = g.modules[static_cast<size_t>(ts.module)];
    emit.SetContext(ts.phase, 0, ts.module);
    emit.Host(z.runtime.host_overhead_per_module_s);
    const int gathered = fetch.Fetch(step);
    const bool backward = ts.phase == Phase::kBackward;
    // Reported FLOPs: the forward's, the input gradient's (as many) and the adapters' weight gradients.
    const double flops = mod.forward_flops * (backward ? 2.0 : 1.0);
    const int cls = (backward ? backward_class : forward_class)[static_cast<size_t>(ts.module)];
    const int compute = emit.Compute(flops, cls, {gathered});
    fetch.Release(step);
    if (backward) {
      ready.clear();
      for (int p : mod.params) {
        if (!g.params[static_cast<size_t>(p)].frozen && last_backward[static_cast<size_t>(p)] == step) {
          ready.push_back(p);
        }
      }
      if (!ready.empty()) reduce.OnGradientsReady(ready, compute);
    }
  }
  emit.SetContext(Phase::kBackward, 0, -1);
  fetch.EndPass();
  reduce.Epilogue();
  emit.SetContext(Phase::kOptimizer, 0, -1);
  emit.Host(z.runtime.host_overhead_per_module_s);
  emit.Memory(Queue::kCompute, kAdamBytesPerParam * std::ceil(lora_elements / s.world_size), {});
  s.peak_gathered_elements = fetch.peak_live_elements();
  s.persistent_elements = fetch.persistent_elements();
  FinishSchedule(&s);
  return s;
}

}  // namespace zerosim::model
