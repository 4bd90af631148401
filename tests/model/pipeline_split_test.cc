// The pipeline split (model/spec/pipeline_split.h): Megatron-Core's even split and its split with the
// embedding and the loss counted as layers (account_for_embedding_in_pipeline_split /
// account_for_loss_in_pipeline_split) and its layout rules (CheckPipelineSplit); the stages the pipeline
// evaluation builds from it are tests/model/pipeline_evaluate_test.cc's.
#include <gtest/gtest.h>

#include <string>

#include "model/spec/feasibility.h"
#include "model/spec/pipeline_split.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

ParallelLayout Pp(int p, int v, bool embedding, bool loss) {
  ParallelLayout l;
  l.pipeline = p;
  l.SetVirtualStages(v);
  l.account_for_embedding_in_pipeline_split = embedding;
  l.account_for_loss_in_pipeline_split = loss;
  return l;
}

std::string MessageAt(const std::vector<Problem>& problems, const std::string& key) {
  for (const Problem& p : problems) {
    if (p.key == key) return p.message;
  }
  return "";
}

// Llama 3.1 405B's 126 layers over Megatron-Bridge's 8 x 8 chunks with both flags: (126 + 2) / 64 = 2 units a
// chunk, the first chunk (stage 0) and the last (stage 7) one layer each.
TEST(PipelineSplit, EmbeddingAndLossCountedTakeALayerFromTheFirstAndLastChunk) {
  const ParallelLayout l = Pp(8, 8, true, true);
  EXPECT_EQ(ChunkLayers(126, l, 0, 0), 1);
  EXPECT_EQ(ChunkLayers(126, l, 7, 7), 1);
  EXPECT_EQ(ChunkLayers(126, l, 0, 1), 2);
  EXPECT_EQ(ChunkLayers(126, l, 7, 6), 2);
  EXPECT_EQ(ChunkLayers(126, l, 3, 0), 2);
  int total = 0;
  for (int i = 0; i < 8; ++i) total += StageLayers(126, l, i);
  EXPECT_EQ(total, 126);
  EXPECT_EQ(StageLayers(126, l, 0), 15);
  EXPECT_EQ(StageLayers(126, l, 4), 16);
  EXPECT_EQ(StageLayers(126, l, 7), 15);
  EXPECT_EQ(MostChunkLayers(126, l, 0), 2);
  EXPECT_EQ(MostStageLayers(126, l), 16);
  EXPECT_TRUE(CheckPipelineSplit(l, testing::Gpt(126, 1024, 8)).empty());
}

// torchtitan's 2024-12 generate_split_points for 126 layers over 8 single stages (base 15, the 6 extra
// layers to the middle stages): 15, 16 x 6, 15; Megatron's rule with both flags gives the same.
TEST(PipelineSplit, TorchtitansDefaultSplitOf126LayersIsTheSame) {
  const ParallelLayout l = Pp(8, 1, true, true);
  const int expected[8] = {15, 16, 16, 16, 16, 16, 16, 15};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(StageLayers(126, l, i), expected[i]) << "stage " << i;
  EXPECT_EQ(StageFirstLayer(126, l, 0), 0);
  EXPECT_EQ(StageFirstLayer(126, l, 1), 15);
  EXPECT_EQ(StageFirstLayer(126, l, 7), 111);
}

TEST(PipelineSplit, EvenSplitAndOneFlag) {
  const ParallelLayout even = Pp(4, 2, false, false);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(StageLayers(32, even, i), 8);
    EXPECT_EQ(ChunkLayers(32, even, i, 1), 4);
  }
  // The embedding alone: (31 + 1) / 4 = 8 units a stage, the first 7 layers.
  const ParallelLayout embedding = Pp(4, 1, true, false);
  EXPECT_EQ(StageLayers(31, embedding, 0), 7);
  EXPECT_EQ(StageLayers(31, embedding, 3), 8);
  const ParallelLayout loss = Pp(4, 1, false, true);
  EXPECT_EQ(StageLayers(31, loss, 0), 8);
  EXPECT_EQ(StageLayers(31, loss, 3), 7);
}

TEST(PipelineSplit, RulesNameTheirKey) {
  const ModelSpec m126 = testing::Gpt(126, 1024, 8);
  // No flags: 126 over 64 chunks is refused, and the message says L + 2 would divide.
  const std::string even = MessageAt(CheckPipelineSplit(Pp(8, 8, false, false), m126), "pipeline");
  EXPECT_NE(even.find("do not divide the model's 126 layers"), std::string::npos) << even;
  EXPECT_NE(even.find("L + 2 divides"), std::string::npos) << even;
  // One flag: 127 units over 64 chunks.
  const std::string one = MessageAt(CheckPipelineSplit(Pp(8, 8, true, false), m126), "pipeline");
  EXPECT_NE(
      one.find("126 layers + 1 (the embedding counted as layers: account_for_embedding_in_pipeline_split)"),
      std::string::npos)
      << one;
  // 128 layers divide over 64 chunks; the flag is what breaks the split, so the problem is at its key.
  const std::string flag = MessageAt(CheckPipelineSplit(Pp(8, 8, false, true), testing::Gpt(128, 1024, 8)),
                                     "account_for_loss_in_pipeline_split");
  EXPECT_NE(flag.find("128 layers + 1"), std::string::npos) << flag;
  // Without a pipeline the flags are refused at their keys.
  const std::vector<Problem> flat = CheckPipelineSplit(Pp(1, 1, true, true), m126);
  EXPECT_FALSE(MessageAt(flat, "account_for_embedding_in_pipeline_split").empty());
  EXPECT_FALSE(MessageAt(flat, "account_for_loss_in_pipeline_split").empty());
  // 62 layers + 2 over 64 chunks leave the first chunk without a layer.
  const std::string empty = MessageAt(CheckPipelineSplit(Pp(8, 8, true, true), testing::Gpt(62, 1024, 8)),
                                      "account_for_embedding_in_pipeline_split");
  EXPECT_NE(empty.find("without a transformer layer"), std::string::npos) << empty;
}

// The first and last stages' layers given (Megatron-Core's num_layers_in_first/last_pipeline_stage):
// DeepSeek-V3's 61 layers over 16 stages with 3 first and 2 last leave 56 for the 14 others, 4 each.
TEST(PipelineSplit, GivenEndStagesShareTheRestEvenly) {
  ParallelLayout l = Pp(16, 1, false, false);
  l.num_layers_in_first_pipeline_stage = 3;
  l.num_layers_in_last_pipeline_stage = 2;
  EXPECT_EQ(StageLayers(61, l, 0), 3);
  EXPECT_EQ(StageLayers(61, l, 7), 4);
  EXPECT_EQ(StageLayers(61, l, 15), 2);
  EXPECT_EQ(StageFirstLayer(61, l, 15), 59);
  EXPECT_EQ(MostStageLayers(61, l), 4);
  EXPECT_TRUE(CheckPipelineSplit(l, testing::Gpt(61, 1024, 8)).empty());
  // The first alone: the 15 others share 61 - 1 = 60 layers.
  ParallelLayout first = Pp(16, 1, false, false);
  first.num_layers_in_first_pipeline_stage = 1;
  EXPECT_EQ(StageLayers(61, first, 0), 1);
  EXPECT_EQ(StageLayers(61, first, 15), 4);
  // With v chunks each stage's layers split evenly over them: 8 x 2 with 4 first and 4 last, 8 in each
  // middle.
  ParallelLayout chunks = Pp(8, 2, false, false);
  chunks.num_layers_in_first_pipeline_stage = 4;
  chunks.num_layers_in_last_pipeline_stage = 4;
  EXPECT_EQ(ChunkLayers(56, chunks, 0, 1), 2);
  EXPECT_EQ(ChunkLayers(56, chunks, 3, 0), 4);
  EXPECT_TRUE(CheckPipelineSplit(chunks, testing::Gpt(56, 1024, 8)).empty());
}

TEST(PipelineSplit, GivenEndStagesRulesNameTheirKey) {
  const ModelSpec m61 = testing::Gpt(61, 1024, 8);
  ParallelLayout l = Pp(16, 1, false, false);
  l.num_layers_in_first_pipeline_stage = 4;  // 61 - 4 - 2 = 55 over 14 stages: uneven
  l.num_layers_in_last_pipeline_stage = 2;
  EXPECT_NE(MessageAt(CheckPipelineSplit(l, m61), "num_layers_in_first_pipeline_stage").find("evenly"),
            std::string::npos);
  // Each stage's layers over v: 3 first layers do not split over 2 chunks.
  ParallelLayout v2 = Pp(16, 2, false, false);
  v2.num_layers_in_first_pipeline_stage = 3;
  v2.num_layers_in_last_pipeline_stage = 2;
  EXPECT_FALSE(MessageAt(CheckPipelineSplit(v2, m61), "virtual_stages").empty());
  // Not with the counted split, and not without a pipeline.
  ParallelLayout both = Pp(16, 1, true, true);
  both.num_layers_in_first_pipeline_stage = 3;
  EXPECT_FALSE(MessageAt(CheckPipelineSplit(both, m61), "num_layers_in_first_pipeline_stage").empty());
  ParallelLayout flat = Pp(1, 1, false, false);
  flat.num_layers_in_last_pipeline_stage = 2;
  EXPECT_FALSE(MessageAt(CheckPipelineSplit(flat, m61), "num_layers_in_last_pipeline_stage").empty());
  // Two stages both given must make the model: 30 + 30 of 61 do not.
  ParallelLayout two = Pp(2, 1, false, false);
  two.num_layers_in_first_pipeline_stage = 30;
  two.num_layers_in_last_pipeline_stage = 30;
  EXPECT_NE(MessageAt(CheckPipelineSplit(two, m61), "num_layers_in_first_pipeline_stage").find("do not make"),
            std::string::npos);
}

}  // namespace
}  // namespace zerosim::model
