# README "Using it": the commands
--help
