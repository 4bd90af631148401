#include "model/schedule_builder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/fetch_coordinator.h"
#include "model/gradient_reducer.h"
#include "model/op_emitter.h"
#include "model/precision.h"
#include "model/traffic.h"

namespace zerosim::model {

Schedule BuildSchedule(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c) {
  Schedule s;
  s.world_size = c.total_gpus();
  s.hardware_queues = z.cuda_device_max_connections;
  s.micro_steps = z.gradient_accumulation_steps;
  s.tokens_per_micro_step = static_cast<double>(z.train_micro_batch_size_per_gpu) * m.seq_len;
  s.graph = BuildModuleGraph(m, s.tokens_per_micro_step);
  ApplyFp8Gemms(z.precision, &s.graph);  // precision.h: FP8 linear layers
  for (const Param& p : s.graph.params) s.partitioned_elements += p.numel();

  const std::vector<TraceStep> trace = BuildTrace(s.graph, z.activation_checkpointing);
  // Each parameter's gradient is final at its last backward use.
  std::vector<int> last_backward(s.graph.params.size(), -1);
  for (int step = 0; step < static_cast<int>(trace.size()); ++step) {
    if (trace[static_cast<size_t>(step)].phase != Phase::kBackward) continue;
    for (int p : s.graph.modules[static_cast<size_t>(trace[static_cast<size_t>(step)].module)].params) {
      last_backward[static_cast<size_t>(p)] = step;
    }
  }
  s.ops.reserve(trace.size() * static_cast<size_t>(z.gradient_accumulation_steps) * 8 + 64);
  OpEmitter emit(&s, &c, z.zero_hpz_partition_size);
  FetchCoordinator fetch(s.graph, z, &emit);
  GradientReducer reduce(s.graph, z, c.nodes, c.gpus_per_node, &emit);

  // One compute class per distinct module pass (the same submodule of every block shares one).
  auto class_of = [&s](const ModuleWork& work, bool backward) {
    const ComputeClass cc{work, backward};
    for (size_t i = 0; i < s.compute_classes.size(); ++i) {
      if (s.compute_classes[i] == cc) return static_cast<int>(i);
    }
    s.compute_classes.push_back(cc);
    return static_cast<int>(s.compute_classes.size()) - 1;
  };
  std::vector<int> forward_class, backward_class;
  for (const Module& mod : s.graph.modules) {
    forward_class.push_back(class_of(mod.work, false));
    backward_class.push_back(class_of(mod.work, true));
  }

  std::vector<int> ready;
  for (int micro = 0; micro < z.gradient_accumulation_steps; ++micro) {
    fetch.BeginPass(&trace);
    for (int step = 0; step < static_cast<int>(trace.size()); ++step) {
      const TraceStep& ts = trace[static_cast<size_t>(step)];
      const Module& mod = s.graph.modules[static_cast<size_t>(ts.module)];
      emit.SetContext(ts.phase, micro, ts.module);
      emit.Host(z.host_overhead_per_module_s);
      const int gathered = fetch.Fetch(step);
      // Megatron's accounting: backward costs twice the forward; a recompute once.
      const double flops = mod.forward_flops * (ts.phase == Phase::kBackward ? 2.0 : 1.0);
      const bool backward = ts.phase == Phase::kBackward;
      const int cls = (backward ? backward_class : forward_class)[static_cast<size_t>(ts.module)];
      const int compute = emit.Compute(flops, cls, {gathered});
      fetch.Release(step);
      if (ts.phase == Phase::kBackward) {
        ready.clear();
        for (int p : mod.params) {
          if (last_backward[static_cast<size_t>(p)] == step) ready.push_back(p);
        }
        reduce.OnGradientsReady(ready, compute);
      }
    }
    emit.SetContext(Phase::kBackward, micro, -1);
    fetch.EndPass();
    reduce.Epilogue();
  }

  emit.SetContext(Phase::kOptimizer, z.gradient_accumulation_steps - 1, -1);
  emit.Host(z.host_overhead_per_module_s);
  const double partition = std::ceil(s.partitioned_elements / s.world_size);
  emit.Memory(Queue::kCompute, AdamStepBytesPerParam(z.precision) * partition, {});
  if (z.precision.fp8_weight_all_gather) {
    // precompute_float8_dynamic_scale_for_fsdp after the step: the amax of every FP8 weight's shard (one
    // read). Its all-reduce of one fp32 per weight tensor is not emitted (a few KB; latency only).
    double fp8_partition = 0;
    const std::vector<bool> fp8 = Fp8Params(s.graph);
    for (size_t i = 0; i < fp8.size(); ++i) {
      if (fp8[i]) fp8_partition += std::ceil(s.graph.params[i].numel() / s.world_size);
    }
    emit.Memory(Queue::kCompute, kFp8AmaxBytes * fp8_partition, {});
  }

  s.compact = CompactOps(s.ops, s.traffic_classes.size());
  s.volumes = SumTraffic(s);
  for (const Param& p : s.graph.params) {
    if (p.is_matrix()) s.largest_matrix_elements = std::max(s.largest_matrix_elements, p.numel());
  }
  s.peak_gathered_elements = fetch.peak_live_elements();
  s.persistent_elements = fetch.persistent_elements();
  return s;
}

}  // namespace zerosim::model
