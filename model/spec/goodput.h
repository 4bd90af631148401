// Goodput: the share of a training run's wall-clock time that trains, once interruptions, restarts and
// checkpoints are paid for, so that days, GPU-hours and cost can be given as a run would see them beside the
// ideal figures (every hour training).
//
// Model (first-order, Young 1974 "A first order approximation to the optimum checkpoint interval", CACM 17(9);
// Daly 2006 "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22(3); the
// same accounting as Kokolis et al. 2024, "Revisiting Reliability in Large-Scale Machine Learning Research
// Clusters", arXiv:2410.21680, sec. V, effective training time ratio):
//   M     = 1 / (rate_per_gpu_hour * GPUs)          mean time between interruptions of the job (hours)
//   delta = checkpoint_bytes / (write_Bps_per_gpu * GPUs)   time to write one checkpoint (training stops)
//   tau   = sqrt(2 delta M)                          Young's optimal interval between checkpoints
//   lost  = delta / tau  +  (tau / 2 + restart) / M  share of the time written or lost: a checkpoint per
//           interval, and per interruption half an interval of work redone and the restart
//   goodput = max(0, 1 - lost)
// With tau optimal the first two terms are equal (each sqrt(delta / (2 M))).
//
// Checkpoint size: the model's 16-bit weights and the optimizer's state (master weights and Adam's two
// moments, OptimizerStateBytesPerParam: 12 bytes a parameter, 6 with DeepSpeed's bf16 master weights and
// states), written once across the job: every sharded strategy (ZeRO, FSDP, pipeline and tensor stages) has each
// rank write its shard in parallel (DeepSpeed's zero_pp_rank_* files, torch.distributed.checkpoint), so the
// write bandwidth is the job's GPUs times the per-GPU share.
//
// Defaults (GoodputOptions), each from one published large run:
//  - interruptions: the Llama 3 paper (Dubey et al. 2024, "The Llama 3 Herd of Models", sec. 3.3.4, Table 5):
//    466 job interruptions (47 planned, 419 unexpected) in a 54-day snapshot on 16,384 H100:
//    466 / (54 * 24 * 16,384) = 2.19e-5 per GPU-hour, about one every 2.8 h at that size; it reports "higher
//    than 90% effective training time".
//  - write bandwidth: the same paper, sec. 3.3.1: Tectonic, Meta's storage for the run, sustains 2 TB/s (7 TB/s
//    peak) for the 16,384 GPUs: 2e12 / 16,384 = 122 MB/s a GPU.
//  - restart: 10 minutes to detect the failure, reschedule, reload and rewarm. An assumption, not a published
//    figure: with it the model gives Llama 3 405B on 16,384 H100 91.6% (the paper: "higher than 90%").
#pragma once

#include "model/spec/model_spec.h"
#include "model/spec/precision.h"

namespace zerosim::model {

struct GoodputOptions {
  bool enabled = true;  // false: every hour trains (goodput 1), the ideal figures
  double interruptions_per_gpu_hour = 466.0 / (54.0 * 24.0 * 16384.0);  // Llama 3, sec. 3.3.4
  double restart_s = 600;                                              // assumed (see above)
  double checkpoint_write_Bps_per_gpu = 2e12 / 16384.0;                // Llama 3, sec. 3.3.1
};

struct GoodputResult {
  double goodput = 1;                    // share of the wall-clock time that trains, in [0, 1]
  double checkpoint_bytes = 0;           // one checkpoint of the whole job
  double checkpoint_write_s = 0;         // delta
  double checkpoint_interval_s = 0;      // tau (0 when disabled or no interruptions)
  double mean_time_between_interruptions_s = 0;  // M (0 when disabled or no interruptions)
};

// Bytes of one checkpoint of model `m` trained with `p`: TotalParams * (2 + OptimizerStateBytesPerParam).
double CheckpointBytes(const ModelSpec& m, const Precision& p);

// The goodput of a job of `gpus` GPUs training `m` with `p` (see above). Disabled, or with no interruptions:
// goodput 1. A job that cannot make progress (its checkpoint and restart outlast the time between
// interruptions) has goodput 0.
GoodputResult EstimateGoodput(const ModelSpec& m, const Precision& p, int64_t gpus, const GoodputOptions& o);

}  // namespace zerosim::model
