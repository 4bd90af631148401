// Batch search (model/report/batch_search.h) on a case computed here: memory is linear in the micro-batch b,
// with the slope written out from Korthikanti's activation terms (full recompute, FlashAttention, dropout):
//   per sequence  s * (2 h L          the kept block inputs
//                    + 34 h + 4 a     one block's working set while it is recomputed (11h attention + 19h MLP
//                                     + 4h norms, and FlashAttention's fp32 log-sum-exp per head)
//                    + 6 V)           the logits, fp16 and fp32 for the loss
// and an HBM set between two micro-batches, so the answer is known before the search runs.
#include <gtest/gtest.h>

#include "model/report/batch_search.h"
#include "model/report/pipeline_evaluate.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

struct Case {
  ModelSpec m = testing::Gpt(8, 2048, 16);
  ZeroConfig z;
  ClusterSpec c = testing::PaperCluster(1, 4, 8);
  double slope = 0;  // bytes per sequence
  double fixed = 0;  // bytes at b = 0
  Case() {
    // The reserve is a fraction of the GPU's memory, which these cases move after computing `fixed`
    // (runtime_memory_test.cc covers it); the other runtime parts do not depend on the micro-batch.
    z.runtime.memory_reserve = 0;
    const double s = m.seq_len, h = m.hidden, a = m.heads, l = m.layers, v = m.vocab;
    slope = s * (2 * h * l + 34 * h + 4 * a + 6 * v);
    fixed = MemoryAtMicroBatch(m, z, c, 1).total_bytes - slope;
  }
};

TEST(BatchSearch, MemoryIsTheHandComputedLine) {
  Case k;
  for (int b : {1, 2, 5, 9}) {
    EXPECT_NEAR(MemoryAtMicroBatch(k.m, k.z, k.c, b).total_bytes, k.fixed + k.slope * b, 1e-6 * k.fixed) << b;
  }
}

TEST(BatchSearch, FindsTheLargestMicroBatchThatFits) {
  Case k;
  k.c.gpu.hbm_bytes = k.fixed + 7.5 * k.slope;  // 7 fit, 8 do not
  const BatchSearchResult r = SearchBatch(k.m, k.z, k.c, 0);
  ASSERT_TRUE(r.fits) << r.reason;
  EXPECT_EQ(r.largest_micro_batch, 7);
  EXPECT_EQ(r.micro_batch, 7);
  EXPECT_LE(r.memory.total_bytes, k.c.gpu.hbm_bytes);
  EXPECT_GT(r.next_total_bytes, k.c.gpu.hbm_bytes);
  EXPECT_GT(MemoryAtMicroBatch(k.m, k.z, k.c, 8).total_bytes, k.c.gpu.hbm_bytes);
  EXPECT_EQ(r.global_batch, 7 * 32);
}

TEST(BatchSearch, TheTargetGlobalBatchSetsTheAccumulation) {
  Case k;
  k.c.gpu.hbm_bytes = k.fixed + 7.5 * k.slope;
  // 384 sequences on 32 GPUs: 12 per GPU per step; the largest micro-batch <= 7 dividing 12 is 6, so 2 steps.
  BatchSearchResult r = SearchBatch(k.m, k.z, k.c, 384);
  EXPECT_TRUE(r.reason.empty()) << r.reason;
  EXPECT_EQ(r.micro_batch, 6);
  EXPECT_EQ(r.gradient_accumulation_steps, 2);
  EXPECT_EQ(r.global_batch, 384);
  // 100 is not a multiple of 32 GPUs: the settings stay, with the reason.
  r = SearchBatch(k.m, k.z, k.c, 100);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_EQ(r.micro_batch, k.z.train_micro_batch_size_per_gpu);
}

TEST(BatchSearch, NothingFitsIsAResultWithAReason) {
  Case k;
  k.c.gpu.hbm_bytes = k.fixed + 0.5 * k.slope;
  const BatchSearchResult r = SearchBatch(k.m, k.z, k.c, 0);
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.largest_micro_batch, 0);
  EXPECT_NE(r.reason.find("one sequence per GPU needs"), std::string::npos) << r.reason;
  // The settings stay the configuration's, and so does the global batch the result reports (study/
  // batch_search_table.h prints it): micro-batch x accumulation x the 32 data-parallel ranks.
  EXPECT_EQ(r.micro_batch, k.z.train_micro_batch_size_per_gpu);
  EXPECT_EQ(r.global_batch,
            static_cast<int64_t>(k.z.train_micro_batch_size_per_gpu) * k.z.gradient_accumulation_steps * 32);
  // With a layout, the data-parallel ranks are P / (t p): 32 / (2 x 2) = 8.
  ParallelLayout l;
  l.tensor = 2;
  l.pipeline = 2;
  const BatchSearchResult tp_pp = SearchBatch(k.m, k.z, k.c, 0, l);
  EXPECT_EQ(tp_pp.global_batch, static_cast<int64_t>(tp_pp.micro_batch) * tp_pp.gradient_accumulation_steps * 8);
}

TEST(BatchSearch, HpzSecondaryCopyCostsMicroBatches) {
  Case k;
  // hpZ over the 8 GPUs of a node keeps 2 Psi / 8 more bytes per GPU (memory.h): the HBM that held 7
  // sequences of ZeRO-3 holds floor(7.5 - (2 Psi / 8) / slope) with hpZ.
  k.c.gpu.hbm_bytes = k.fixed + 7.5 * k.slope;
  ZeroConfig hpz = k.z;
  hpz.zero_hpz_partition_size = 8;
  const double secondary = MemoryAtMicroBatch(k.m, hpz, k.c, 1).hpz_secondary_bytes;
  ASSERT_GT(secondary, 0);
  const BatchSearchResult r = SearchBatch(k.m, hpz, k.c, 0);
  EXPECT_EQ(r.largest_micro_batch, static_cast<int>(7.5 - secondary / k.slope));
}

}  // namespace
}  // namespace zerosim::model

namespace zerosim::model {
namespace {

ParallelLayout Pipeline(int p, int v) {
  ParallelLayout l;
  l.pipeline = p;
  l.virtual_stages = v;
  l.schedule = v > 1 ? PipelineSchedule::kInterleaved1F1B : PipelineSchedule::k1F1B;
  return l;
}

// A pipeline stage's memory grows with the chunks it holds in flight, which the accumulation (chosen after
// the micro-batch) decides: the search counts the most a 1F1B schedule can hold (2 p micro-batches and more
// give the same), not the one micro-batch of the configuration as written.
TEST(BatchSearch, APipelineStageCountsTheChunksItCanHold) {
  // A small vocabulary, so that the first stage, which holds the most micro-batches, binds (the last stage's
  // logits do not).
  ModelSpec m = testing::Gpt(8, 2048, 16);
  m.vocab = 1024;
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  z.activation_checkpointing = false;
  z.gradient_accumulation_steps = 1;
  const ParallelLayout l = Pipeline(2, 1);
  const MemoryBreakdown searched = MemoryAtMicroBatch(m, z, c, 2, l);
  z.train_micro_batch_size_per_gpu = 2;
  EXPECT_EQ(searched.activations_bytes, PipelineMemory(m, z, c, l, 4).activations_bytes);
  EXPECT_EQ(searched.activations_bytes, PipelineMemory(m, z, c, l, 40).activations_bytes);
  EXPECT_GT(searched.activations_bytes, PipelineMemory(m, z, c, l, 1).activations_bytes);
}

// Megatron's interleaved schedule runs a multiple of p micro-batches: the accumulation the search picks for a
// target global batch is one.
TEST(BatchSearch, AnInterleavedPipelineRunsMultiplesOfItsStages) {
  const ModelSpec m = testing::Gpt(8, 2048, 16);
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  const ParallelLayout l = Pipeline(2, 2);
  // 16 data-parallel ranks; 64 sequences are 4 per rank: b = 4 would run 1 micro-batch, so b = 2 runs 2.
  const BatchSearchResult r = SearchBatch(m, z, c, 64, l);
  ASSERT_TRUE(r.fits) << r.reason;
  ASSERT_GE(r.largest_micro_batch, 4);
  EXPECT_TRUE(r.reason.empty()) << r.reason;
  EXPECT_EQ(r.micro_batch, 2);
  EXPECT_EQ(r.gradient_accumulation_steps, 2);
  EXPECT_EQ(r.global_batch, 64);
  // 48 sequences are 3 per rank: 1 x 3 and 3 x 1 both run an odd number of micro-batches.
  EXPECT_FALSE(SearchBatch(m, z, c, 48, l).reason.empty());
}

}  // namespace
}  // namespace zerosim::model
