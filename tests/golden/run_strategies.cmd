# README "Using it": the sharding strategies side by side
run scenarios/strategies/llama70b_64xh100.toml
