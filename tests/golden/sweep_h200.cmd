# README "Using it": zerosim sweep scenarios/procurement/h200_400g_vs_200g.sweep.toml -o h200.jsonl -j 2 (rows on stdout)
sweep scenarios/procurement/h200_400g_vs_200g.sweep.toml -o - -j 2 --quiet
