# README "Using it": --set what-ifs on a procurement scenario with --format csv
run scenarios/procurement/h200_70b.toml --set nic.bandwidth=200Gbps --format csv
