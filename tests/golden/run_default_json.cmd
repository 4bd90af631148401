# README "Using it": zerosim run scenarios/default.toml --json report.json (the same report on stdout)
run scenarios/default.toml --format json
