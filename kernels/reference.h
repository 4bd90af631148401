// The CPU reference of the quantization kernels: the specification the CUDA kernels (gpu.h) must match bit
// for bit. Formats, rounding and special values: format.h. Plain loops, no threads, no vectorization
// tricks; meant to be read.
//
// Kernel names (model::Kernel, docs/calibration.md) map to functions as follows:
//   quantize_int8, quantize_int4      Quantize with bits 8 or 4
//   swizzle_quantize_int4              Quantize with bits 4 and a Swizzle
//   dequantize_int8, dequantize_int4  Dequantize
//   dequant_reduce_quant_int4          DequantReduceQuant
//   dequant_reduce_int4                DequantReduce
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/format.h"
#include "model/status.h"

namespace zerosim::kernels {

// Codes and scales of `elements` values.
struct Quantized {
  int64_t elements = 0;
  std::vector<uint8_t> codes;  // CodeBytes(elements, bits) bytes
  std::vector<float> scales;   // NumGroups(elements, group_size) scales
};

// Ok if `q` has the sizes `spec` gives for q.elements.
Status CheckQuantized(const Quantized& q, const QuantSpec& spec);

// Ok if `inputs` are k >= 1 valid chunks of the same length (the reduce kernels' inputs).
Status CheckReduceInputs(const std::vector<Quantized>& inputs, const QuantSpec& spec);

// The code of element `index` (format.h layout).
int CodeAt(const std::vector<uint8_t>& codes, int64_t index, int bits);
// Stores `code` (in [-qmax, qmax]) as element `index`, leaving the other nibble of an int4 byte alone.
void SetCodeAt(std::vector<uint8_t>& codes, int64_t index, int bits, int code);

// fp32 stages, composed by the kernels below and by the tests.
StatusOr<Quantized> QuantizeFloats(const std::vector<float>& values, const QuantSpec& spec,
                                   const Swizzle& swizzle = {});
StatusOr<std::vector<float>> DequantizeToFloats(const Quantized& q, const QuantSpec& spec);

// fp16/bf16 values (bit patterns of spec.type) -> codes and scales. With a Swizzle (CheckSwizzle must
// pass), groups are stored in qgZ's swizzled order.
StatusOr<Quantized> Quantize(const std::vector<uint16_t>& values, const QuantSpec& spec,
                             const Swizzle& swizzle = {});

// Codes and scales -> fp16/bf16 values.
StatusOr<std::vector<uint16_t>> Dequantize(const Quantized& q, const QuantSpec& spec);

// qgZ between the hops: k = inputs.size() chunks of the same length -> per element the fp32 sum of their
// dequantized values (chunk order) -> quantized again with `spec`. Fused: no fp16 intermediate.
StatusOr<Quantized> DequantReduceQuant(const std::vector<Quantized>& inputs, const QuantSpec& spec);

// qgZ's final step: k chunks -> fp32 sum (chunk order) -> divided by k (one correctly rounded division)
// -> fp16/bf16.
StatusOr<std::vector<uint16_t>> DequantReduce(const std::vector<Quantized>& inputs, const QuantSpec& spec);

}  // namespace zerosim::kernels
