# README "Using it": one-parameter what-ifs
run scenarios/default.toml --set nic.bandwidth=200Gbps --set nodes=16
