#include "kernels/reference.h"

#include <algorithm>
#include <string>

#include "kernels/half.h"
#include "kernels/quant_math.h"

namespace zerosim::kernels {
namespace {

// Quantizes the `length` values at `x` (one group) into group `out_group` of `q`.
void QuantizeGroup(const float* x, int64_t length, int64_t out_group, const QuantSpec& spec, Quantized& q) {
  float absmax = 0;
  for (int64_t i = 0; i < length; ++i) absmax = MaxMagnitude(absmax, AbsF(x[i]));
  const GroupScale s = ScaleForAbsMax(absmax, spec.bits);
  const int qmax = MaxCode(spec.bits);
  q.scales[static_cast<size_t>(out_group)] = s.scale;
  const int64_t out_begin = out_group * spec.group_size;
  for (int64_t i = 0; i < length; ++i) {
    SetCodeAt(q.codes, out_begin + i, spec.bits, QuantizeValue(x[i], s.inv_scale, qmax));
  }
}

Quantized EmptyQuantized(int64_t elements, const QuantSpec& spec) {
  Quantized q;
  q.elements = elements;
  q.codes.assign(static_cast<size_t>(CodeBytes(elements, spec.bits)), 0);
  q.scales.assign(static_cast<size_t>(NumGroups(elements, spec.group_size)), 0.0f);
  return q;
}

// acc[i] = sum over chunks of the dequantized values of elements [begin, begin + length), chunk order.
void SumGroup(const std::vector<Quantized>& inputs, int64_t begin, int64_t length, const QuantSpec& spec,
              float* acc) {
  std::fill(acc, acc + length, 0.0f);
  const auto group = static_cast<size_t>(begin / spec.group_size);
  for (const Quantized& in : inputs) {
    for (int64_t i = 0; i < length; ++i) {
      acc[i] = AddRn(acc[i], DequantizeValue(CodeAt(in.codes, begin + i, spec.bits), in.scales[group]));
    }
  }
}

}  // namespace

Status CheckQuantized(const Quantized& q, const QuantSpec& spec) {
  if (Status s = CheckSpec(spec); !s.ok()) return s;
  if (q.elements < 0 || q.codes.size() != static_cast<size_t>(CodeBytes(q.elements, spec.bits)) ||
      q.scales.size() != static_cast<size_t>(NumGroups(q.elements, spec.group_size))) {
    return Status::Error("quantized buffer of " + std::to_string(q.elements) + " elements has " +
                         std::to_string(q.codes.size()) + " code bytes and " +
                         std::to_string(q.scales.size()) + " scales");
  }
  return Status::Ok();
}

Status CheckReduceInputs(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  if (inputs.empty()) return Status::Error("a reduce needs at least one input");
  for (const Quantized& in : inputs) {
    if (Status s = CheckQuantized(in, spec); !s.ok()) return s;
    if (in.elements != inputs[0].elements) return Status::Error("reduce inputs differ in length");
  }
  return Status::Ok();
}

int CodeAt(const std::vector<uint8_t>& codes, int64_t index, int bits) {
  if (bits == 8) return Int8Code(codes[static_cast<size_t>(index)]);
  const uint8_t byte = codes[static_cast<size_t>(index / 2)];
  return index % 2 == 0 ? LowNibble(byte) : HighNibble(byte);
}

void SetCodeAt(std::vector<uint8_t>& codes, int64_t index, int bits, int code) {
  if (bits == 8) {
    codes[static_cast<size_t>(index)] = Int8Byte(code);
    return;
  }
  uint8_t& byte = codes[static_cast<size_t>(index / 2)];
  byte = index % 2 == 0 ? PackNibbles(code, HighNibble(byte)) : PackNibbles(LowNibble(byte), code);
}

StatusOr<Quantized> QuantizeFloats(const std::vector<float>& values, const QuantSpec& spec,
                                   const Swizzle& swizzle) {
  const auto n = static_cast<int64_t>(values.size());
  if (Status s = CheckSpec(spec); !s.ok()) return s;
  if (Status s = CheckSwizzle(swizzle, n, spec); !s.ok()) return s;
  Quantized q = EmptyQuantized(n, spec);
  const int64_t partition = n / (static_cast<int64_t>(swizzle.nodes) * swizzle.gpus_per_node);
  const int64_t groups_per_partition = std::max<int64_t>(1, NumGroups(partition, spec.group_size));
  for (int64_t g = 0; g < NumGroups(n, spec.group_size); ++g) {
    const int64_t begin = g * spec.group_size;
    const int64_t out = SwizzledGroup(g, groups_per_partition, swizzle.nodes, swizzle.gpus_per_node);
    QuantizeGroup(values.data() + begin, std::min(spec.group_size, n - begin), out, spec, q);
  }
  return q;
}

StatusOr<std::vector<float>> DequantizeToFloats(const Quantized& q, const QuantSpec& spec) {
  if (Status s = CheckQuantized(q, spec); !s.ok()) return s;
  std::vector<float> out(static_cast<size_t>(q.elements));
  for (int64_t i = 0; i < q.elements; ++i) {
    out[static_cast<size_t>(i)] =
        DequantizeValue(CodeAt(q.codes, i, spec.bits), q.scales[static_cast<size_t>(i / spec.group_size)]);
  }
  return out;
}

StatusOr<Quantized> Quantize(const std::vector<uint16_t>& values, const QuantSpec& spec,
                             const Swizzle& swizzle) {
  std::vector<float> x(values.size());
  for (size_t i = 0; i < values.size(); ++i) x[i] = ToFloat(values[i], spec.type);
  return QuantizeFloats(x, spec, swizzle);
}

StatusOr<std::vector<uint16_t>> Dequantize(const Quantized& q, const QuantSpec& spec) {
  StatusOr<std::vector<float>> x = DequantizeToFloats(q, spec);
  if (!x.ok()) return x.status();
  std::vector<uint16_t> out(x->size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = FromFloat((*x)[i], spec.type);
  return out;
}

StatusOr<Quantized> DequantReduceQuant(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  if (Status s = CheckReduceInputs(inputs, spec); !s.ok()) return s;
  const int64_t n = inputs[0].elements;
  Quantized q = EmptyQuantized(n, spec);
  std::vector<float> acc(static_cast<size_t>(spec.group_size));
  for (int64_t g = 0; g < NumGroups(n, spec.group_size); ++g) {
    const int64_t begin = g * spec.group_size;
    const int64_t length = std::min(spec.group_size, n - begin);
    SumGroup(inputs, begin, length, spec, acc.data());
    QuantizeGroup(acc.data(), length, g, spec, q);
  }
  return q;
}

StatusOr<std::vector<uint16_t>> DequantReduce(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  if (Status s = CheckReduceInputs(inputs, spec); !s.ok()) return s;
  const int64_t n = inputs[0].elements;
  const auto fan_in = static_cast<float>(inputs.size());
  std::vector<uint16_t> out(static_cast<size_t>(n));
  std::vector<float> acc(static_cast<size_t>(spec.group_size));
  for (int64_t g = 0; g < NumGroups(n, spec.group_size); ++g) {
    const int64_t begin = g * spec.group_size;
    const int64_t length = std::min(spec.group_size, n - begin);
    SumGroup(inputs, begin, length, spec, acc.data());
    for (int64_t i = 0; i < length; ++i) {
      out[static_cast<size_t>(begin + i)] = FromFloat(DivRn(acc[static_cast<size_t>(i)], fan_in), spec.type);
    }
  }
  return out;
}

}  // namespace zerosim::kernels
