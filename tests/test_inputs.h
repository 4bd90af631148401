// Input files as strings, shared by the tests that parse them (ninja's ParserTest style): a small
// cluster (4 nodes x 8 GPUs, 2 x 100 Gbps NICs), a tiny GPT, a derived calibration and a scenario
// comparing ZeRO-3 with ZeRO++ on them (files t.toml, m.toml, c.json). Line numbers in
// these texts are part of the loaders' tests (their messages name file:line).
#pragma once

#include <map>
#include <string>

namespace zerosim::testing {

inline const char* kTopology = R"(name = "test cluster"
nodes = 4
gpus_per_node = 8

[gpu]
name = "G"
peak_flops = "100TFLOPs"
hbm = "32GiB"
hbm_bandwidth = "900GBps"
sms = 80
compute_capability = 7.0
calibration = "c.json"

[intra_node]
fabric = "nvswitch"
bandwidth = "150GBps"

[nic]
count = 2
bandwidth = "100Gbps"

[fabric]
kind = "single_switch"
)";

inline const char* kModel = R"(name = "tiny"
source = "test"
layers = 2
hidden = 256
heads = 4
ffn_hidden = 1024
vocab = 1000
max_position_embeddings = 512
tied_embeddings = true
dtype = "fp16"
)";

inline std::string Calibration() {
  std::string kernels;
  for (const char* k : {"quantize_int8", "dequantize_int8", "quantize_int4", "dequantize_int4", "swizzle_quantize_int4",
                        "dequant_reduce_quant_int4", "dequant_reduce_int4"}) {
    if (!kernels.empty()) kernels += ",\n";
    kernels += std::string("    \"") + k + "\": {\"alpha_s\": 4e-6, \"beta_Bps\": 7e11}";
  }
  return "{\n  \"format\": \"zerosim-calibration-1\",\n  \"gpu\": \"G\",\n  \"source\": \"derived\",\n"
         "  \"provenance\": \"test\",\n  \"copy_bandwidth_Bps\": 8e11,\n"
         "  \"gemm_efficiency\": {\"gemm\": 0.5, \"attention_forward\": 0.4, \"attention_backward\": 0.35, "
         "\"kernel_gap_s\": 0, \"source\": \"test\"},\n"
         "  \"kernels\": {\n" + kernels + "\n  }\n}\n";
}

inline const char* kScenario = R"(name = "test"
topology = "t.toml"
model = "m.toml"

[training]
seq_len = 512
tokens_per_gpu = 1024
activation_checkpointing = true

[zero]
stage = 3

[[variant]]
name = "ZeRO-3"

[[variant]]
name = "ZeRO++"
zero_quantized_weights = true
zero_hpz_partition_size = 8
zero_quantized_gradients = true
)";

// The shared inputs as files by name: s.toml (`scenario`, kScenario unless given), t.toml (kTopology),
// m.toml (kModel) and c.json (Calibration()).
inline std::map<std::string, std::string> InputFiles(const std::string& scenario = kScenario) {
  return {{"s.toml", scenario}, {"t.toml", kTopology}, {"m.toml", kModel}, {"c.json", Calibration()}};
}

}  // namespace zerosim::testing
