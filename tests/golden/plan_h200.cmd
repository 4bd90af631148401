# README "Using it": zerosim plan scenarios/procurement/h200_400g_vs_200g.sweep.toml --target-days 60
plan scenarios/procurement/h200_400g_vs_200g.sweep.toml --target-days 60
