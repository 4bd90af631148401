// A randomized property test over every strategy (issue 20, items 12, 17 and 18): configurations drawn at
// random from a fixed seed (deterministic), across the nine strategies (zero1, zero2, zero3 with every ZeRO++
// switch, mics, the four FSDP sharding strategies and FSDP2), launcher / CUDA_DEVICE_MAX_CONNECTIONS,
// precision, recompute policy and attention kind, on clusters of every fabric kind. A draw is either refused
// by model::Validate with a reason naming its key (an infeasible configuration is a result, never
// an error or a crash), or it evaluates in-process to a report that satisfies, besides the library's own
// CheckInvariants (model/report/invariants.h), each invariant rechecked here from the schedule:
//   - every number finite and >= 0; TFLOPs per GPU <= the GPU's peak (its FP8 peak with FP8 GEMMs);
//   - the iteration >= compute + optimizer, and >= every link tier's time: the bytes of every collective of
//     every queue through the tier's busiest link over the link's bandwidth (NICs, GPU ports, leaf uplinks),
//     a whole-cluster all-reduce at the bytes of the algorithm NCCL's tuner picks (ring, tree, NVLS and
//     NVLSTree are each drawn: the test fails if one never is);
//   - the parts sum to their totals (compute, exposed communication, memory), the bytes to the schedule's;
//   - a report that does not fit says why (feasible = false with a reason), one that fits gives none;
//   - more NIC bandwidth, or more NICs, never make the iteration longer (within kMonotoneTolerance);
//   - on small clusters, the sim engine (SimGrid) satisfies the same and stays within kEngineTolerance of the
//     analytic engine (sim/README.md, "How far apart the engines may be").
// The analytic draws are split over several tests so that ctest -j spreads them; each prints how many of its
// draws of each strategy were feasible.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "model/cost/collective_time.h"
#include "model/cost/nccl_allreduce.h"
#include "model/cost/placed_collectives.h"
#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "sim/sim_evaluate.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// A faster or wider network may shorten an iteration, or leave it (within this relative slack: a faster NIC
// can add NCCL channels whose CTAs hold SMs through a latency-bound collective, tests/model/
// bandwidth_monotone_test.cc), never lengthen it.
constexpr double kMonotoneTolerance = 1e-4;
// The engines' documented agreement (sim/README.md, "How far apart the engines may be"): |sim / analytic - 1|
// at most this on the small clusters drawn here.
constexpr double kEngineTolerance = 0.10;

struct Config {
  ModelSpec m;
  ZeroConfig z;
  ClusterSpec c;
};

template <typename T>
T Pick(std::mt19937_64& rng, std::initializer_list<T> values) {
  return values.begin()[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
}
double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

constexpr std::array<Strategy, kNumStrategies> kStrategies = {
    Strategy::kZero1,         Strategy::kZero2,       Strategy::kZero3,
    Strategy::kMics,          Strategy::kFsdpFullShard, Strategy::kFsdpShardGradOp,
    Strategy::kFsdpNoShard,   Strategy::kFsdpHybridShard, Strategy::kFsdp2};

// One random configuration (feasible or not). `small`: at most 4 nodes of at most 8 GPUs and 2 layers (the
// sim engine's draws).
Config Draw(std::mt19937_64& rng, bool small, int strategy = -1) {
  Config x;
  ClusterSpec& c = x.c;
  bool current_nccl = false;
  const int nodes = small ? Pick(rng, {1, 2, 4}) : Pick(rng, {1, 2, 3, 4, 8, 16});
  const int gpus = small ? Pick(rng, {1, 2, 4, 8}) : Pick(rng, {1, 2, 4, 6, 8, 16});
  // Mostly NICs that divide the node's GPUs into equal rails; sometimes any count (refused unless it does).
  int nics = Pick(rng, {0, 1, 2, 3, 4, 8});
  if (Pick(rng, {0, 1, 2, 3}) > 0) {
    nics = Pick(rng, {1, 2, 4, 8});
    while (gpus % nics != 0) nics /= 2;
  }
  c = testing::PaperCluster(nics, nodes, gpus);
  c.nic.bandwidth_Bps = Uniform(rng, 1e9, 1e11);
  c.intra.bandwidth_Bps = Uniform(rng, 1e10, 1e12);
  c.gpu.peak_flops = Uniform(rng, 1e13, 1e15);
  c.gpu.sms = Pick(rng, {1, 80, 132});
  if (Pick(rng, {0, 1}) == 1) {
    c.gpu.name = "H100-SXM5-80GB";  // Hopper: FP8 tensor cores
    c.gpu.fp8_peak_flops = 2 * c.gpu.peak_flops;
    // Sometimes a current NCCL (Hopper's channel counts, NVLS channels; the tuner's tree, NVLS and NVLSTree
    // for an all-reduce over the whole cluster: NO_SHARD, shard groups of one rank; set after the strategy).
    current_nccl = Pick(rng, {0, 1}) == 1;
  }
  c.gpu.hbm_bytes = Pick(rng, {0.25, 16.0, 80.0, 192.0}) * (1ull << 30);  // 0.25 GiB: some do not fit
  c.nccl.channels = Pick(rng, {0, 2, 16});
  switch (Pick(rng, {0, 1, 2})) {
    case 0:
      c.fabric.kind = FabricKind::kSingleSwitch;
      break;
    case 1:
      c.fabric.kind = FabricKind::kFatTree;
      c.fabric.nodes_per_leaf = Pick(rng, {1, 2, 3, 4});
      if (Pick(rng, {0, 1, 2, 3}) > 0) {
        while (nodes % c.fabric.nodes_per_leaf != 0) --c.fabric.nodes_per_leaf;
      }
      c.fabric.oversubscription = Uniform(rng, 1, 8);
      c.fabric.leaves_per_pod = Pick(rng, {0, 0, 2});
      break;
    default:
      c.fabric.kind = FabricKind::kRailOptimized;
      break;
  }
  ModelSpec& m = x.m;
  m = testing::Gpt(small ? Pick(rng, {1, 2}) : Pick(rng, {1, 2, 3, 4}),
                   small ? Pick(rng, {64, 128, 256, 384}) : Pick(rng, {64, 128, 256, 384, 1024, 2048}),
                   Pick(rng, {1, 2, 4, 8, 3}));
  m.vocab = Pick(rng, {100, 1000, 50257});
  m.seq_len = Pick(rng, {64, 128, 512, 1024});
  m.max_position_embeddings = Pick(rng, {128, 512, 1024, 1024});
  m.kv_heads = Pick(rng, {0, 0, 1});
  m.mlp = Pick(rng, {MlpKind::kGelu, MlpKind::kSwiglu});
  m.dtype = Pick(rng, {DType::kFp16, DType::kBf16});
  m.attention = Pick(rng, {AttentionImpl::kFlash, AttentionImpl::kUnfused, AttentionImpl::kFlashV1});
  ZeroConfig& z = x.z;
  z.strategy = kStrategies[std::uniform_int_distribution<size_t>(0, kStrategies.size() - 1)(rng)];
  if (strategy >= 0) z.strategy = kStrategies[static_cast<size_t>(strategy)];  // the caller's, in turn
  z.framework = FrameworkOf(z.strategy);
  if (z.strategy == Strategy::kZero3 || Pick(rng, {0, 0, 0, 1}) == 1) {  // ZeRO++ elsewhere: refused
    z.zero_quantized_weights = Pick(rng, {0, 1}) == 1;
    z.zero_quantized_gradients = Pick(rng, {0, 1}) == 1;
    z.zero_hpz_partition_size = Pick(rng, {1, 2, 3, 4, 8});
  }
  z.mics_shard_size = Pick(rng, {0, 1, 2, 4, 8, 16, 32});
  z.mics_hierarchical_params_gather = Pick(rng, {0, 1}) == 1;
  z.fsdp.hsdp_shard_size = Pick(rng, {0, 1, 2, 4, 8, 16, 32});
  if (current_nccl) {
    EXPECT_TRUE(NcclLibraryForRelease(Pick(rng, {0, 1}) == 1 ? "2.27.7" : "2.19.3", &c.nccl));
  }
  z.fsdp.limit_all_gathers = Pick(rng, {0, 1}) == 1;
  z.fsdp.forward_prefetch = Pick(rng, {0, 1}) == 1;
  z.fsdp.backward_prefetch = Pick(rng, {FsdpBackwardPrefetch::kNone, FsdpBackwardPrefetch::kBackwardPre,
                                        FsdpBackwardPrefetch::kBackwardPost});
  z.train_micro_batch_size_per_gpu = Pick(rng, {1, 2, 4});
  z.gradient_accumulation_steps = Pick(rng, {1, 2});
  // [training] recompute (model/io/zero_keys.cc): none, full, selective, offload.
  switch (Pick(rng, {0, 1, 2, 3})) {
    case 0:
      z.activation_checkpointing = false;
      z.recompute = RecomputePolicy::kNone;
      break;
    case 1:
      z.activation_checkpointing = true;
      z.recompute = RecomputePolicy::kNone;
      break;
    case 2:
      z.activation_checkpointing = false;
      z.recompute = RecomputePolicy::kSelective;
      break;
    default:
      z.activation_checkpointing = true;
      z.recompute = RecomputePolicy::kOffload;
      break;
  }
  z.reduce_bucket_size = Pick(rng, {1.0, 1000.0, 500000000.0});
  z.stage3_prefetch_bucket_size = Pick(rng, {0.0, 1000.0, 50000000.0});
  z.stage3_param_persistence_threshold = Pick(rng, {0.0, 100000.0});
  // [runtime] launcher: its CUDA_DEVICE_MAX_CONNECTIONS (a launcher that does not run the strategy's
  // framework is refused).
  if (Pick(rng, {0, 1, 2, 3}) > 0) {
    z.runtime.launcher = Pick(rng, {Launcher::kMegatronDeepSpeed, Launcher::kDeepSpeed,
                                    Launcher::kDeepSpeedChat, Launcher::kTorchrun});
    if (!LauncherRuns(*z.runtime.launcher, z.framework) && Pick(rng, {0, 1, 2, 3}) > 0)
      z.runtime.launcher = Launcher::kTorchrun;
  }
  z.runtime.cuda_device_max_connections = LauncherHardwareQueues(z.effective_launcher());
  Precision& p = z.precision;
  // The number formats: mostly the model's 16-bit dtype (the FSDP strategies refuse the others at 402d782).
  if (Pick(rng, {0, 1, 2}) > 0) return x;
  p.gradient_reduce_dtype = Pick(rng, {FloatFormat::kModel, FloatFormat::kModel, FloatFormat::kFp32});
  p.gradient_accumulation_dtype = Pick(rng, {FloatFormat::kModel, FloatFormat::kModel, FloatFormat::kFp32});
  p.bf16_master_weights_and_grads = Pick(rng, {0, 0, 1}) == 1;
  p.bf16_optimizer_states = p.bf16_master_weights_and_grads && Pick(rng, {0, 1}) == 1;
  p.fp8_gemms = Pick(rng, {0, 0, 1}) == 1;
  p.fp8_weight_all_gather = p.fp8_gemms && Pick(rng, {0, 1}) == 1;
  return x;
}

// Every tier's link time of the schedule's collectives, all queues together (the bound of invariants.h,
// recomputed here from the traffic).
double LinkSeconds(const ClusterSpec& c, const Schedule& s) {
  double nic = 0, port = 0, leaf = 0;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    // What the op puts on the links: the placement's ring, or a tuned all-reduce's algorithm's bytes.
    const Traffic t = WireTraffic(op.coll, testing::PlacementFor(op.coll, c));
    if (t.max_node_nic_bytes > 0) nic += t.max_node_nic_bytes / c.node_nic_Bps();
    if (t.max_gpu_port_bytes > 0) port += t.max_gpu_port_bytes / c.intra.bandwidth_Bps;
    if (t.max_leaf_uplink_bytes > 0) leaf += t.max_leaf_uplink_bytes / LeafUplinkBps(c);
  }
  return std::max({nic, port, leaf});
}

bool Near(double a, double b, double rel = 1e-6) {
  return std::fabs(a - b) <= rel * std::max({1e-12, std::fabs(a), std::fabs(b)});
}

// The invariants of one report of `x`, "" when all hold.
std::string Violations(const Config& x, const Schedule& s, const VariantReport& r) {
  std::string v = r.invariant_violation;
  auto fail = [&v](const std::string& what) { v += (v.empty() ? "" : "; ") + what; };
  for (double n : {r.iteration_time_s, r.tflops_per_gpu, r.tokens_per_s, r.exposed_comm_s, r.compute_s,
                   r.optimizer_s, r.gpu_side_s, r.gemm_s, r.attention_s, r.memory_bound_s, r.kernel_gaps_s,
                   r.waiting_for_data_s, r.comm_interference_s, r.queue_blocking_s, r.memory.total_bytes}) {
    if (!std::isfinite(n) || n < 0) fail("a number is negative or not finite");
  }
  if (!(r.iteration_time_s > 0)) fail("no iteration time");
  const double peak = r.zero.precision.fp8_gemms ? std::max(x.c.gpu.peak_flops, x.c.gpu.fp8_peak_flops)
                                                 : x.c.gpu.peak_flops;
  if (r.tflops_per_gpu * 1e12 > peak * (1 + 1e-9)) fail("TFLOPs above peak");
  if (r.iteration_time_s < (r.compute_s + r.optimizer_s) * (1 - 1e-9)) fail("time below compute");
  const double link_s = LinkSeconds(x.c, s);
  if (r.iteration_time_s < link_s * (1 - 1e-9)) {
    fail("time " + std::to_string(r.iteration_time_s) + " s below the link time " + std::to_string(link_s));
  }
  if (!Near(r.gemm_s + r.attention_s + r.memory_bound_s + r.kernel_gaps_s, r.compute_s))
    fail("compute parts do not sum to compute_s");
  if (!Near(r.waiting_for_data_s + r.comm_interference_s + r.queue_blocking_s, r.exposed_comm_s))
    fail("exposed parts do not sum to exposed_comm_s");
  // The engine's bytes per tier (the sim engine's are SimGrid's link counts) sum to the schedule's on this
  // cluster (its tuned all-reduces at the algorithm's bytes).
  const TierVolumes planned = WireVolumes(s, x.c);
  if (!Near(r.bytes.cross_node.total(), planned.cross_total()) ||
      !Near(r.bytes.intra_node.total(), planned.intra_total()))
    fail("bytes per tier differ from the schedule's");
  const MemoryBreakdown& mem = r.memory;
  // The tensors' parts and the runtime's (model/report/runtime_memory.h).
  if (!Near(mem.parameters_bytes + mem.gradients_bytes + mem.optimizer_states_bytes + mem.hpz_secondary_bytes +
                mem.buffers_bytes + mem.activations_bytes + mem.gathered_parameters_bytes + mem.cuda_context_bytes +
                mem.nccl_buffers_bytes + mem.cublas_workspace_bytes + mem.allocator_rounding_bytes +
                mem.fragmentation_bytes + mem.reserve_bytes,
            mem.total_bytes))
    fail("memory parts do not sum to the total");
  if (r.feasible == !r.infeasible_reason.empty()) fail("feasible and infeasible_reason disagree");
  if (!r.feasible && mem.total_bytes <= mem.hbm_bytes) fail("infeasible although it fits");
  return v;
}

std::string Describe(const Config& x) {
  return std::string(StrategyName(x.z.strategy)) + " on " + std::to_string(x.c.nodes) + " x " +
         std::to_string(x.c.gpus_per_node) + " GPUs, " + std::to_string(x.c.nic.count) + " NICs, queues " +
         std::to_string(x.z.runtime.cuda_device_max_connections) + ", shard " +
         std::to_string(x.z.shard_group_size()) + ", qwZ/hpZ/qgZ " +
         std::to_string(x.z.zero_quantized_weights) + "/" + std::to_string(x.z.zero_hpz_partition_size) +
         "/" + std::to_string(x.z.zero_quantized_gradients);
}

// Whether `wide` (twice the NIC bandwidth or count) is no slower than `base`. With `[nccl] channels` set
// (NCCL_MIN/MAX_NCHANNELS) the channels are fixed: the iteration. With NCCL's own search (channels = 0) a
// faster NIC carries more channels (model/cost/nccl_channels.h) and NCCL's kernels hold more SMs, which on a
// latency-bound collective can cost the compute stream more than the faster link saves (up to 2% on these
// draws, all of it in comm_interference_s): there the iteration may grow by what the SMs NCCL holds grew, no
// more.
bool NotSlower(const Config& x, const VariantReport& wide, const VariantReport& base) {
  const double sm_growth_s =
      x.c.nccl.channels > 0 ? 0.0 : std::max(0.0, wide.comm_interference_s - base.comm_interference_s);
  return wide.iteration_time_s <= (base.iteration_time_s + sm_growth_s) * (1 + kMonotoneTolerance);
}

// A refused draw names its key and why.
void ExpectReasoned(const std::vector<Problem>& problems, int i) {
  ASSERT_FALSE(problems.empty());
  for (const Problem& p : problems) {
    EXPECT_FALSE(p.key.empty()) << "draw " << i << ": " << DescribeProblems(problems);
    EXPECT_FALSE(p.message.empty()) << "draw " << i << ": " << DescribeProblems(problems);
  }
}

// `draws` analytic draws from `seed`; prints the feasible count of each strategy.
void RunAnalytic(uint64_t seed, int draws) {
  std::mt19937_64 rng(seed);
  const Calibration cal = testing::TestCalibration();
  std::array<int, kNumStrategies> drawn{}, evaluated{}, fits{};
  int monotone_checks = 0;
  const std::array<std::string, 4> kAlgorithms = {"Ring", "Tree", "NVLS", "NVLSTree"};
  std::array<int, 4> picked{};
  for (int i = 0; i < draws; ++i) {
    const Config x = Draw(rng, /*small=*/false);
    const auto k = static_cast<size_t>(x.z.strategy);
    ++drawn[k];
    const std::vector<Problem> problems = testing::Validate(x.m, x.z, x.c);
    if (!problems.empty()) {
      ExpectReasoned(problems, i);
      continue;
    }
    ++evaluated[k];
    const Schedule s = BuildSchedule(x.m, x.z, x.c);
    const VariantReport r = EvaluateAnalyticVariant("random", {x.m, x.z, x.c, cal}, s);
    fits[k] += r.feasible ? 1 : 0;
    const std::string bad = Violations(x, s, r);
    EXPECT_EQ(bad, "") << "draw " << i << " (seed " << seed << "): " << Describe(x);
    for (const Op& op : s.ops) {  // which algorithms NCCL's tuner took for the whole-cluster all-reduces
      if (op.kind != OpKind::kCollective || !IsTunedAllReduce(op.coll, x.c)) continue;
      const std::string a =
          EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, x.c)).algorithm;
      for (size_t j = 0; j < kAlgorithms.size(); ++j) picked[j] += a == kAlgorithms[j] ? 1 : 0;
    }
    // Monotone in the network: twice the NIC bandwidth, and twice the NICs where the node takes them (the
    // schedule depends only on the cluster's RankShape).
    ClusterSpec faster = x.c;
    faster.nic.bandwidth_Bps *= 2;
    const VariantReport f = EvaluateAnalyticVariant("faster", {x.m, x.z, faster, cal}, s);
    EXPECT_TRUE(NotSlower(x, f, r)) << "draw " << i << ": twice the NIC bandwidth is slower: " << f.iteration_time_s
                                    << " s vs " << r.iteration_time_s << " s: " << Describe(x);
    ++monotone_checks;
    ClusterSpec wider = x.c;
    wider.nic.count = std::max(1, 2 * x.c.nic.count);
    if (wider.nic.count != x.c.nic.count && CheckCluster(wider).empty()) {
      const VariantReport w = EvaluateAnalyticVariant("wider", {x.m, x.z, wider, cal}, s);
      EXPECT_TRUE(NotSlower(x, w, r)) << "draw " << i << ": twice the NICs is slower: " << w.iteration_time_s
                                      << " s vs " << r.iteration_time_s << " s: " << Describe(x);
      ++monotone_checks;
    }
  }
  std::string line;
  int total_evaluated = 0;
  for (size_t k = 0; k < kNumStrategies; ++k) {
    line += std::string(k ? ", " : "") + StrategyName(static_cast<Strategy>(k)) + " " +
            std::to_string(evaluated[k]) + "/" + std::to_string(drawn[k]) + " (" + std::to_string(fits[k]) +
            " fit)";
    total_evaluated += evaluated[k];
    // Every strategy is exercised, not only refused.
    EXPECT_GT(evaluated[k], draws / 100) << StrategyName(static_cast<Strategy>(k));
    EXPECT_GT(fits[k], 0) << StrategyName(static_cast<Strategy>(k));
  }
  std::printf("seed %llu: evaluated/drawn per strategy: %s; %d evaluated, %d monotonicity checks\n",
              static_cast<unsigned long long>(seed), line.c_str(), total_evaluated, monotone_checks);
  std::printf("seed %llu: whole-cluster all-reduces by NCCL's pick: Ring %d, Tree %d, NVLS %d, NVLSTree %d\n",
              static_cast<unsigned long long>(seed), picked[0], picked[1], picked[2], picked[3]);
  for (size_t k = 0; k < kAlgorithms.size(); ++k) EXPECT_GT(picked[k], 0) << kAlgorithms[k] << " never drawn";
  EXPECT_GT(total_evaluated, draws / 4);
}

// 4 x 8,500 = 34,000 analytic draws, of which about 10,300 pass model::Validate and are evaluated
// (every refused one must name its key: ExpectReasoned).
constexpr int kAnalyticDraws = 8500;
TEST(StrategyProperty, AnalyticDrawsA) { RunAnalytic(101, kAnalyticDraws); }
TEST(StrategyProperty, AnalyticDrawsB) { RunAnalytic(202, kAnalyticDraws); }
TEST(StrategyProperty, AnalyticDrawsC) { RunAnalytic(303, kAnalyticDraws); }
TEST(StrategyProperty, AnalyticDrawsD) { RunAnalytic(404, kAnalyticDraws); }

// Small clusters on both engines: `wanted` evaluated draws from `seed`.
void RunBothEngines(uint64_t seed, int wanted) {
  std::mt19937_64 rng(seed);
  const Calibration cal = testing::TestCalibration();
  std::array<int, kNumStrategies> evaluated{};
  int done = 0;
  double worst = 0;
  for (int i = 0; i < 50 * wanted && done < wanted; ++i) {
    // Every strategy in turn, so that each is compared on both engines.
    const Config x = Draw(rng, /*small=*/true, done % static_cast<int>(kStrategies.size()));
    if (!testing::Validate(x.m, x.z, x.c).empty()) continue;
    ++done;
    ++evaluated[static_cast<size_t>(x.z.strategy)];
    const Schedule s = BuildSchedule(x.m, x.z, x.c);
    const VariantReport a = EvaluateAnalyticVariant("random", {x.m, x.z, x.c, cal}, s);
    StatusOr<VariantReport> d = sim::EvaluateSimVariant("random", {x.m, x.z, x.c, cal}, sim::SimOptions{});
    ASSERT_TRUE(d.ok()) << "draw " << i << ": " << Describe(x) << ": " << d.status().message();
    EXPECT_EQ(Violations(x, s, a), "") << "draw " << i << " (analytic): " << Describe(x);
    EXPECT_EQ(Violations(x, s, *d), "") << "draw " << i << " (sim): " << Describe(x) << " exposed "
                                        << d->exposed_comm_s << " = wait " << d->waiting_for_data_s << " + SMs "
                                        << d->comm_interference_s << " + queue " << d->queue_blocking_s
                                        << "; analytic exposed " << a.exposed_comm_s << ", SMs "
                                        << a.comm_interference_s;
    const double gap = d->iteration_time_s / a.iteration_time_s - 1;
    worst = std::max(worst, std::fabs(gap));
    EXPECT_LE(std::fabs(gap), kEngineTolerance)
        << "draw " << i << ": sim " << d->iteration_time_s << " s vs analytic " << a.iteration_time_s
        << " s: " << Describe(x);
  }
  EXPECT_EQ(done, wanted);
  std::string line;
  for (size_t k = 0; k < kNumStrategies; ++k) {
    line += std::string(k ? ", " : "") + StrategyName(static_cast<Strategy>(k)) + " " +
            std::to_string(evaluated[k]);
    EXPECT_GT(evaluated[k], 0) << StrategyName(static_cast<Strategy>(k));
  }
  std::printf("seed %llu: both engines on %d draws (%s); largest |sim / analytic - 1| = %.4f\n",
              static_cast<unsigned long long>(seed), done, line.c_str(), worst);
}

// 3 x 100 = 300 draws on both engines.
TEST(StrategyProperty, BothEnginesOnSmallClustersA) { RunBothEngines(505, 100); }
TEST(StrategyProperty, BothEnginesOnSmallClustersB) { RunBothEngines(606, 100); }
TEST(StrategyProperty, BothEnginesOnSmallClustersC) { RunBothEngines(707, 100); }

}  // namespace
}  // namespace zerosim::model
