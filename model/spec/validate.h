// Validate: the one answer to "can this configuration run?" (issue 21 item 4). Every path that evaluates a
// configuration calls it once on the configuration as it will run, after its what-ifs: the scenario loader
// on each variant as written (its problems become "file:line: key: message" errors), `--set`, a sweep point,
// `--ds-config` and `--model` on the result, `plan` on each setting it tries, the run on each variant (their
// problems become infeasible rows with the reasons). The rules themselves are model/spec/feasibility.h's;
// this is their order, and the only caller of the whole set.
#pragma once

#include <vector>

#include "model/spec/configuration.h"
#include "model/spec/feasibility.h"

namespace zerosim::model {

// The perturbations (model/spec/perturbations.h) against the cluster they perturb: the nodes, NICs (rails),
// GPUs and fabric groups they name exist, a background flow joins two nodes. Keys are the entry's path in
// a scenario: "perturbations.slow_node.0.node", "perturbations.degraded_link.1.rail", ... A `--set nodes=`
// or a sweep's topology axis is judged here too (issue 20 item 21).
std::vector<Problem> CheckPerturbations(const Perturbations& p, const ClusterSpec& c);

// The RLHF phases (model/spec/rlhf_spec.h) against the actor `actor`: the critic, reward and reference
// models' sizes (CheckModel, keys "rlhf.critic_model", "rlhf.reward_model", "rlhf.reference_model"), and,
// with learned positions, the generation's prompt + answer and the SFT sequence within the actor's position
// embeddings (keys "rlhf.answer_len", "rlhf.sft_seq_len").
std::vector<Problem> CheckRlhf(const RlhfSpec& r, const ModelSpec& actor);

// Every problem of `c`, in this order, each stage only when the ones before it found none (later rules
// divide by what earlier ones check): the cluster and the model (CheckCluster, CheckModel); the training and
// ZeRO settings against them (CheckTraining); the layout (CheckLayout); the calibration's kernels
// (CheckCompute, kind kCalibration); the perturbations against the cluster (CheckPerturbations); the RLHF
// phases (CheckRlhf); and last what the engines do not model yet (CheckModelled, kind kNotModelled).
// Empty: the configuration can be evaluated (whether it fits in memory is the evaluation's answer).
std::vector<Problem> Validate(const Configuration& c);

}  // namespace zerosim::model
