// What DeepSpeed itself accepts in a config file, for reading one strictly (ds_config.cc):
// - its JSON loader refuses a key given twice in one object (deepspeed/runtime/config.py loads the file with
//   object_pairs_hook=dict_raise_error_on_duplicate_keys);
// - its sections are pydantic models that forbid unknown fields (DeepSpeedConfigModel, extra = "forbid":
//   zero_optimization, fp16, bf16), so a misspelled key there is an error, not a default.
// The key lists are DeepSpeed's own names (runtime/constants.py, runtime/zero/config.py with its aliases,
// runtime/precision_config.py, runtime/activation_checkpointing/config.py), over releases 0.9 to 0.16.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/status.h"

namespace zerosim::io {

// Parses `text` as JSON into `out`. Errors: "PATH: not valid JSON", and a key given twice in one object,
// "PATH: $.a.b: the key is given twice in one object (WHY)", WHY by default "DeepSpeed refuses duplicate
// keys; keep one". Other loaders of JSON files (calibration files) use it with a reason of their own.
Status ParseJsonWithoutDuplicates(const std::string& text, const std::string& path, nlohmann::ordered_json* out,
                                  const std::string& why = "DeepSpeed refuses duplicate keys; keep one");

// Whether `key` is one of DeepSpeed's keys in `section` ("" for the top level, "zero_optimization", "fp16",
// "bf16", "data_types", "activation_checkpointing").
bool IsDeepSpeedKey(const std::string& section, const std::string& key);

// The message for a key of `section` that DeepSpeed does not have: "unknown key (did you mean 'stage'?)".
std::string UnknownDeepSpeedKey(const std::string& section, const std::string& key);

}  // namespace zerosim::io
