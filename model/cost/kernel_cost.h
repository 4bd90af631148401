// Byte counts and times of the quantization kernels (the contract kernels/ implements and measures).
// Bytes are the fewest a kernel must move through device memory (../shared/reference/zeropp.md,
// "Kernel facts"), with 2-byte fp16/bf16 values, b-bit codes and one fp32 scale per group of g elements:
//   quantize, dequantize, swizzled quantize:      2 + b/8 + 4/g        per element
//   k-way dequantize-reduce-requantize (int4):   (k + 1) * (b/8 + 4/g) per output element
//   k-way dequantize-reduce to fp16 (final):     k * (b/8 + 4/g) + 2   per output element
#pragma once

#include "model/spec/calibration.h"

namespace zerosim::model {

// Bytes moved by one call of `kernel` producing/consuming `elements` values (output elements for the
// reduce kernels) with `bits`-bit codes, groups of `group_size` elements and `fan_in` inputs (reduce
// kernels only; ignored otherwise).
double KernelBytes(Kernel kernel, double elements, int bits, double group_size, int fan_in);

// t = alpha + bytes / beta from the calibration's fit for `kernel`.
double KernelTime(const Calibration& cal, Kernel kernel, double bytes);

// Time of a memory-bound elementwise pass over `bytes` (read + write counted) at the calibration's
// device-to-device copy bandwidth.
double MemoryTime(const Calibration& cal, double bytes);

}  // namespace zerosim::model
