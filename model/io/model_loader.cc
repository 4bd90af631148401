#include <fmt/format.h>

#include "model/io/loaders.h"
#include "model/io/table_reader.h"

namespace zerosim::io {

StatusOr<ModelFile> LoadModel(const FileSource& fs, const std::string& path) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();

  Status status;
  ModelFile out;
  out.file = doc->file;
  model::ModelSpec& m = out.model;
  TableReader root(&doc.value().table, path, "", &status);
  m.name = root.String("name");
  out.source = root.String("source");
  m.layers = static_cast<int>(root.Int("layers", 1));
  m.hidden = static_cast<int>(root.Int("hidden", 1));
  m.heads = static_cast<int>(root.Int("heads", 1));
  m.ffn_hidden = static_cast<int>(root.Int("ffn_hidden", 1));
  m.vocab = static_cast<int>(root.Int("vocab", 1));
  m.max_position_embeddings = static_cast<int>(root.Int("max_position_embeddings", 1));
  m.tied_embeddings = root.Bool("tied_embeddings");
  m.dropout = root.NumberOr("dropout", m.dropout, 0.0, 0.99);
  const std::string dtype = root.String("dtype");
  if (dtype == "fp16") {
    m.dtype = model::DType::kFp16;
  } else if (dtype == "bf16") {
    m.dtype = model::DType::kBf16;
  } else if (status.ok()) {
    root.Fail("dtype", fmt::format("unknown dtype \"{}\" (supported: fp16, bf16)", dtype));
  }
  if (status.ok() && m.hidden % m.heads != 0) {
    root.Fail("heads", fmt::format("hidden size {} is not divisible by {} heads", m.hidden, m.heads));
  }
  root.Finish();
  if (!status.ok()) return status;
  return out;
}

}  // namespace zerosim::io
