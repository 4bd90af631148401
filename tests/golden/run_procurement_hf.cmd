# README "Using it": a procurement scenario with a Hugging Face model
run scenarios/procurement/h200_70b.toml --hf-config tests/data/hf/llama3.1_70b.json
