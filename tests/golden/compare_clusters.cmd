# README "Using it": one scenario on two clusters (topology files; --scenario runs on both)
compare topologies/zeropp_v100_1x100g.toml topologies/zeropp_v100_4x100g.toml
