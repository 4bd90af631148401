# README "Using it": zerosim plan over Llama-3.1-70B layouts (tensor x pipeline x strategy per cluster)
plan scenarios/procurement/llama70b_h100_layouts.sweep.toml --search-layout --search-batch --global-batch 1024
