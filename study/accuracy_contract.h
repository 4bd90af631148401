// The accuracy contract (issue 36 item 8, "gates as accuracy contracts"): per validation group, metric and
// engine, the limits on the group's errors that `zerosim validate --contract FILE` enforces, in one checked-in
// file (tests/accuracy_contract.toml), each limit with the reason it has that value. Unlike the per-point
// baselines (`--baseline`, rewritten by whichever change moves them, so that they ratchet), a limit changes only
// by editing the contract with a new reason, in review.
//
// File format (TOML):
//   [[limit]]
//   group = "Megatron TP+PP A100 (SC'21, Korthikanti 2022)"   # a scenario's `group`
//   metric = "tflops_per_gpu"   # tflops_per_gpu, speedup, cross_node_volume_M, tokens_per_s_per_gpu, peak_reserved_GiB
//   engine = "analytic"                # optional; analytic (default) or sim
//   median_max = 0.06                  # median |error| at most this (a fraction)
//   worst_max = 0.12                   # optional: largest |error| at most this
//   mean_signed_max = 0.05             # optional: |mean signed error| at most this
//   reason = "..."                     # why this value: the target, or today's value and the target
//
//   [[nccl_limit]]                     # the network model against published NCCL measurements
//   source = "all"                     # a source of `zerosim validate --nccl-points` (as its summary names it)
//   median_max = 0.25                  # and optional worst_max, mean_signed_max, as above; reason
#pragma once

#include <string>
#include <vector>

#include "model/io/loaders.h"
#include "model/status.h"
#include "study/nccl_check.h"
#include "study/validation.h"

namespace zerosim::study {

struct AccuracyLimit {
  std::string group;
  io::Metric metric = io::Metric::kTflopsPerGpu;
  std::string engine = "analytic";
  double median_max = 0;
  double worst_max = -1;        // < 0: not limited
  double mean_signed_max = -1;  // < 0: not limited
  std::string reason;
  std::string place;  // "file:line:col" of its [[limit]], for messages
};

// A limit on the bus-bandwidth errors of one source of the NCCL points (study/nccl_check.h NcclSummary).
struct NcclLimit {
  std::string source;
  double median_max = 0;
  double worst_max = -1;        // < 0: not limited
  double mean_signed_max = -1;  // < 0: not limited
  std::string reason;
  std::string place;
};

struct AccuracyContract {
  std::string path;
  std::vector<AccuracyLimit> limits;
  std::vector<NcclLimit> nccl_limits;
};

// Reads a contract; errors name file, line and key (a duplicate group x metric x engine is an error).
StatusOr<AccuracyContract> ParseAccuracyContract(const std::string& text, const std::string& path);

struct ContractCheck {
  std::vector<std::string> failures;  // one line each: a limit broken, a limited group without points (on a
                                      // full run), a group of a limited engine without a limit
  std::string table;                  // per limit: its values against the limits, and PASS / FAIL / not run
};

// Checks `points` against `contract`. `full_run`: the run evaluated every shipped scenario, so a limit whose
// group has no point (a renamed or deleted group) fails instead of being listed as not run (unless the run timed
// no point with the limit's engine). A group and
// metric of the points whose engine the contract limits elsewhere, but which has no limit itself, fails: every
// validation group is under contract.
ContractCheck CheckAccuracyContract(const AccuracyContract& contract, const std::vector<PointResult>& points,
                                    bool full_run);

// Checks the NCCL points' summaries against the contract's [[nccl_limit]]s: every limit's source must be among
// `sources`, and every source of `sources` must have a limit.
ContractCheck CheckNcclContract(const AccuracyContract& contract, const std::vector<NcclSummary>& sources);

}  // namespace zerosim::study
