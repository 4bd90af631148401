#include "model/spec/pipeline_split.h"

#include <algorithm>

namespace zerosim::model {

int ChunkLayers(int layers, const ParallelLayout& l, int stage, int chunk) {
  const int e = l.account_for_embedding_in_pipeline_split ? 1 : 0;
  const int o = l.account_for_loss_in_pipeline_split ? 1 : 0;
  const int chunks = l.pipeline * l.virtual_stages;
  // get_transformer_layer_offset: every virtual stage gets (L + e + o) / (p v) units.
  int n = (layers + e + o) / chunks;
  const int vs = chunk * l.pipeline + stage;
  if (vs == 0) n -= e;           // the embedding's unit
  if (vs == chunks - 1) n -= o;  // the loss's unit
  return n;
}

int StageLayers(int layers, const ParallelLayout& l, int stage) {
  int n = 0;
  for (int c = 0; c < l.virtual_stages; ++c) n += ChunkLayers(layers, l, stage, c);
  return n;
}

int MostChunkLayers(int layers, const ParallelLayout& l, int stage) {
  int most = 0;
  for (int c = 0; c < l.virtual_stages; ++c) most = std::max(most, ChunkLayers(layers, l, stage, c));
  return most;
}

int MostStageLayers(int layers, const ParallelLayout& l) {
  int most = 0;
  for (int i = 0; i < l.pipeline; ++i) most = std::max(most, StageLayers(layers, l, i));
  return most;
}

int StageFirstLayer(int layers, const ParallelLayout& l, int stage) {
  int n = 0;
  for (int i = 0; i < stage; ++i) n += StageLayers(layers, l, i);
  return n;
}

}  // namespace zerosim::model
