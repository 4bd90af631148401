# README "Using it": RLHF by phase
run scenarios/rlhf/gen_66b_32v100.toml
