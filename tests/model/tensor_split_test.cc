// Tensor parallelism on one rank (issue 22 step 3; docs/design/tensor_pipeline.md sec. 1.1 and 1.4): the
// module graph (model/schedule/module_graph.h) splits Megatron's column- and row-parallel layers over t and
// leaves norms and row-parallel biases whole; the activation memory (model/report/memory.h) follows
// Korthikanti et al. 2022, Table 2, in all five of its tensor-parallel rows. t = 1 is the whole model, bit
// for bit.
#include <gtest/gtest.h>

#include <string>

#include "model/report/memory.h"
#include "model/schedule/module_graph.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

ParallelLayout Tp(int t, bool sp = false) {
  ParallelLayout l;
  l.tensor = t;
  l.sequence_parallel = sp;
  return l;
}

// Llama-like: grouped-query attention (8 key/value heads), SwiGLU, RMSNorm, rotary, untied head.
ModelSpec Llama() {
  ModelSpec m = testing::Gpt(4, 4096, 32);
  m.kv_heads = 8;
  m.ffn_hidden = 14336;
  m.mlp = MlpKind::kSwiglu;
  m.norm = NormKind::kRmsNorm;
  m.positions = PositionKind::kRotary;
  m.biases = BiasKind::kNone;
  m.tied_embeddings = false;
  m.vocab = 128256;
  return m;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsColumnParallel(const std::string& module) {
  return EndsWith(module, "query_key_value") || EndsWith(module, "dense_h_to_4h");
}
bool IsRowParallel(const std::string& module) {
  return EndsWith(module, "attention.dense") || EndsWith(module, "dense_4h_to_h");
}

void ExpectSameGraph(const ModuleGraph& a, const ModuleGraph& b) {
  ASSERT_EQ(a.params.size(), b.params.size());
  for (size_t i = 0; i < a.params.size(); ++i) {
    EXPECT_EQ(a.params[i].name, b.params[i].name);
    EXPECT_EQ(a.params[i].rows, b.params[i].rows) << a.params[i].name;
    EXPECT_EQ(a.params[i].cols, b.params[i].cols) << a.params[i].name;
  }
  ASSERT_EQ(a.modules.size(), b.modules.size());
  for (size_t i = 0; i < a.modules.size(); ++i) {
    EXPECT_EQ(a.modules[i].name, b.modules[i].name);
    EXPECT_EQ(a.modules[i].params, b.modules[i].params);
    EXPECT_EQ(a.modules[i].forward_flops, b.modules[i].forward_flops) << a.modules[i].name;
    EXPECT_TRUE(a.modules[i].work == b.modules[i].work) << a.modules[i].name;
  }
}

TEST(TensorSplit, OneRankIsTheWholeModel) {
  for (const ModelSpec& m : {testing::Gpt18B(), Llama()}) {
    ExpectSameGraph(BuildModuleGraph(m, 4096, Tp(1)), BuildModuleGraph(m, 4096));
    ExpectSameGraph(BuildModuleGraph(m, 4096, Tp(1, true)), BuildModuleGraph(m, 4096));
    for (RecomputePolicy p : {RecomputePolicy::kNone, RecomputePolicy::kSelective, RecomputePolicy::kFull,
                              RecomputePolicy::kSelectiveOp}) {
      EXPECT_EQ(ActivationBytes(m, 2, p, 1, Tp(1, true)), ActivationBytes(m, 2, p));
    }
  }
}

TEST(TensorSplit, ColumnAndRowLayersSplitOverTheGroupAndTheRestStaysWhole) {
  for (const ModelSpec& m : {testing::Gpt18B(), Llama()}) {
    const ModuleGraph whole = BuildModuleGraph(m, 4096);
    for (int t : {2, 4, 8}) {
      for (bool sp : {false, true}) {
        const ModuleGraph g = BuildModuleGraph(m, 4096, Tp(t, sp));
        ASSERT_EQ(g.modules.size(), whole.modules.size());
        const double sp_share = sp ? t : 1;
        for (size_t i = 0; i < g.modules.size(); ++i) {
          const Module& a = g.modules[i];
          const Module& w = whole.modules[i];
          const std::string& n = a.name;
          // Every module's FLOPs that Megatron counts are 1/t per rank (the logit layer's too).
          EXPECT_DOUBLE_EQ(a.forward_flops * t, w.forward_flops) << n << " t=" << t;
          if (IsColumnParallel(n) || IsRowParallel(n)) {
            ASSERT_EQ(a.work.gemms.size(), 1u);
            EXPECT_DOUBLE_EQ(a.work.gemms[0].flops() * t, w.work.gemms[0].flops()) << n;
            EXPECT_EQ(a.work.gemms[0].m, w.work.gemms[0].m) << n;  // every token, on every rank
            const Param& wa = g.params[a.params[0]];
            const Param& ww = whole.params[w.params[0]];
            EXPECT_EQ(wa.rows * (IsColumnParallel(n) ? t : 1), ww.rows) << n;
            EXPECT_EQ(wa.cols * (IsRowParallel(n) ? t : 1), ww.cols) << n;
            if (a.params.size() > 1) {  // the bias: split with a column layer's outputs, whole on a row layer
              EXPECT_EQ(g.params[a.params[1]].rows * (IsColumnParallel(n) ? t : 1),
                        whole.params[w.params[1]].rows)
                  << n;
            }
          }
          if (EndsWith(n, "attention.core")) {
            EXPECT_DOUBLE_EQ(a.work.attention.batch_heads * t, w.work.attention.batch_heads) << n;
          }
          if (EndsWith(n, "layernorm")) {
            for (size_t k = 0; k < a.params.size(); ++k) {
              EXPECT_EQ(g.params[a.params[k]].numel(), whole.params[w.params[k]].numel()) << n;
            }
            // Without SP every rank normalises the whole sequence; with SP its s/t tokens.
            EXPECT_DOUBLE_EQ(a.work.elementwise_bytes * sp_share, w.work.elementwise_bytes) << n;
          }
        }
        // The vocabulary: V/t rows per rank, rounded up (Megatron pads it).
        const int64_t v_rank = (m.vocab + t - 1) / t;
        EXPECT_EQ(g.params[g.modules[0].params[0]].rows, v_rank);
        EXPECT_EQ(g.modules[g.head_module].work.gemms[0].n, static_cast<double>(v_rank));
      }
    }
  }
}

// Korthikanti et al. 2022, Table 2 (GPT: f = 4h, dropout, unfused attention, 16-bit activations), per layer
// and micro-batch: TP sbh(10 + 24/t + 5as/(ht)); TP + SP sbh(34 + 5as/h)/t; TP + selective sbh(10 + 24/t);
// TP + SP + selective 34sbh/t; full recompute keeps the block input, 2sbh (2sbh/t with SP).
TEST(TensorSplit, ActivationsFollowKorthikantisTableTwo) {
  ModelSpec m = testing::Gpt18B();
  m.attention = AttentionImpl::kUnfused;
  ASSERT_GT(m.dropout, 0);
  const double s = m.seq_len, h = m.hidden, a = m.heads, l = m.layers;
  for (double b : {1.0, 4.0}) {
    const double sbh = s * b * h;
    for (int t : {2, 4, 8}) {
      EXPECT_DOUBLE_EQ(BlockActivationBytes(m, b, RecomputePolicy::kNone, Tp(t)),
                       sbh * (10 + 24.0 / t + 5 * a * s / (h * t)));
      EXPECT_DOUBLE_EQ(BlockActivationBytes(m, b, RecomputePolicy::kNone, Tp(t, true)),
                       sbh * (34 + 5 * a * s / h) / t);
      EXPECT_DOUBLE_EQ(BlockActivationBytes(m, b, RecomputePolicy::kSelective, Tp(t)), sbh * (10 + 24.0 / t));
      EXPECT_DOUBLE_EQ(BlockActivationBytes(m, b, RecomputePolicy::kSelective, Tp(t, true)), 34 * sbh / t);
      EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kFull, 1, Tp(t, true)),
                       l * 2 * sbh / t + sbh * (34 + 5 * a * s / h) / t);
      EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kFull, 1, Tp(t)),
                       l * 2 * sbh + sbh * (10 + 24.0 / t + 5 * a * s / (h * t)));
    }
  }
}

}  // namespace
}  // namespace zerosim::model
