// DeepSpeed config files: a real one from DeepSpeedExamples (tests/data/ds/, source in its README), ignored
// keys listed by JSON path, errors with file and path, and `deepspeed_config` in a scenario.
#include "model/io/ds_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/spec/feasibility.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Error(const std::string& text);  // the message of a config that is refused

TEST(DsConfig, DeepSpeedExamplesStage3ConfigIsRead) {
  const std::string path = std::string(ZEROSIM_SOURCE_DIR) + "/tests/data/ds/ds_zero_stage_3_config.json";
  const StatusOr<DsConfig> ds = LoadDsConfig(DiskFileSource(), path, model::ZeroConfig{});
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  // The values written in the file.
  EXPECT_EQ(ds->zero.train_micro_batch_size_per_gpu, 8);
  EXPECT_EQ(ds->zero.gradient_accumulation_steps, 1);
  EXPECT_EQ(ds->zero.stage, 3);
  EXPECT_DOUBLE_EQ(ds->zero.stage3_max_live_parameters, 1e9);
  EXPECT_DOUBLE_EQ(ds->zero.stage3_max_reuse_distance, 1e9);
  EXPECT_DOUBLE_EQ(ds->zero.stage3_prefetch_bucket_size, 6.039798e7);
  EXPECT_DOUBLE_EQ(ds->zero.reduce_bucket_size, 6.710886e7);
  EXPECT_TRUE(ds->zero.contiguous_gradients);
  ASSERT_TRUE(ds->dtype.has_value());
  EXPECT_EQ(*ds->dtype, model::DType::kFp16);
  EXPECT_DOUBLE_EQ(ds->zero.stage3_param_persistence_threshold, 8.192e4);
  for (const char* key :
       {"$.steps_per_print", "$.gradient_clipping", "$.fp16.loss_scale", "$.fp16.initial_scale_power",
        "$.wall_clock_breakdown", "$.zero_allow_untested_optimizer"}) {
    EXPECT_TRUE(Contains(ds->ignored, key)) << key;
  }
  EXPECT_EQ(ds->ignored.size(), 9u);  // 4 top-level keys, 5 fp16 keys besides "enabled"
  EXPECT_FALSE(Contains(ds->ignored, "$.fp16.enabled"));
}

// As DeepSpeed reads a config (issue 39): a key given twice is an error naming its JSON path, not the last
// one silently; a key DeepSpeed does not have is unknown with a did-you-mean (DeepSpeedExamples' original
// ds_zero_stage_3_config.json misspells stage3_param_persistence_threshold), and only DeepSpeed's own keys
// are "ignored (not modelled)".
TEST(DsConfig, DuplicateAndUnknownKeysAreRefusedAsDeepSpeedRefusesThem) {
  const std::string twice = Error(R"({"zero_optimization": {"stage": 1, "stage": 3}})");
  EXPECT_NE(twice.find("ds.json: $.zero_optimization.stage: the key is given twice"), std::string::npos)
      << twice;
  const std::string nested = Error(R"({"a": [1, {"b": {}}, {"c": 1, "c": 2}]})");
  EXPECT_NE(nested.find("ds.json: $.a[2].c: the key is given twice"), std::string::npos) << nested;
  EXPECT_NE(Error(R"({"steps_per_print": 1, "steps_per_print": 1})")
                .find("$.steps_per_print: the key is given twice"),
            std::string::npos);
  // The same key in two objects is no duplicate.
  EXPECT_TRUE(
      ParseDsConfig(R"({"fp16": {"enabled": false}, "bf16": {"enabled": true}})", "ds.json", {}).ok());

  const std::string typo = Error(R"({"zero_optimization": {"stagee": 3}})");
  EXPECT_NE(typo.find("ds.json: $.zero_optimization.stagee: unknown key"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'stage'?"), std::string::npos) << typo;
  const std::string persitence =
      Error(R"({"zero_optimization": {"stage3_param_persitence_threshold": 1e4}})");
  EXPECT_NE(persitence.find("did you mean 'stage3_param_persistence_threshold'?"), std::string::npos)
      << persitence;
  EXPECT_NE(Error(R"({"train_micro_batch_size_per_gpus": 2})")
                .find("did you mean 'train_micro_batch_size_per_gpu'?"),
            std::string::npos);
  EXPECT_NE(Error(R"({"fp16": {"enabled": true, "loss_scal": 0}})").find("$.fp16.loss_scal: unknown key"),
            std::string::npos);
  EXPECT_NE(Error(R"({"activation_checkpointing": {"cpu_checkpointng": true}})")
                .find("did you mean 'cpu_checkpointing'"),
            std::string::npos);
  // DeepSpeed's field names beside its stage3_ aliases are read, not ignored; "bfloat16" is bf16's older
  // name.
  const StatusOr<DsConfig> alias = ParseDsConfig(
      R"({"bfloat16": {"enabled": true}, "zero_optimization": {"max_live_parameters": 5e8, "offload_param": {}}})",
      "ds.json", model::ZeroConfig{});
  ASSERT_TRUE(alias.ok()) << alias.status().message();
  EXPECT_DOUBLE_EQ(alias->zero.stage3_max_live_parameters, 5e8);
  EXPECT_EQ(alias->dtype, model::DType::kBf16);
  EXPECT_EQ(alias->ignored, std::vector<std::string>{"$.zero_optimization.offload_param"});
}

// Counts of elements above 2^53 (DeepSpeed's reduce_bucket_size = 1e300) are refused at the key, not carried
// into bytes that overflow to infinity; integers above INT_MAX are out of range, not "not an integer".
TEST(DsConfig, CountsAndIntegersOutOfRangeAreRefusedAtTheKey) {
  const std::string bucket = Error(R"({"zero_optimization": {"reduce_bucket_size": 1e300}})");
  EXPECT_NE(bucket.find("ds.json: $.zero_optimization.reduce_bucket_size: expected a count of elements"),
            std::string::npos)
      << bucket;
  const std::string stage = Error(R"({"zero_optimization": {"stage": 1e300}})");
  EXPECT_NE(stage.find("$.zero_optimization.stage: expected an integer from 0 to 2147483647"),
            std::string::npos)
      << stage;
  EXPECT_TRUE(ParseDsConfig(R"({"zero_optimization": {"reduce_bucket_size": 9e15}})", "ds.json", {}).ok());
}

// DeepSpeed asserts train_batch_size == micro-batch x accumulation x data-parallel size (_batch_assertion);
// a config that disagrees is refused at $.train_batch_size, through --ds-config and deepspeed_config alike.
TEST(DsConfig, ATrainBatchSizeThatDisagreesIsRefused) {
  std::map<std::string, std::string> files = testing::InputFiles();
  const MemoryFileSource plain(files);
  const StatusOr<Scenario> s = LoadScenario(plain, "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const Variant& v = s->variants[0];
  const int64_t batch = int64_t{2} * v.zero.gradient_accumulation_steps * s->cluster.total_gpus();
  files["ok.json"] = fmt::format(R"({{"train_micro_batch_size_per_gpu": 2, "train_batch_size": {}}})", batch);
  files["bad.json"] =
      fmt::format(R"({{"train_micro_batch_size_per_gpu": 2, "train_batch_size": {}}})", batch + 1);
  const MemoryFileSource fs(files);
  EXPECT_TRUE(ApplyDsConfig(fs, "ok.json", *s).ok());
  const StatusOr<Scenario> bad = ApplyDsConfig(fs, "bad.json", *s);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(fmt::format("bad.json: $.train_batch_size: {} is not "
                                                    "train_micro_batch_size_per_gpu 2 x",
                                                    batch + 1)),
            std::string::npos)
      << bad.status().message();
  std::string scenario = testing::kScenario;
  scenario = "deepspeed_config = \"bad.json\"\n" + scenario;
  files["s2.toml"] = scenario;
  const StatusOr<Scenario> loaded = LoadScenario(MemoryFileSource(files), "s2.toml");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("deepspeed_config"), std::string::npos)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("$.train_batch_size"), std::string::npos)
      << loaded.status().message();
}

TEST(DsConfig, ZeroPlusPlusKeysAndActivationCheckpointing) {
  const StatusOr<DsConfig> ds = ParseDsConfig(
      R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "zero_quantized_weights": true,
          "zero_hpz_partition_size": 8, "zero_quantized_gradients": true, "overlap_comm": false},
          "activation_checkpointing": {"partition_activations": false, "cpu_checkpointing": true}})",
      "ds.json", model::ZeroConfig{});
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  EXPECT_TRUE(ds->zero.zero_quantized_weights);
  EXPECT_EQ(ds->zero.zero_hpz_partition_size, 8);
  EXPECT_TRUE(ds->zero.zero_quantized_gradients);
  EXPECT_FALSE(ds->zero.overlap_comm);
  EXPECT_TRUE(ds->zero.activation_checkpointing);
  EXPECT_EQ(*ds->dtype, model::DType::kBf16);
  EXPECT_EQ(ds->zero.recompute, model::RecomputePolicy::kOffload);  // cpu_checkpointing
  EXPECT_TRUE(Contains(ds->ignored, "$.activation_checkpointing.partition_activations"));
}

TEST(DsConfig, TheStageOrAMicsShardSizePicksTheSchedule) {
  auto strategy = [](const std::string& text, model::Strategy base = model::Strategy::kZero3) {
    model::ZeroConfig z;
    z.strategy = base;
    const StatusOr<DsConfig> ds = ParseDsConfig(text, "ds.json", z);
    EXPECT_TRUE(ds.ok()) << (ds.ok() ? "" : ds.status().message());
    return ds.ok() ? ds->zero.strategy : base;
  };
  EXPECT_EQ(strategy(R"({"zero_optimization": {"stage": 1}})"), model::Strategy::kZero1);
  EXPECT_EQ(strategy(R"({"zero_optimization": {"stage": 2, "allgather_bucket_size": 2e8}})"),
            model::Strategy::kZero2);
  EXPECT_EQ(strategy(R"({"zero_optimization": {"stage": 3}})", model::Strategy::kZero1), model::Strategy::kZero3);
  EXPECT_EQ(strategy(R"({"zero_optimization": {"stage": 3, "mics_shard_size": 8}})"), model::Strategy::kMics);
  EXPECT_EQ(strategy(R"({"zero_optimization": {"stage": 3, "mics_shard_size": -1}})"), model::Strategy::kZero3);
  // Without a stage the base's strategy stays (an FSDP variant under --ds-config keeps its schedule).
  EXPECT_EQ(strategy(R"({"zero_optimization": {"reduce_bucket_size": 1e8}})", model::Strategy::kFsdpFullShard),
            model::Strategy::kFsdpFullShard);
  const StatusOr<DsConfig> mics =
      ParseDsConfig(R"({"zero_optimization": {"stage": 3, "mics_shard_size": 8}})", "ds.json", model::ZeroConfig{});
  ASSERT_TRUE(mics.ok());
  EXPECT_EQ(mics->zero.mics_shard_size, 8);
}

std::string Error(const std::string& text) {
  const StatusOr<DsConfig> ds = ParseDsConfig(text, "ds.json", model::ZeroConfig{});
  EXPECT_FALSE(ds.ok()) << text;
  return ds.ok() ? "" : ds.status().message();
}

TEST(DsConfig, ErrorsNameTheFileAndTheJsonPath) {
  EXPECT_NE(Error(R"({"train_micro_batch_size_per_gpu": "8"})")
                .find("ds.json: $.train_micro_batch_size_per_gpu: expected"),
            std::string::npos);
  EXPECT_NE(Error(R"({"train_micro_batch_size_per_gpu": 2.5})").find("expected an integer"),
            std::string::npos);
  EXPECT_NE(Error(R"({"zero_optimization": {"overlap_comm": 1}})").find("$.zero_optimization.overlap_comm"),
            std::string::npos);
  EXPECT_NE(Error(R"({"bf16": {"enabled": "auto"}})").find("$.bf16.enabled: \"auto\""), std::string::npos);
  EXPECT_NE(Error(R"({"zero_optimization": {"stage": 4}})").find("$.zero_optimization.stage: ZeRO stage 4"),
            std::string::npos);
  EXPECT_NE(Error(R"({"fp16": {"enabled": true}, "bf16": {"enabled": true}})").find("both"),
            std::string::npos);
  EXPECT_NE(Error("{\"fp16\": ").find("ds.json: not valid JSON"), std::string::npos);
  EXPECT_NE(Error("[1]").find("ds.json: $: expected an object"), std::string::npos);
}

TEST(DsConfig, AScenarioTakesItsTrainingAndZeroKeysFromTheConfig) {
  std::string scenario = testing::kScenario;
  // No micro-batch, recompute or [zero] in the scenario: the DeepSpeed config gives them.
  scenario.replace(
      scenario.find("tokens_per_gpu = 1024\nactivation_checkpointing = true\n\n[zero]\nstage = 3\n"),
      std::string("tokens_per_gpu = 1024\nactivation_checkpointing = true\n\n[zero]\nstage = 3\n").size(),
      "");
  scenario = "deepspeed_config = \"ds.json\"\n" + scenario;
  std::map<std::string, std::string> files = testing::InputFiles(scenario);
  files["ds.json"] =
      R"({"train_micro_batch_size_per_gpu": 3, "gradient_accumulation_steps": 2, "bf16": {"enabled": true},
                     "zero_optimization": {"stage": 3, "reduce_bucket_size": 1e7}, "steps_per_print": 5})";
  const StatusOr<Scenario> s = LoadScenario(MemoryFileSource(files), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].zero.train_micro_batch_size_per_gpu, 3);
  EXPECT_EQ(s->variants[0].zero.gradient_accumulation_steps, 2);
  EXPECT_DOUBLE_EQ(s->variants[0].zero.reduce_bucket_size, 1e7);
  EXPECT_EQ(s->variants[0].model.dtype, model::DType::kBf16);
  EXPECT_TRUE(s->variants[1].zero.zero_quantized_weights);  // the variant's own keys still apply
  EXPECT_EQ(s->ignored_config_keys, std::vector<std::string>{"$.steps_per_print"});
  EXPECT_EQ(s->deepspeed_config_file.path, "ds.json");
}

TEST(DsConfig, PrecisionKeysAreRead) {
  // DeepSpeed's names: communication_data_type (top level), data_types.grad_accum_dtype, and the bf16 block's
  // master-weight and optimizer-state formats (runtime/config.py, runtime/constants.py).
  const StatusOr<DsConfig> ds = ParseDsConfig(
      R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true, "bf16_optimizer_states": true},
          "communication_data_type": "FP32", "data_types": {"grad_accum_dtype": "fp32"}})",
      "ds.json", model::ZeroConfig{});
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  const model::Precision& p = ds->zero.precision;
  EXPECT_EQ(p.gradient_reduce_dtype, model::FloatFormat::kFp32);  // DeepSpeed lowers the string
  EXPECT_EQ(p.gradient_accumulation_dtype, model::FloatFormat::kFp32);
  EXPECT_TRUE(p.bf16_master_weights_and_grads);
  EXPECT_TRUE(p.bf16_optimizer_states);
  EXPECT_TRUE(ds->ignored.empty());
  // null is DeepSpeed's default (the model's dtype).
  const StatusOr<DsConfig> d =
      ParseDsConfig(R"({"communication_data_type": null})", "ds.json", model::ZeroConfig{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->zero.precision.gradient_reduce_dtype, model::FloatFormat::kModel);
}

TEST(DsConfig, PrecisionErrorsNameTheJsonPath) {
  EXPECT_NE(Error(R"({"communication_data_type": 32})").find("ds.json: $.communication_data_type: expected"),
            std::string::npos);
  EXPECT_NE(Error(R"({"data_types": {"grad_accum_dtype": "fp8"}})")
                .find("ds.json: $.data_types.grad_accum_dtype: unknown format"),
            std::string::npos);
  EXPECT_NE(Error(R"({"data_types": []})").find("$.data_types: expected an object"), std::string::npos);
  EXPECT_NE(Error(R"({"bf16": {"bf16_optimizer_states": "yes"}})").find("$.bf16.bf16_optimizer_states"),
            std::string::npos);
}

TEST(DsConfig, TheRunFlagAppliesTheConfigOverEveryVariantAndListsItsIgnoredKeys) {
  std::map<std::string, std::string> files = testing::InputFiles();
  files["ds.json"] = R"({"train_micro_batch_size_per_gpu": 2, "communication_data_type": "fp32",
                      "optimizer": {"type": "AdamW"}, "zero_optimization": {"stage": 3, "sub_group_size": 1e9}})";
  files["bad.json"] = R"({"zero_optimization": {"stage": 3, "zero_hpz_partition_size": 3}})";
  const MemoryFileSource fs(files);
  StatusOr<Scenario> s = LoadScenario(fs, "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const StatusOr<Scenario> with = ApplyDsConfig(fs, "ds.json", *s);
  ASSERT_TRUE(with.ok()) << with.status().message();
  for (const Variant& v : with->variants) {
    EXPECT_EQ(v.zero.train_micro_batch_size_per_gpu, 2) << v.name;
    EXPECT_EQ(v.zero.precision.gradient_reduce_dtype, model::FloatFormat::kFp32) << v.name;
  }
  EXPECT_TRUE(
      with->variants[1].zero.zero_quantized_weights);  // the config has no ZeRO++ keys: the variant's stay
  EXPECT_EQ(with->ignored_config_keys,
            (std::vector<std::string>{"$.optimizer", "$.zero_optimization.sub_group_size"}));
  const model::Provenance p = ScenarioProvenance(*with);
  EXPECT_EQ(p.deepspeed_config.path, "ds.json");
  EXPECT_EQ(p.ignored_config_keys, with->ignored_config_keys);
  // A configuration that cannot run (hpZ 3 does not divide the GPUs of a node) is applied; the check that
  // follows every what-if (study::CheckSomeVariantRuns) finds it on each variant.
  const StatusOr<Scenario> bad = ApplyDsConfig(fs, "bad.json", *s);
  ASSERT_TRUE(bad.ok()) << bad.status().message();
  for (const Variant& v : bad->variants) {
    EXPECT_NE(model::DescribeProblems(ValidateVariant(*bad, v)).find("zero_hpz_partition_size"),
              std::string::npos)
        << v.name;
  }
}

TEST(DsConfig, ABf16ConfigWithFp32ReductionIsRead) {
  const std::string path = std::string(ZEROSIM_SOURCE_DIR) + "/tests/data/ds/bf16_fp32_reduce.json";
  const StatusOr<DsConfig> ds = LoadDsConfig(DiskFileSource(), path, model::ZeroConfig{});
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  EXPECT_EQ(ds->dtype, model::DType::kBf16);
  EXPECT_EQ(ds->zero.train_micro_batch_size_per_gpu, 2);
  EXPECT_EQ(ds->zero.gradient_accumulation_steps, 4);
  EXPECT_EQ(ds->zero.precision.gradient_reduce_dtype, model::FloatFormat::kFp32);
  EXPECT_EQ(ds->zero.precision.gradient_accumulation_dtype, model::FloatFormat::kFp32);
  EXPECT_FALSE(ds->zero.precision.bf16_optimizer_states);
  // Everything ZeroSim does not model, by JSON path, in file order.
  EXPECT_EQ(ds->ignored,
            (std::vector<std::string>{"$.gradient_clipping", "$.bf16.immediate_grad_update", "$.optimizer",
                                      "$.zero_optimization.stage3_gather_16bit_weights_on_model_save",
                                      "$.steps_per_print", "$.wall_clock_breakdown"}));
}

}  // namespace
}  // namespace zerosim::io
