# README "Using it": number formats and the batch search
run scenarios/precision/llama3.1_70b_h100_64.toml --set nodes=8 --search-batch --global-batch 512
