#!/usr/bin/env python3
"""Turns the published mixture-of-experts runs (scenarios/published/moe/runs.json, issue 37) into ZeroSim scenarios.

Validation only: nothing is fitted on them. One scenario per run ZeroSim can express, under
scenarios/published/moe/, group "moe: Megatron-Core MoE (Megatron-Bridge, Megatron-Core)", one variant and one
[[expect]] (tokens/s per GPU where printed, else TFLOP/s per GPU, the published number verbatim); the model shapes
under scenarios/published/moe/models/ from the run's Hugging Face config fields. Megatron-Core runs are expressed
as scripts/today_runs_to_scenarios.py expresses them (ZeRO-1 for the distributed optimizer, the megatron launcher,
the DDP overlap the Megatron-Bridge recipes set, `megatron-core-2025` compute, FP8 linear layers as `fp8_gemms`
whatever the scaling recipe), with the experts' layout as printed (`expert`, tensor 1 = ETP 1) and balanced
routing (`expert_load_imbalance` 1: the page's force-balanced rows; its 25.09 token-drop rows at their capacity).

Runs ZeroSim cannot express yet are listed in scenarios/published/moe/cases.json with their reason (`zerosim
validate` prints the inventory), never bent: context parallelism, multi-head latent attention (DeepSeek-V3),
expert tensor parallelism (TP > 1 on an MoE model),
uneven pipeline stages, GB200 jobs that do not fill NVL72 racks, runs without a stated layout.

Usage: python3 scripts/moe_runs_to_scenarios.py   (from anywhere; writes into this source tree)
Deterministic: the same input gives the same files.
"""
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(ROOT, "scenarios", "published", "moe", "runs.json")
OUT = os.path.join(ROOT, "scenarios", "published", "moe")
GROUP = "moe: Megatron-Core MoE (Megatron-Bridge, Megatron-Core)"
TOLERANCE = 0.25
# What the Megatron-Bridge perf configs recompute, where read (Megatron's module recompute: recompute_layernorm,
# recompute_moe_act); elsewhere not printed, and `none` keeps every activation (an upper bound on the memory).
RECOMPUTE_NOTE = {
    "gpt-oss-120b": 'recompute = "selective"\n'
                    'recompute_layernorm = true   # the recipes recompute modules ["layernorm", "moe_act"] '
                    '(Megatron-Bridge 07eea52d scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py '
                    'H100 and B200 BF16)\nrecompute_moe_act = true',
}
TOPOLOGY = {"H100": "../../../topologies/published/today_dgx_h100_8x400g.toml",
            "B200": "../../../topologies/dgx_b200_8x400g.toml"}


def reason_not_run(c):
    """Why ZeroSim cannot run case `c` as its source states it; None when it can."""
    t, m, cl = c["training"], c["model"], c["cluster"]
    name = m["name"]
    if c["group"] == "cp" or (t.get("cp") or 1) > 1:
        return "context parallelism is not modelled yet (issue 37 item 3)"
    if t.get("tp") is None or t.get("pp") is None or t.get("ep") is None:
        return "layout not stated (headline only)"
    if "DeepSeek" in name:
        return "multi-head latent attention (DeepSeek-V3's MLA) is not modelled"
    if t["tp"] > 1:
        return "tensor parallelism of an MoE model (expert tensor parallelism) is not modelled yet"
    vp = t.get("vp") or 1
    if m["layers"] % (t["pp"] * vp) != 0:
        return f"{m['layers']} layers do not split evenly over pipeline {t['pp']} x virtual {vp}: uneven stages " \
               "are not modelled"
    gpu = cl["gpu"].split()[0].split("-")[0]
    if gpu == "GB200" and cl["total_gpus"] % 72 != 0:
        return f"{cl['total_gpus']} GB200 GPUs do not fill NVL72 racks (ZeroSim's node is the NVLink domain)"
    if gpu not in TOPOLOGY:
        return f"no validation topology for {cl['gpu']} yet"
    measured = c["measured"]
    if measured.get("tokens_per_s_per_gpu") is None and measured.get("tflops_per_gpu") is None:
        return "no throughput printed"
    return None


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def model_file(m):
    """The model TOML of the run's shape; returns (file name, text)."""
    name = f"{slug(m['name'].split('(')[0])}.toml"
    width = m["hidden"]
    lines = [
        f"# {m['name']}: the shape of {m['hf_config']} (docs/design/moe_cp_sources.md (b)), as",
        "# scenarios/published/moe/runs.json records it. Written by scripts/moe_runs_to_scenarios.py; do not edit.",
        f'name = "{m["name"].split(" (")[0]}"',
        f'source = "{m["hf_config"]} config.json (Hugging Face), via scenarios/published/moe/runs.json"',
        f"layers = {m['layers']}",
        f"hidden = {width}",
        f"heads = {m['heads']}",
        f"kv_heads = {m['kv_heads']}",
    ]
    if m.get("head_dim") and m["head_dim"] * m["heads"] != width:
        lines.append(f"head_dim = {m['head_dim']}")
    lines += [
        f"ffn_hidden = {m['dense_ffn']}" if m.get("dense_ffn") else
        f"ffn_hidden = {m['moe_ffn']}   # the dense MLP's width is not recorded; unused: every block is MoE",
        f"vocab = {m['vocab']}",
        "max_position_embeddings = 32768   # not recorded in runs.json; rotary positions: only the sequence's limit",
        "tied_embeddings = false",
        'dtype = "bf16"',
        "dropout = 0.0",
        'mlp = "swiglu"',
        'norm = "rmsnorm"',
        'positions = "rotary"',
        'biases = "none"',
        f"experts = {m['experts']}",
        f"experts_per_token = {m['top_k']}",
        f"moe_ffn_hidden = {m['moe_ffn']}",
    ]
    if m.get("first_k_dense"):
        lines.append(f"first_dense_layers = {m['first_k_dense']}")
    window = re.search(r"sliding-window \((\d+)\)", m.get("attention", ""))
    if window:
        # gpt-oss: layer_types alternate sliding and full attention from the first block (the attention sinks,
        # one logit per head, are not modelled).
        lines += [f"sliding_window = {window.group(1)}", "full_attention_interval = 2"]
    if "gpt-oss" in m["name"]:
        lines[lines.index('biases = "none"')] = 'biases = "all"   # attention_bias and the experts\' biases'
    return name, "\n".join(lines) + "\n"


def scenario(c, model_name):
    t, m, cl, measured = c["training"], c["model"], c["cluster"], c["measured"]
    gpus, per_node = cl["total_gpus"], cl["gpus_per_node"]
    vp = t.get("vp") or 1
    dp = gpus // (t["tp"] * t["pp"])
    accumulation = t["global_batch_seqs"] // (t["micro_batch_seqs"] * dp)
    fp8 = "FP8" in t["precision"].upper()
    metric, value = ("tokens_per_s_per_gpu", measured["tokens_per_s_per_gpu"]) \
        if measured.get("tokens_per_s_per_gpu") is not None else ("tflops_per_gpu", measured["tflops_per_gpu"])
    lines = [
        "# Generated by scripts/moe_runs_to_scenarios.py from scenarios/published/moe/runs.json; do not edit.",
        f"# {c['id']}: {m['name']} on {gpus} x {cl['gpu']}: expert {t['ep']}, pipeline {t['pp']} x {vp}, "
        f"data {dp}, tensor {t['tp']}.",
        f"# Software: {c['source_version']}. Validation only: nothing is fitted on it.",
        "# Megatron-Core's distributed optimizer as ZeRO-1 under the megatron launcher (CUDA_DEVICE_MAX_CONNECTIONS=1),",
        "# the DDP overlap of the Megatron-Bridge recipes, the alltoall token dispatcher, balanced routing.",
        f'name = "published: {c["id"]}"',
        f'group = "{GROUP}"',
        f'topology = "{TOPOLOGY[cl["gpu"].split()[0].split("-")[0]]}"',
        f"nodes = {gpus // per_node}",
        f'model = "models/{model_name}"',
        "",
        "[training]",
        f"seq_len = {t['seq_len']}",
        f"train_micro_batch_size_per_gpu = {t['micro_batch_seqs']}",
        f"gradient_accumulation_steps = {accumulation}",
        RECOMPUTE_NOTE.get(m["name"].split(" ")[0],
                           'recompute = "none"   # not printed; the MoE perf recipes recompute parts of some blocks'),
        'attention = "flash"',
        "",
        "[runtime]",
        'launcher = "megatron-deepspeed"',
        'software = "megatron-core-2025"',
        "",
        "[zero]",
        'strategy = "zero1"',
        "overlap_grad_reduce = true",
        "overlap_param_gather = true",
        'communication_data_type = "fp32"',
    ]
    if fp8:
        lines.append(f"fp8_gemms = true   # {t['precision']}: every FP8 recipe as TransformerEngine's per-tensor GEMMs")
    lines += ["", "[parallel]", f"expert = {t['ep']}"]
    if t["pp"] > 1:
        lines.append(f"pipeline = {t['pp']}")
    if vp > 1:
        lines += [f"virtual_stages = {vp}", 'schedule = "interleaved_1f1b"']
    lines += [
        "",
        "[[variant]]",
        f'name = "{c["id"]}"',
        "",
        "[[expect]]",
        f'variant = "{c["id"]}"',
        f'metric = "{metric}"',
        f"value = {float(value)}",
        f"tolerance = {TOLERANCE}",
        f'config = "{c["quoted"][:200]}"',
        f'source = "{c["source"]} ({c["confidence"]})"',
    ]
    return "\n".join(lines) + "\n"


def main():
    with open(RUNS) as f:
        runs = json.load(f)
    os.makedirs(os.path.join(OUT, "models"), exist_ok=True)
    inventory = []
    for c in runs["cases"]:
        why = reason_not_run(c)
        inventory.append({"id": c["id"], "run": why is None, "reason": why or ""})
        if why is not None:
            continue
        name, text = model_file(c["model"])
        with open(os.path.join(OUT, "models", name), "w") as f:
            f.write(text)
        with open(os.path.join(OUT, f"{c['id']}.toml"), "w") as f:
            f.write(scenario(c, name))
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"about": "Every run of scenarios/published/moe/runs.json: run by a scenario of this folder or not, "
                            "and why. Written by scripts/moe_runs_to_scenarios.py; zerosim validate counts it.",
                   "cases": inventory}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
