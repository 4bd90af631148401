# README "Quick start" (./dev.sh run) and "Using it": the embedded default scenario
run
