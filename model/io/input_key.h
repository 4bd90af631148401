// An input key of a scenario table as data: its name (the TOML key, the sweep axis and the `--set` name), the
// type and range of its values, and where a value goes in the object the table configures (a ParallelLayout
// for
// `[parallel]`, a ZeroConfig for `[zero]`). A table's plain keys are a list of these (parallel_keys.h
// ParallelKeys, zero_keys.h ZeroKeys), which its loader reads (ReadKeys) and from which io/sweep.cc makes the
// sweep axes with the same types and ranges: one entry per key (issue 36 item 5, the input twin of the
// report's field list).
#pragma once

#include <cstdint>
#include <vector>

#include "model/io/table_reader.h"

namespace zerosim::io {

enum class KeyType {
  kInt,     // a whole number in [min, max]
  kBool,    // true or false (set as 1 or 0)
  kNumber,  // a number in [min, max]
  kCount,   // a whole number of elements, written as an integer or a float (5e7), in [min, max]
};

template <typename Target>
struct InputKey {
  const char* key;
  KeyType type;
  double min = 0;
  double max = 0;
  void (*set)(Target* target, double value) = nullptr;
};

// Reads each key of `keys` present in `t` into `target` (absent keys leave it as it is); every key is marked
// known (for "did you mean" on a misspelt one). Out of range: TableReader's error at the key.
template <typename Target>
void ReadKeys(TableReader* t, const std::vector<InputKey<Target>>& keys, Target* target) {
  for (const InputKey<Target>& k : keys) {
    t->MarkKnown(k.key);
    if (!t->Has(k.key)) continue;
    switch (k.type) {
      case KeyType::kInt:
        k.set(target, static_cast<double>(
                          t->IntOr(k.key, 0, static_cast<int64_t>(k.min), static_cast<int64_t>(k.max))));
        break;
      case KeyType::kBool:
        k.set(target, t->BoolOr(k.key, false) ? 1.0 : 0.0);
        break;
      case KeyType::kNumber:
        k.set(target, t->NumberOr(k.key, 0, k.min, k.max));
        break;
      case KeyType::kCount:
        k.set(target, t->CountOr(k.key, 0, k.min, k.max));
        break;
    }
  }
}

}  // namespace zerosim::io
