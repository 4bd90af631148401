#include "property/property_draw.h"

#include <fmt/format.h>

#include <initializer_list>
#include <vector>

#include "model/io/file_source.h"
#include "model/status.h"

namespace zerosim::testing {
namespace {

// SplitMix64 (Steele, Lea and Flood 2014): the same numbers on every platform and standard library, unlike
// std::uniform_int_distribution.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }
  bool Coin() { return Below(2) == 1; }
  template <typename T>
  T Pick(std::initializer_list<T> values) {
    return values.begin()[Below(static_cast<int>(values.size()))];
  }
  template <typename T>
  T Pick(const std::vector<T>& values) {
    return values[Below(static_cast<int>(values.size()))];
  }

 private:
  uint64_t state_;
};

// A GPU as the shipped topologies describe it (datasheet values; topologies/*.toml) with its shipped
// calibration file.
struct Gpu {
  const char* name;
  const char* peak;
  const char* fp8_peak;  // "" without FP8 tensor cores
  const char* hbm;
  const char* hbm_bandwidth;
  int sms;
  const char* calibration;  // kernels/calibration/<file>
  const char* dtype;        // the model's: V100 has no bf16
};

constexpr Gpu kGpus[] = {
    {"V100-SXM3-32GB", "125TFLOPs", "", "32GiB", "900GBps", 80, "v100.json", "fp16"},
    {"A100-SXM4-80GB", "312TFLOPs", "", "81920MiB", "2039GBps", 108, "a100.json", "bf16"},
    {"H100-SXM5-80GB", "989TFLOPs", "1979TFLOPs", "81559MiB", "3350GBps", 132, "h100.json", "bf16"},
    {"B200-SXM-180GB", "2250TFLOPs", "4500TFLOPs", "183359MiB", "8TBps", 148, "b200.json", "bf16"},
};

const std::string& ShippedCalibration(const std::string& file) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    const io::DiskFileSource disk;
    StatusOr<std::string> text = disk.Read(std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/" + file);
    it = cache.emplace(file, text.ok() ? std::move(text).value() : std::string()).first;
  }
  return it->second;
}

// Divisors of n among `options`.
std::vector<int> Dividing(int n, std::initializer_list<int> options) {
  std::vector<int> out;
  for (int o : options) {
    if (o >= 1 && n % o == 0) out.push_back(o);
  }
  return out;
}

}  // namespace

DrawnCase DrawCase(uint64_t seed, int index) {
  Rng rng(seed * 0x2545f4914f6cdd1dULL + static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ULL + 1);
  const Gpu& gpu = kGpus[rng.Below(4)];
  const int gpus_per_node = rng.Pick({4, 8, 8, 16});
  const int nodes = rng.Pick({1, 2, 2, 4, 4, 8});
  const int nics = rng.Pick(Dividing(gpus_per_node, {1, 2, 4, 8}));
  const int nic_gbps = rng.Pick({100, 200, 400, 800});
  const int nvlink_GBps = rng.Pick({150, 300, 450, 900});
  const char* release = rng.Pick({"2.8", "2.18.5", "2.27.5"});
  DrawnCase out;
  std::string fabric;
  switch (rng.Below(4)) {
    case 0:
    case 1:
      fabric = "kind = \"single_switch\"\n";
      out.single_switch = true;
      break;
    case 2: {
      const int leaf = rng.Pick(Dividing(nodes, {1, 2, 4}));
      fabric = fmt::format("kind = \"fat_tree\"\nnodes_per_leaf = {}\noversubscription = {}\n", leaf,
                           rng.Pick({1, 2, 4}));
      if (nodes / leaf >= 2 && nodes % (2 * leaf) == 0 && rng.Coin()) {
        fabric += fmt::format("leaves_per_pod = 2\npod_oversubscription = {}\n", rng.Pick({1, 2}));
      }
      break;
    }
    default:
      fabric = "kind = \"rail_optimized\"\n";
  }
  std::string topology = fmt::format(
      "name = \"property\"\nnodes = {}\ngpus_per_node = {}\n\n[gpu]\nname = \"{}\"\npeak_flops = \"{}\"\n",
      nodes, gpus_per_node, gpu.name, gpu.peak);
  if (gpu.fp8_peak[0] != '\0') topology += fmt::format("fp8_peak_flops = \"{}\"\n", gpu.fp8_peak);
  topology += fmt::format(
      "hbm = \"{}\"\nhbm_bandwidth = \"{}\"\nsms = {}\ncalibration = \"calibration/{}\"\n\n"
      "[intra_node]\nfabric = \"nvswitch\"\nbandwidth = \"{}GBps\"\n\n[nic]\ncount = {}\nbandwidth = "
      "\"{}Gbps\"\n\n"
      "[fabric]\n{}\n[nccl]\nrelease = \"{}\"\n",
      gpu.hbm, gpu.hbm_bandwidth, gpu.sms, gpu.calibration, nvlink_GBps, nics, nic_gbps, fabric, release);

  // The model: small enough that a schedule builds in milliseconds, wide enough that its collectives span
  // NCCL's latency- and bandwidth-bound sizes.
  const int layers = rng.Pick({2, 4, 8});
  const int hidden = rng.Pick({512, 1024, 2048, 4096});
  const int heads = rng.Pick({8, 16, 32});
  std::string model = fmt::format(
      "name = \"m\"\nsource = \"property test\"\nlayers = {}\nhidden = {}\nheads = {}\nffn_hidden = {}\n"
      "vocab = {}\nmax_position_embeddings = 4096\ntied_embeddings = {}\ndtype = \"{}\"\n",
      layers, hidden, heads, 4 * hidden, rng.Pick({1000, 32000, 50257}), rng.Coin() ? "true" : "false",
      gpu.dtype);

  // The layout, then a strategy that models it (docs/inputs.md, `[parallel]`).
  const int gpus = nodes * gpus_per_node;
  enum Layout { kData, kTensor, kSequence, kPipeline, kInterleaved, kTensorPipeline };
  const Layout layout = static_cast<Layout>(rng.Below(6));
  const std::vector<int> tensors = Dividing(gpus_per_node, {2, 4, 8});
  int t = 1;
  int p = 1;
  int v = 1;
  bool sp = false;
  if (layout == kTensor || layout == kSequence || layout == kTensorPipeline) t = rng.Pick(tensors);
  if (layout == kSequence) sp = true;
  if (layout == kPipeline || layout == kInterleaved || layout == kTensorPipeline) {
    p = rng.Pick(Dividing(nodes, {2, 4}).empty() ? std::vector<int>{2} : Dividing(nodes, {2, 4}));
  }
  if (layout == kInterleaved) v = 2;
  std::string strategy;
  if (p > 1) {
    strategy = rng.Pick({"zero1", "fsdp2"});
  } else if (t > 1) {
    strategy = rng.Pick(
        {"zero1", "zero2", "zero3", "fsdp_full_shard", "fsdp_shard_grad_op", "fsdp_no_shard", "fsdp2"});
  } else {
    strategy = rng.Pick({"zero1", "zero2", "zero3", "zero3", "mics", "fsdp_full_shard", "fsdp_shard_grad_op",
                         "fsdp_no_shard", "fsdp_hybrid_shard", "fsdp2"});
  }
  const int accumulation = v > 1 ? p * rng.Pick({1, 2}) : p > 1 ? rng.Pick({2, 4, 8}) : rng.Pick({1, 2});
  const int seq_len = rng.Pick({512, 1024, 2048});
  std::string scenario = fmt::format(
      "name = \"property\"\ntopology = \"t.toml\"\nmodel = \"m.toml\"\n\n[training]\nseq_len = {}\n"
      "train_micro_batch_size_per_gpu = {}\ngradient_accumulation_steps = {}\nactivation_checkpointing = "
      "{}\n\n"
      "[zero]\nstrategy = \"{}\"\n",
      seq_len, rng.Pick({1, 2, 4}), accumulation, rng.Coin() ? "true" : "false", strategy);
  if (strategy == "zero3" && t == 1) {
    if (rng.Coin()) scenario += "zero_quantized_weights = true\n";
    if (rng.Coin()) scenario += fmt::format("zero_hpz_partition_size = {}\n", gpus_per_node);
    if (nodes > 1 && rng.Coin()) scenario += "zero_quantized_gradients = true\n";
  }
  if (strategy == "mics") {
    scenario += fmt::format("mics_shard_size = {}\n", rng.Pick(Dividing(gpus, {2, 4, 8, 16})));
  }
  if (strategy == "fsdp_hybrid_shard") {
    scenario += fmt::format("hsdp_shard_size = {}\n", rng.Pick(Dividing(gpus, {2, 4, 8, 16})));
  }
  // TP communication overlap on every other sequence-parallel case (from the index, not the generator, so that
  // the draws of the cases stay as they were).
  const bool overlap = sp && index % 2 == 0;
  scenario += fmt::format("\n[parallel]\ntensor = {}\nsequence_parallel = {}\ntp_comm_overlap = {}\npipeline = {}\n",
                          t, sp ? "true" : "false", overlap ? "true" : "false", p);
  // A mixture-of-experts model on every third case of tensor 1 (from the index, not the generator, so that the
  // draws stay as they were): 8 or 16 experts of the model's width, 2 per token; under zero1 and zero2 with
  // expert parallelism, the largest e of 2, 4, 8 dividing the experts and the data-parallel size.
  std::string moe;
  int expert = 1;
  if (index % 3 == 1 && t == 1) {
    const int experts = index % 2 == 0 ? 8 : 16;
    moe = fmt::format("experts = {}\nexperts_per_token = 2\nmoe_ffn_hidden = {}\n", experts, hidden);
    if (strategy == "zero1" || strategy == "zero2") {
      for (int e : {2, 4, 8}) {
        if (experts % e == 0 && (gpus / p) % e == 0) expert = e;
      }
    }
    scenario += fmt::format("expert = {}\n", expert);
    if (index % 6 == 1) scenario += "expert_load_imbalance = 1.5\n";
    // The allgather dispatcher on every other expert-parallel case of these (index % 12 == 4, 10).
    if (expert > 1 && index % 6 == 4) scenario += "moe_token_dispatcher_type = \"allgather\"\n";
  }
  // And beside tensor parallelism with sequence parallelism under zero1 and zero2, the expert grid folded
  // (expert_tensor = 1): the largest e of 2 ... 16 dividing the experts and a stage's ranks.
  bool folded = false;
  if (index % 3 == 1 && t > 1 && sp && (strategy == "zero1" || strategy == "zero2")) {
    const int experts = index % 2 == 0 ? 8 : 16;
    moe = fmt::format("experts = {}\nexperts_per_token = 2\nmoe_ffn_hidden = {}\n", experts, hidden);
    for (int e : {2, 4, 8, 16}) {
      if (experts % e == 0 && (gpus / p) % e == 0) expert = e;
    }
    folded = expert > 1;
    scenario += fmt::format("expert = {}\nexpert_tensor = 1\n", expert);
  }
  // Context parallelism on every third case of a dense model (from the index, as above) whose strategy has no
  // shard groups of its own: the largest c of 2, 4 dividing the data-parallel size, FlashAttention.
  int context = 1;
  const bool shard_groups = strategy == "mics" || strategy == "fsdp_hybrid_shard" ||
                            scenario.find("zero_hpz_partition_size") != std::string::npos ||
                            scenario.find("zero_quantized_gradients") != std::string::npos;
  if (index % 3 == 2 && moe.empty() && !shard_groups) {
    for (int c : {2, 4}) {
      if ((gpus / (t * p)) % c == 0 && (seq_len / c) % t == 0) context = c;
    }
    if (context > 1) {
      scenario += fmt::format("context = {}\n", context);
      // Ulysses' all-to-alls on every other such case where the heads split over t c.
      if (index % 2 == 0 && (heads / t) % context == 0) {
        scenario += "context_comm = \"a2a\"\n";
      } else if (index % 4 == 1) {
        scenario += "context_comm = \"all_gather\"\n";  // PyTorch's rotation (torchtitan)
      }
      scenario.replace(scenario.find("\n[zero]"), 0, "attention = \"flash\"\n");
    }
  }
  if (v > 1) scenario += fmt::format("virtual_stages = {}\nschedule = \"interleaved_1f1b\"\n", v);
  if (p > 1 && v == 1) scenario += fmt::format("schedule = \"{}\"\n", rng.Pick({"1f1b", "gpipe"}));
  // The embedding and the loss counted in the split (model/spec/pipeline_split.h) on every fourth pipelined
  // case whose chunks hold two layers or more (from the index, as above): the model has two layers fewer, the
  // first and the last chunk one each.
  const bool counted = p > 1 && index % 4 == 3 && layers % (p * v) == 0 && layers / (p * v) >= 2;
  if (counted) {
    scenario += "account_for_embedding_in_pipeline_split = true\naccount_for_loss_in_pipeline_split = true\n";
    const std::string written = fmt::format("layers = {}\n", layers);
    model.replace(model.find(written), written.size(), fmt::format("layers = {}\n", layers - 2));
  }
  // The end stages' layers given (num_layers_in_first/last_pipeline_stage) on every eighth pipelined case of
  // one chunk per stage with two layers or more a stage: one fewer first, one more last, the rest as before.
  const bool given = !counted && p > 1 && v == 1 && index % 8 == 5 && layers % p == 0 && layers / p >= 2;
  if (given) {
    scenario +=
        fmt::format("num_layers_in_first_pipeline_stage = {}\nnum_layers_in_last_pipeline_stage = {}\n",
                    layers / p - 1, layers / p + 1);
  }
  scenario += "\n[[variant]]\nname = \"v\"\n";

  out.label = fmt::format(
      "case {}: {} x {} {}, {} x {} Gbps, NVLink {} GB/s, NCCL {}, {}; {} L{} h{}, t={}{}{} p={} v={}", index,
      nodes, gpus_per_node, gpu.name, nics, nic_gbps, nvlink_GBps, release,
      fabric.substr(8, fabric.find('"', 8) - 8), strategy, layers, hidden, t, sp ? " sp" : "",
      overlap ? " overlap" : "", p, v);
  if (!moe.empty()) out.label += fmt::format(" moe e={}{}", expert, folded ? " etp1" : "");
  if (context > 1) out.label += fmt::format(" cp={}", context);
  if (counted) out.label += fmt::format(" split+E+L (L{})", layers - 2);
  if (given) out.label += fmt::format(" first {} last {}", layers / p - 1, layers / p + 1);
  out.files = {{"s.toml", scenario},
               {"t.toml", topology},
               {"m.toml", model + moe},
               {std::string("calibration/") + gpu.calibration, ShippedCalibration(gpu.calibration)}};
  return out;
}

}  // namespace zerosim::testing
