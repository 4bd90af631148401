// `[parallel]` in scenarios (model/io/parallel_keys.h): the layout's keys and their per-variant overrides,
// the implied interleaved schedule, and the errors (an unknown key, a bad value, a layout that does not fit
// the model or the cluster), each naming file, line and key. A valid tensor layout loads: that the engines do
// not model it yet is the evaluation's answer (model::CheckModelled, a kNotModelled problem of
// model::Validate), not the loader's.
#include <gtest/gtest.h>

#include <string>

#include "model/io/loaders.h"
#include "model/spec/feasibility.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

using model::PipelineSchedule;

// The test scenario (32 GPUs, 4 nodes of 8; a 2-layer model with 4 heads) up to its variants (lines 1-12),
// then `rest` from line 13.
StatusOr<Scenario> Load(const std::string& rest, const LoadOptions& options = {}) {
  std::string s = testing::kScenario;
  s = s.substr(0, s.find("[[variant]]")) + rest;
  return LoadScenario(MemoryFileSource(testing::InputFiles(s)), "s.toml", options);
}

void ExpectError(const StatusOr<Scenario>& s, const std::string& where, const std::string& what) {
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(where), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find(what), std::string::npos) << s.status().message();
}

TEST(ParallelLoader, WithoutParallelEveryVariantIsDataParallel) {
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(testing::InputFiles()), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  for (const Variant& v : s->variants) EXPECT_EQ(v.parallel, model::ParallelLayout{});
}

TEST(ParallelLoader, KeysParseAndVariantsOverrideThem) {
  StatusOr<Scenario> s = Load(
      "[parallel]\ntensor = 2\nsequence_parallel = true\n\n"
      "[[variant]]\nname = \"TP2\"\n\n"
      "[[variant]]\nname = \"TP4\"\ntensor = 4\nsequence_parallel = false\n\n"
      "[[variant]]\nname = \"TP2 PP2\"\npipeline = 2\nstrategy = \"zero1\"\nschedule = \"gpipe\"\n\n"
      "[[variant]]\nname = \"TP4 across\"\ntensor = 4\ntensor_across_nodes = true\nsequence_parallel = "
      "false\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const auto& v = s->variants;
  EXPECT_EQ(v[0].parallel.tensor, 2);
  EXPECT_TRUE(v[0].parallel.sequence_parallel);
  EXPECT_EQ(v[0].parallel.pipeline, 1);
  EXPECT_EQ(v[1].parallel.tensor, 4);
  EXPECT_FALSE(v[1].parallel.sequence_parallel);
  EXPECT_EQ(v[2].parallel.tensor, 2);  // the scenario's
  EXPECT_EQ(v[2].parallel.pipeline, 2);
  EXPECT_EQ(v[2].parallel.schedule, PipelineSchedule::kGPipe);
  EXPECT_EQ(v[2].parallel.data_parallel(s->cluster.total_gpus()), 8);
  EXPECT_TRUE(v[3].parallel.tensor_across_nodes);
}

TEST(ParallelLoader, VirtualStagesImplyTheInterleavedSchedule) {
  // Unchecked (the 2-layer model has no room for interleaving): the keys as read.
  StatusOr<Scenario> s = Load(
      "[parallel]\npipeline = 2\nvirtual_stages = 2\n\n"
      "[[variant]]\nname = \"interleaved\"\n\n"
      "[[variant]]\nname = \"plain\"\nvirtual_stages = 1\n",
      LoadOptions{.check_configuration = false});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].parallel.schedule, PipelineSchedule::kInterleaved1F1B);
  EXPECT_EQ(s->variants[0].parallel.virtual_stages, 2);
  EXPECT_EQ(s->variants[1].parallel.schedule, PipelineSchedule::k1F1B);
}

TEST(ParallelLoader, UnknownKeysAreErrors) {
  ExpectError(Load("[parallel]\ntensr = 2\n\n[[variant]]\nname = \"x\"\n"), "s.toml:14",
              "did you mean 'tensor'");
  ExpectError(Load("[[variant]]\nname = \"x\"\npipline = 2\n"), "s.toml:15", "pipline");
}

TEST(ParallelLoader, BadValuesAreErrors) {
  ExpectError(Load("[parallel]\ntensor = 0\n\n[[variant]]\nname = \"x\"\n"), "s.toml:14",
              "[parallel] tensor");
  ExpectError(Load("[parallel]\nschedule = \"zigzag\"\n\n[[variant]]\nname = \"x\"\n"), "s.toml:14",
              "unknown schedule \"zigzag\"");
  ExpectError(Load("[parallel]\nsequence_parallel = 1\n\n[[variant]]\nname = \"x\"\n"), "s.toml:14",
              "[parallel] sequence_parallel");
  ExpectError(Load("[[variant]]\nname = \"x\"\nvirtual_stages = -1\n"), "s.toml:15", "virtual_stages");
}

TEST(ParallelLoader, LayoutsThatDoNotFitAreErrorsAtTheirKeys) {
  // [parallel]: tensor 16 does not divide the 4 heads.
  ExpectError(Load("[parallel]\ntensor = 16\n\n[[variant]]\nname = \"x\"\n"), "s.toml:14",
              "[parallel] tensor: tensor 16 does not divide the 4 attention heads of model 'tiny'");
  // A variant's: ZeRO-3 with a DeepSpeed pipeline.
  ExpectError(Load("[[variant]]\nname = \"x\"\n\n[[variant]]\nname = \"y\"\npipeline = 2\n"), "s.toml:18",
              "ZeRO-2 and ZeRO-3");
  // [parallel] with a variant's ZeRO++: hpZ with tensor > 1.
  ExpectError(Load("[parallel]\ntensor = 2\n\n[[variant]]\nname = \"x\"\nzero_hpz_partition_size = 8\n"),
              "s.toml:18", "zero_hpz_partition_size: zero_hpz_partition_size with tensor 2");
}

TEST(ParallelLoader, APipelineLayoutLoadsAndIsModelledUnderZero1) {
  // ZeRO-1 with a pipeline: the analytic engine's (model/report/pipeline_evaluate.h); ZeRO-3 with one is a
  // load error (LayoutsThatDoNotFitAreErrorsAtTheirKeys).
  StatusOr<Scenario> s = Load("[parallel]\npipeline = 2\n\n[[variant]]\nname = \"PP2\"\nstage = 1\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(ValidateVariant(*s, s->variants[0]).empty())
      << model::DescribeProblems(ValidateVariant(*s, s->variants[0]));
  // A tensor layout is modelled (by the analytic engine).
  StatusOr<Scenario> tp = Load("[parallel]\ntensor = 2\n\n[[variant]]\nname = \"TP2\"\n");
  ASSERT_TRUE(tp.ok()) << tp.status().message();
  EXPECT_TRUE(ValidateVariant(*tp, tp->variants[0]).empty());
}

}  // namespace
}  // namespace zerosim::io
