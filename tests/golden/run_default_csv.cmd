# README "Using it": the report's rows as CSV (--format)
run scenarios/default.toml --format csv
