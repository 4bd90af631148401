# README "Using it": a DeepSpeed config over every variant
run scenarios/default.toml --ds-config tests/data/ds/ds_zero_stage_3_config.json
