# README "Using it": zerosim validate (paper figures and published runs), under the accuracy contract
# (tests/accuracy_contract.toml, issue 36 item 8): it exits 0 while every validation group keeps its limits,
# 1 when one breaks a limit or has none. Some published runs are outside their own tolerance today (the table
# says which); the contract, not those tolerances, is the gate.
validate --contract tests/accuracy_contract.toml
