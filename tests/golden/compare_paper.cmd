# README "Using it": two scenarios side by side (the paper's 4 x 100 Gbps against 1 x 100 Gbps)
compare scenarios/zeropp_paper/fig6_4x100g.toml scenarios/zeropp_paper/fig7_1x100g.toml
