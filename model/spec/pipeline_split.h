// PipelineSplit: which transformer layers each pipeline stage and each of its model chunks holds.
//
// Megatron-Core splits L layers over the p v virtual stages (virtual stage vs = chunk x p + stage, the order
// the layers run in) evenly, L / (p v) each, unless the embedding and the loss are counted as layers of
// their own (TransformerConfig account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split;
// megatron/core/transformer/transformer_layer.py get_transformer_layer_offset and transformer_block.py
// get_num_layers_to_build): then (L + e + o) / (p v) units go to every virtual stage, the first virtual stage
// (stage 0, chunk 0, which holds the embedding) builds e of them fewer layers and the last (stage p - 1,
// chunk v - 1, which holds the output layer and the loss) o fewer. Megatron-Bridge's Llama 3.1 405B recipe
// sets both (126 layers + 2 over 8 x 8 chunks: 2 each, the first and last chunk 1); torchtitan's 2024-12
// generate_split_points gives the same split for 126 layers over 8 or 16 stages (the first and last one
// layer fewer), and the Llama 3 paper (sec. 3.3.2) removes one layer from the first and the last stage.
//
// Or the first and (or) last stage's layers are given (num_layers_in_first_pipeline_stage /
// num_layers_in_last_pipeline_stage; get_transformer_layer_offset's other branch and
// get_num_layers_to_build): the other stages share the rest evenly, and each stage's layers split evenly over
// its v chunks. DeepSeek-V3's Megatron recipes use them for its 61 layers.
//
// Preconditions (model/spec/feasibility.h CheckLayout): p, v >= 1; (L + e + o) divisible by p v, every
// virtual stage at least one layer; or the given stages' rules (CheckPipelineSplit).
#pragma once

#include "model/spec/parallel_layout.h"

namespace zerosim::model {

// Layers of virtual stage `chunk` x p + `stage`.
int ChunkLayers(int layers, const ParallelLayout& l, int stage, int chunk);

// Layers pipeline stage `stage` holds: the sum over its v chunks.
int StageLayers(int layers, const ParallelLayout& l, int stage);

// The most layers stage `stage` holds in one chunk (what one chunk in flight keeps of activations).
int MostChunkLayers(int layers, const ParallelLayout& l, int stage);

// The most layers any stage holds.
int MostStageLayers(int layers, const ParallelLayout& l);

// The index of stage `stage`'s first layer with v = 1 (its chunks are contiguous only then): the layers of
// the stages before it.
int StageFirstLayer(int layers, const ParallelLayout& l, int stage);

// Whether the embedding or the loss is counted in the split (either flag set).
inline bool CountsEmbeddingOrLoss(const ParallelLayout& l) {
  return l.account_for_embedding_in_pipeline_split || l.account_for_loss_in_pipeline_split;
}

// Whether the first or the last stage's layers are given.
inline bool GivesEndStages(const ParallelLayout& l) {
  return l.num_layers_in_first_pipeline_stage > 0 || l.num_layers_in_last_pipeline_stage > 0;
}

}  // namespace zerosim::model
