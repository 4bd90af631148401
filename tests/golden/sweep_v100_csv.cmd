# docs/sweeps.md: the small shipped sweep's rows as CSV (the columns of `run --format csv` among them)
sweep scenarios/procurement/v100_ib_links.sweep.toml -o - --quiet --format csv
