#include "kernels/format.h"

#include <string>

namespace zerosim::kernels {

const char* ValueTypeName(ValueType type) { return type == ValueType::kFp16 ? "fp16" : "bf16"; }

Status CheckSpec(const QuantSpec& spec) {
  if (spec.bits != 8 && spec.bits != 4) {
    return Status::Error("quantization bits must be 8 or 4, not " + std::to_string(spec.bits));
  }
  if (spec.group_size < 2 || spec.group_size % 2 != 0) {
    return Status::Error("group size must be even and at least 2, not " + std::to_string(spec.group_size));
  }
  return Status::Ok();
}

Status CheckSwizzle(const Swizzle& swizzle, int64_t elements, const QuantSpec& spec) {
  if (swizzle.nodes < 1 || swizzle.gpus_per_node < 1)
    return Status::Error("swizzle needs nodes, GPUs per node >= 1");
  const int64_t partitions = static_cast<int64_t>(swizzle.nodes) * swizzle.gpus_per_node;
  if (partitions == 1) return Status::Ok();
  if (elements % partitions != 0 || (elements / partitions) % spec.group_size != 0) {
    return Status::Error("swizzled quantization needs " + std::to_string(elements) +
                         " elements to split into " + std::to_string(partitions) +
                         " partitions of whole groups of " + std::to_string(spec.group_size));
  }
  return Status::Ok();
}

}  // namespace zerosim::kernels
