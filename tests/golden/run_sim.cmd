# README "Two engines": the SimGrid discrete-event replay of the default scenario
run --engine sim
