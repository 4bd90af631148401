// Reading the number-format keys (model/spec/precision.h) from a TOML table: [zero] and each [[variant]] (so
// that variants may compare bf16 with FP8, or bf16 with fp32 gradient reduction). Every key is optional;
// absent keys keep `p`'s value.
//   communication_data_type = "fp16" | "bf16" | "fp32"   DeepSpeed's key (default: the model's dtype)
//   grad_accum_dtype        = "fp16" | "bf16" | "fp32"   DeepSpeed's data_types.grad_accum_dtype (default:
//   the
//                                                         model's dtype, as under ZeRO)
//   bf16_master_weights_and_grads, bf16_optimizer_states  DeepSpeed's bf16 keys (default false)
//   fp8_gemms                                             FP8 linear layers (Transformer Engine / torchao)
//   fp8_weight_all_gather                                 torchao's enable_fsdp_float8_all_gather
#pragma once

#include "model/io/table_reader.h"
#include "model/spec/precision.h"

namespace zerosim::io {

void ReadPrecisionKeys(TableReader* t, model::Precision* p);

// "fp16", "bf16" or "fp32" (case-insensitive, DeepSpeed lowers it) into `out`; false for anything else.
bool ParseFloatFormat(const std::string& text, model::FloatFormat* out);

}  // namespace zerosim::io
