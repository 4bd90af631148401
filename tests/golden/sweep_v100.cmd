# README "Using it": a small shipped sweep (4 points), rows on stdout
sweep scenarios/procurement/v100_ib_links.sweep.toml -o - --quiet
