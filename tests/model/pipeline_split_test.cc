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

}  // namespace
}  // namespace zerosim::model
