#include "model/io/precision_keys.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace zerosim::io {

bool ParseFloatFormat(const std::string& text, model::FloatFormat* out) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "fp16") {
    *out = model::FloatFormat::kFp16;
  } else if (lower == "bf16") {
    *out = model::FloatFormat::kBf16;
  } else if (lower == "fp32") {
    *out = model::FloatFormat::kFp32;
  } else {
    return false;
  }
  return true;
}

namespace {

void ReadFormat(TableReader* t, std::string_view key, model::FloatFormat* f) {
  const std::optional<std::string> v = t->OptionalString(key);
  if (v && !ParseFloatFormat(*v, f))
    t->Fail(key, fmt::format("unknown format \"{}\" (fp16, bf16, fp32)", *v));
}

}  // namespace

void ReadPrecisionKeys(TableReader* t, model::Precision* p) {
  ReadFormat(t, "communication_data_type", &p->gradient_reduce_dtype);
  ReadFormat(t, "grad_accum_dtype", &p->gradient_accumulation_dtype);
  p->bf16_master_weights_and_grads =
      t->BoolOr("bf16_master_weights_and_grads", p->bf16_master_weights_and_grads);
  p->bf16_optimizer_states = t->BoolOr("bf16_optimizer_states", p->bf16_optimizer_states);
  p->fp8_gemms = t->BoolOr("fp8_gemms", p->fp8_gemms);
  p->fp8_weight_all_gather = t->BoolOr("fp8_weight_all_gather", p->fp8_weight_all_gather);
}

}  // namespace zerosim::io
