#include "model/spec/precision.h"

#include <array>

#include "model/enum_names.h"

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

}  // namespace zerosim::model
