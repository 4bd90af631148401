#include "model/spec/precision.h"

#include <array>

#include "model/enum_names.h"
#include "model/schedule/module_graph.h"

namespace zerosim::model {

const char* FloatFormatName(FloatFormat f) {
  constexpr std::array<const char*, 4> kNames = {"model", "fp16", "bf16", "fp32"};
  return NameOf(kNames, f);
}

double FormatBytes(FloatFormat f) {
  switch (f) {
    case FloatFormat::kModel:
    case FloatFormat::kFp16:
    case FloatFormat::kBf16:
      return 2.0;
    case FloatFormat::kFp32:
      return 4.0;
  }
  return 2.0;
}

double GradientReduceBytes(const Precision& p) { return FormatBytes(p.gradient_reduce_dtype); }

double GradientPartitionBytes(const Precision& p) { return FormatBytes(p.gradient_accumulation_dtype); }

namespace {
double MasterBytes(const Precision& p) { return p.bf16_master_weights_and_grads ? 2.0 : 4.0; }
double StateBytes(const Precision& p) { return p.bf16_optimizer_states ? 2.0 : 4.0; }
}  // namespace

double OptimizerStateBytesPerParam(const Precision& p) { return MasterBytes(p) + 2.0 * StateBytes(p); }

double AdamStepBytesPerParam(const Precision& p) {
  return 2.0 * OptimizerStateBytesPerParam(p) + GradientPartitionBytes(p) + FormatBytes(FloatFormat::kModel);
}

std::vector<bool> Fp8Params(const ModuleGraph& g) {
  std::vector<bool> fp8(g.params.size(), false);
  for (const Module& mod : g.modules) {
    if (mod.layer < 0) continue;
    for (int p : mod.params) {
      if (g.params[static_cast<size_t>(p)].is_matrix()) fp8[static_cast<size_t>(p)] = true;
    }
  }
  return fp8;
}

void ApplyFp8Gemms(const Precision& p, ModuleGraph* g) {
  if (!p.fp8_gemms) return;
  const std::vector<bool> fp8 = Fp8Params(*g);
  for (Module& mod : g->modules) {
    bool linear = false;
    for (int q : mod.params) linear = linear || fp8[static_cast<size_t>(q)];
    if (!linear) continue;  // norms, embeddings, the logit layer and the attention core stay 16-bit
    for (Gemm& gemm : mod.work.gemms) {
      gemm.fp8 = true;
      gemm.fp8_weight_gathered = p.fp8_weight_all_gather;
    }
  }
}

double Fp8ForwardCastBytes(const Gemm& g) {
  if (!g.fp8) return 0;
  const double weight = g.fp8_weight_gathered ? 0.0 : g.n * g.k;
  return kFp8CastBytes * (g.m * g.k + weight) * g.batch;
}

double Fp8BackwardCastBytes(const Gemm& g) {
  if (!g.fp8) return 0;
  const double weight = g.fp8_weight_gathered ? 0.0 : g.n * g.k;
  const double input_gradient = g.m * g.n + weight;
  const double weight_gradient = g.m * g.n + g.m * g.k;
  return kFp8CastBytes * (input_gradient + weight_gradient) * g.batch;
}

}  // namespace zerosim::model
