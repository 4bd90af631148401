#include "model/spec/pipeline_split.h"

#include <algorithm>

namespace zerosim::model {

namespace {

// With the first or last stage's layers given: the stage's layers (get_num_layers_to_build's first branch).
int GivenStageLayers(int layers, const ParallelLayout& l, int stage) {
  const int first = l.num_layers_in_first_pipeline_stage, last = l.num_layers_in_last_pipeline_stage;
  if (stage == 0 && first > 0) return first;
  if (stage == l.pipeline - 1 && last > 0) return last;
  const int middle_stages = l.pipeline - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
  return middle_stages > 0 ? (layers - first - last) / middle_stages : 0;
}

}  // namespace

int ChunkLayers(int layers, const ParallelLayout& l, int stage, int chunk) {
  if (GivesEndStages(l)) return GivenStageLayers(layers, l, stage) / l.virtual_stages;
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
  if (GivesEndStages(l)) return GivenStageLayers(layers, l, stage);
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
