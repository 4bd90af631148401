// In-memory inputs for tests (no files): the ZeRO++ paper's cluster and models, a calibration, and
// model::Validate against it.
#pragma once

#include "model/placement/placement.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/validate.h"
#include "model/spec/zero_config.h"

namespace zerosim::testing {

// The placement of collective `s` by itself on `c` (tensor size `tensor`): the grid whose group of its kind
// has its size (placement.h PlacementOfGroup), for tests that place one collective outside its schedule.
inline model::Placement PlacementFor(const model::CollectiveSpec& s, const model::ClusterSpec& c,
                                     int tensor = 1) {
  return model::PlacementOfGroup(c, s.group, s.group_size, tensor);
}

// 24 x 16 V100 (or `nodes` x `gpus_per_node`), NVSwitch 150 GB/s per GPU, `nics` x 100 Gbps per node.
inline model::ClusterSpec PaperCluster(int nics = 1, int nodes = 24, int gpus_per_node = 16) {
  model::ClusterSpec c;
  c.name = "paper";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.gpu = {"V100", 125e12, 32.0 * 1024 * 1024 * 1024, 900e9, 80};
  c.intra.fabric = model::IntraFabric::kNvSwitch;
  c.intra.bandwidth_Bps = 150e9;
  c.nic = {nics, 100e9 / 8};
  c.fabric.kind = model::FabricKind::kSingleSwitch;
  return c;
}

// A GPT model of `layers` x `hidden` with the paper's vocabulary; ffn 4h, 2048 positions, seq 2048.
inline model::ModelSpec Gpt(int layers, int hidden, int heads) {
  model::ModelSpec m;
  m.name = "gpt";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = 50257;
  m.max_position_embeddings = 2048;
  m.seq_len = 2048;
  return m;
}

inline model::ModelSpec Gpt18B() { return Gpt(40, 6144, 32); }

inline model::ZeroConfig ZeroPlusPlus(int hpz = 16) {
  model::ZeroConfig z;
  z.zero_quantized_weights = true;
  z.zero_hpz_partition_size = hpz;
  z.zero_quantized_gradients = true;
  return z;
}

// A calibration with round numbers (not a real GPU's).
inline model::Calibration TestCalibration() {
  model::Calibration cal;
  cal.gpu = "test";
  cal.source = "derived";
  cal.copy_Bps = 800e9;
  for (auto& k : cal.kernels) k.fit = {4e-6, 700e9};
  cal.compute.gemm = 0.5;
  cal.compute.attention_forward = 0.4;
  cal.compute.attention_backward = 0.35;
  cal.compute.kernel_gap_s = 0.0;
  cal.compute.source = "test";
  cal.compute.fp8_gemm = 0.6;
  cal.compute.fp8_gemm_source = "test";
  cal.compute.attention_v1_forward = 0.3;
  cal.compute.attention_v1_backward = 0.25;
  cal.compute.attention_v1_source = "test";
  return cal;
}

// model::Validate of configuration (m, z, c, layout l) against TestCalibration, with no perturbations and
// no RLHF phases.
inline std::vector<model::Problem> Validate(const model::ModelSpec& m, const model::ZeroConfig& z,
                                            const model::ClusterSpec& c,
                                            const model::ParallelLayout& l = {}) {
  static const model::Calibration cal = TestCalibration();
  return model::Validate({.model = m, .zero = z, .cluster = c, .calibration = cal, .layout = l});
}

}  // namespace zerosim::testing
