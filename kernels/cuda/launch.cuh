// Launchers of the CUDA quantization kernels on device buffers (formats: kernels/format.h; results equal
// kernels/reference.h bit for bit). Asynchronous on `stream`; they return cudaErrorInvalidValue for
// arguments the format does not allow (CheckSpec, CheckSwizzle) and otherwise the launch's error.
// Buffers: values are `elements` 16-bit values, codes CodeBytes(elements, bits) bytes, scales
// NumGroups(elements, group_size) floats; reduce inputs are `fan_in` such chunks back to back.
// Any alignment works; 16-byte aligned buffers with group sizes and chunk lengths that are multiples of 8
// take the vectorized path.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/format.h"

namespace zerosim::kernels::cuda {

// quantize_int8 / quantize_int4, and swizzle_quantize_int4 with a Swizzle other than {1, 1}.
cudaError_t LaunchQuantize(const uint16_t* values, int64_t elements, const QuantSpec& spec,
                           const Swizzle& swizzle, uint8_t* codes, float* scales, cudaStream_t stream);

// dequantize_int8 / dequantize_int4.
cudaError_t LaunchDequantize(const uint8_t* codes, const float* scales, int64_t elements,
                             const QuantSpec& spec, uint16_t* values, cudaStream_t stream);

// dequant_reduce_quant_int4: `fan_in` chunks of `chunk_elements` -> sum -> codes and scales of one chunk.
cudaError_t LaunchDequantReduceQuant(const uint8_t* codes, const float* scales, int fan_in,
                                     int64_t chunk_elements, const QuantSpec& spec, uint8_t* out_codes,
                                     float* out_scales, cudaStream_t stream);

// dequant_reduce_int4: `fan_in` chunks -> sum / fan_in -> `chunk_elements` values.
cudaError_t LaunchDequantReduce(const uint8_t* codes, const float* scales, int fan_in, int64_t chunk_elements,
                                const QuantSpec& spec, uint16_t* values, cudaStream_t stream);

// The kernels' fp16/bf16 conversions, elementwise (tests).
cudaError_t LaunchToFloats(const uint16_t* bits, int64_t count, ValueType type, float* out,
                           cudaStream_t stream);
cudaError_t LaunchFromFloats(const float* values, int64_t count, ValueType type, uint16_t* out,
                             cudaStream_t stream);

}  // namespace zerosim::kernels::cuda
