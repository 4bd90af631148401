#include "model/spec/validate.h"

#include <fmt/format.h>

#include <string>

#include "model/spec/pipeline_split.h"

namespace zerosim::model {
namespace {

// The fat tree's groups at `level` (0: leaves, 1: pods) that have uplinks, or 0 if the fabric has no such
// level (one leaf, one pod, or not a fat tree).
int GroupsAt(const ClusterSpec& c, int level) {
  if (c.fabric.kind != FabricKind::kFatTree || c.fabric.nodes_per_leaf <= 0) return 0;
  const int per_leaf = c.fabric.nodes_per_leaf;
  if (level == 0) return per_leaf < c.nodes ? c.nodes / per_leaf : 0;
  const int per_pod = per_leaf * c.fabric.leaves_per_pod;
  if (level == 1 && c.fabric.leaves_per_pod > 1 && per_pod < c.nodes) return c.nodes / per_pod;
  return 0;
}

// Problems of one perturbation entry, keyed "perturbations.KIND.INDEX.KEY".
class EntryProblems {
 public:
  EntryProblems(std::vector<Problem>* out, const char* kind, size_t index)
      : out_(out), prefix_(fmt::format("perturbations.{}.{}.", kind, index)) {}
  void Add(const char* key, std::string message) { out_->push_back({prefix_ + key, std::move(message)}); }
  void Node(const char* key, int node, const ClusterSpec& c) {
    if (node < 0 || node >= c.nodes) {
      Add(key, fmt::format("node {} does not exist: the cluster has nodes 0 to {}", node, c.nodes - 1));
    }
  }

 private:
  std::vector<Problem>* out_;
  std::string prefix_;
};

}  // namespace

std::vector<Problem> CheckPerturbations(const Perturbations& p, const ClusterSpec& c) {
  std::vector<Problem> out;
  for (size_t i = 0; i < p.slow_nodes.size(); ++i) {
    EntryProblems(&out, "slow_node", i).Node("node", p.slow_nodes[i].node, c);
  }
  for (size_t i = 0; i < p.links.size(); ++i) {
    const DegradedLink& d = p.links[i];
    EntryProblems e(&out, "degraded_link", i);
    if (d.kind == DegradedLink::Kind::kNic) {
      e.Node("node", d.node, c);
      if (d.rail < 0 || d.rail >= c.nic.count) {
        e.Add("rail", fmt::format("NIC {} does not exist: nodes have NICs 0 to {}", d.rail, c.nic.count - 1));
      }
      continue;
    }
    const char* key = d.level == 0 ? "leaf" : "pod";
    const int groups = GroupsAt(c, d.level);
    if (groups == 0) {
      e.Add("link", fmt::format("the fabric has no {} uplinks (a fat tree with more than one {})", key, key));
    } else if (d.group < 0 || d.group >= groups) {
      e.Add(key,
            fmt::format("{} {} does not exist: the fabric has {}s 0 to {}", key, d.group, key, groups - 1));
    }
  }
  for (size_t i = 0; i < p.background.size(); ++i) {
    const BackgroundFlow& b = p.background[i];
    EntryProblems e(&out, "background_flow", i);
    e.Node("from_node", b.src_node, c);
    e.Node("to_node", b.dst_node, c);
    if (b.gpu < 0 || b.gpu >= c.gpus_per_node) {
      e.Add("gpu", fmt::format("GPU {} does not exist: nodes have GPUs 0 to {}", b.gpu, c.gpus_per_node - 1));
    }
    if (b.src_node == b.dst_node) e.Add("to_node", "a background flow joins two different nodes");
  }
  return out;
}

std::vector<Problem> CheckRlhf(const RlhfSpec& r, const ModelSpec& actor) {
  std::vector<Problem> out;
  const std::pair<const char*, const ModelSpec*> models[] = {{"rlhf.critic_model", &r.critic},
                                                             {"rlhf.reward_model", &r.reward},
                                                             {"rlhf.reference_model", &r.reference}};
  for (const auto& [key, m] : models) {
    for (const Problem& p : CheckModel(*m)) out.push_back({key, fmt::format("{}: {}", p.key, p.message)});
  }
  if (actor.positions == PositionKind::kLearned) {
    const int full = r.prompt_len + r.answer_len;
    if (full > actor.max_position_embeddings) {
      out.push_back(
          {"rlhf.answer_len", fmt::format("prompt_len + answer_len = {} exceeds the actor's {} positions",
                                          full, actor.max_position_embeddings)});
    }
    if (r.sft_seq_len > actor.max_position_embeddings) {
      out.push_back({"rlhf.sft_seq_len", fmt::format("{} exceeds the actor's {} positions", r.sft_seq_len,
                                                     actor.max_position_embeddings)});
    }
  }
  return out;
}

std::vector<Problem> Validate(const Configuration& c) {
  std::vector<Problem> out = CheckCluster(c.cluster);
  for (Problem& p : CheckModel(c.model)) out.push_back(std::move(p));
  if (!out.empty()) return out;  // the rules below divide by the sizes above
  // A pipelined layout builds one schedule per stage of L / p layers (model/report/pipeline_evaluate.h): the
  // schedule-size rule counts a stage's layers (CheckLayout judges whether p divides L).
  ModelSpec built = c.model;
  if (c.layout.pipeline > 1 && CheckPipelineSplit(c.layout, c.model).empty()) {
    built.layers = MostStageLayers(c.model.layers, c.layout);
  }
  out = CheckTraining(built, c.zero, c.cluster);
  if (!out.empty()) return out;
  out = CheckLayout(c.layout, c.model, c.zero, c.cluster);
  if (!out.empty()) return out;
  out = CheckCompute(c.model, c.zero, c.calibration.compute);
  if (c.perturbations != nullptr) {
    for (Problem& p : CheckPerturbations(*c.perturbations, c.cluster)) out.push_back(std::move(p));
  }
  if (c.rlhf != nullptr) {
    for (Problem& p : CheckRlhf(*c.rlhf, c.model)) out.push_back(std::move(p));
  }
  if (!out.empty()) return out;
  out = CheckMoeModelled(c.model, c.layout, c.zero, c.rlhf != nullptr);
  if (!out.empty()) return out;
  out = CheckContextModelled(c.model, c.layout, c.zero, c.rlhf != nullptr);
  if (!out.empty()) return out;
  return CheckModelled(c.layout, c.zero, c.rlhf != nullptr);
}

}  // namespace zerosim::model
