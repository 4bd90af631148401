// The CUDA kernels behind host buffers: each call copies its inputs to the device, fills the output buffers
// (and a guard zone past their end) with 0xFF, launches, checks the guard zone and copies the outputs back.
// Same signatures and results as reference.h, bit for bit; meant for tests, not for speed (the device-
// pointer launchers are cuda/launch.cuh).
//
// Without CUDA (no nvcc at configure time) or without a device, every call returns an error saying which;
// DeviceStatus() says it up front.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/format.h"
#include "kernels/reference.h"
#include "model/status.h"

namespace zerosim::kernels::gpu {

// True when this build has the CUDA kernels (ZEROSIM_HAVE_CUDA).
bool BuiltWithCuda();

// Ok when a CUDA device can run the kernels; otherwise why not ("built without CUDA ...", "no CUDA
// device: ...").
Status DeviceStatus();

// The device's name, e.g. "NVIDIA H200"; empty when DeviceStatus() is not ok.
std::string DeviceName();

StatusOr<Quantized> Quantize(const std::vector<uint16_t>& values, const QuantSpec& spec,
                             const Swizzle& swizzle = {});
StatusOr<std::vector<uint16_t>> Dequantize(const Quantized& q, const QuantSpec& spec);
StatusOr<Quantized> DequantReduceQuant(const std::vector<Quantized>& inputs, const QuantSpec& spec);
StatusOr<std::vector<uint16_t>> DequantReduce(const std::vector<Quantized>& inputs, const QuantSpec& spec);

// The device's fp16/bf16 conversions as the kernels use them, to compare with half.h.
StatusOr<std::vector<float>> ToFloats(const std::vector<uint16_t>& bits, ValueType type);
StatusOr<std::vector<uint16_t>> FromFloats(const std::vector<float>& values, ValueType type);

}  // namespace zerosim::kernels::gpu
