# README "Using it": zerosim plan on a small shipped sweep
plan scenarios/procurement/v100_ib_links.sweep.toml
