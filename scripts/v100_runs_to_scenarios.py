#!/usr/bin/env python3
"""Turns the V100 single-node runs (scenarios/calibration/v100/single_node_runs.json) into ZeroSim's V100
calibration set (issue 35 item 1): scenarios/calibration/v100_<system>_amp.toml, one per published table.

Which rows, and why (the inventory of what is left out is scenarios/calibration/v100/README.md and the list
LEFT_OUT below):
  - NVIDIA DeepLearningExamples PyTorch BERT-large pretraining, container pytorch:20.06, mixed precision (apex AMP
    O2), the tables "Pre-training NVIDIA DGX-2 With 32G", "DGX-1 With 32G" and "DGX-1 With 16G" (grade A: shape,
    micro-batch, accumulation, precision, GPU count and system all printed or derived from printed columns). One
    software generation, `ngc-20.06`: one code version, one container, one set of kernels (cuBLAS of CUDA 11.0,
    apex FusedLayerNorm and FusedLAMB, the unfused attention of modeling.py).
  - FP32 rows: ZeroSim's compute is 16-bit tensor-core GEMMs (V100 has no TF32); FP32 training is not expressible.
  - DGX-2H rows (BERT 19.07, Transformer-XL, Megatron): 450 W V100s at higher clocks (2.1 PFLOPS per DGX-2H against
    2 for the DGX-2, datasheets); ZeroSim has no clock/power model, so they would need their own set. Left out.
  - BERT 21.11 (a different code: NVFuser, sparse MLM head, LDDL binning), SQuAD (sequence length from the script;
    an all-reduce every step over the DGX-1's cube mesh, which ZeroSim's NVSwitch-only intra-node fabric does not
    represent), Transformer-XL (memory attention, adaptive softmax), the C-grade headlines: left out.

What each scenario approximates (stated, not fitted):
  - BERT-large is a post-LayerNorm encoder with bidirectional attention. ZeroSim's block is a pre-LayerNorm GPT
    block: the same GEMMs, norms, biases and GeLU MLP, in another order (no cost difference). The unfused attention
    path (`attention = "unfused"`, modeling.py BertSelfAttention: QK^T, softmax, dropout, PV as separate kernels)
    computes the full s x s square whether or not a causal mask is applied, so the missing mask changes nothing.
  - The MLM head: this code projects all seq_len positions onto the 30,528-wide vocabulary (tied to the word
    embedding), which is ZeroSim's logit layer; BERT's extra h x h transform, pooler and NSP head (0.4% of a
    block's FLOPs) and the two token-type embeddings are not modelled.
  - Data parallelism: apex DDP with gradients all-reduced once per accumulated step (allreduce_post_accumulation);
    written as FSDP NO_SHARD (PyTorch's DDP semantics). At 256-8,192 micro-steps per all-reduce the communication
    is under 0.1% of a step either way.
  - DGX-1's NVLink hybrid cube mesh is written as an NVSwitch port at the DGX-1's per-GPU NVLink bandwidth (6 links
    x 25 GB/s): ZeroSim has no cube-mesh fabric, and the once-per-step all-reduce does not feel the difference.
  - Peak 125 TFLOPS for every part: V100 SXM2 and SXM3 datasheets (DGX-1: 1 PFLOPS over 8 GPUs; DGX-2: 2 PFLOPS over
    16), at the 300 W (SXM2) and 350 W (SXM3) power limits.

The fold of leave-one-out is one published table at one sequence length (the `config` starts with it): every model
here is BERT-large, so "leave one model size out" would leave everything out.

Usage: python3 scripts/v100_runs_to_scenarios.py   (writes into this source tree; deterministic)
"""
import json
import os
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(ROOT, "scenarios", "calibration", "v100", "single_node_runs.json")
CAL_DIR = os.path.join(ROOT, "scenarios", "calibration")
TOPO_DIR = os.path.join(ROOT, "topologies", "calibration")
SOFTWARE = "ngc-20.06"
GROUP = "dle-bert-pyt-2006-pretrain"
# The tables' accumulation (256-8,192 micro-steps per optimizer step) makes schedules of up to 3e7 ops, beyond what
# ZeroSim builds (1e7). Per-GPU throughput depends on it only through the optimizer step and the one all-reduce per
# step, amortized over the micro-steps: at 64 they are under 0.5% of a step (checked: 64 against 256 moves tokens/s by
# the amount printed in docs/fitted_parameters.md), so the scenarios run 64 and say so.
GA_CAP = 64

SYSTEMS = OrderedDict([
    ("dgx2", dict(table="Pre-training NVIDIA DGX-2 With 32G", gpu="V100-SXM3-32GB", hbm="32GiB", gpus_per_node=16,
                  label="DGX-2 (16 x V100-SXM3-32GB, 350 W, NVSwitch)",
                  source="V100 SXM3 32GB (DGX-2 datasheet: 2 PFLOPS tensor over 16 GPUs = 125 TFLOPS dense fp16, "
                         "900 GB/s HBM2, 80 SMs, 6 NVLink2 x 25 GB/s per direction through NVSwitch)")),
    ("dgx1_32g", dict(table="Pre-training NVIDIA DGX-1 With 32G", gpu="V100-SXM2-32GB", hbm="32GiB", gpus_per_node=8,
                      label="DGX-1 (8 x V100-SXM2-32GB, 300 W, NVLink cube mesh)",
                      source="V100 SXM2 32GB (V100 datasheet: 125 TFLOPS dense fp16 tensor, 900 GB/s HBM2, 80 SMs, "
                             "6 NVLink2 x 25 GB/s per direction; DGX-1: 1 PFLOPS over 8 GPUs)")),
    ("dgx1_16g", dict(table="Pre-training NVIDIA DGX-1 With 16G", gpu="V100-SXM2-16GB", hbm="16GiB", gpus_per_node=8,
                      label="DGX-1 (8 x V100-SXM2-16GB, 300 W, NVLink cube mesh)",
                      source="V100 SXM2 16GB (V100 datasheet: 125 TFLOPS dense fp16 tensor, 900 GB/s HBM2, 80 SMs, "
                             "6 NVLink2 x 25 GB/s per direction; DGX-1: 1 PFLOPS over 8 GPUs)")),
])


def topology_text(key, s):
    return f"""# Generated by scripts/v100_runs_to_scenarios.py; do not edit. One {s['label']} node of the V100
# calibration set (DeepLearningExamples BERT pretraining tables, {s['table']}), as the rows that ran on
# {s['gpus_per_node']} of its GPUs (one file per GPU count). No NIC traffic on one node.
name = "1 x {s['gpus_per_node']} {s['gpu']} ({key}, V100 calibration set)"
nodes = 1
gpus_per_node = {s['gpus_per_node']}

[gpu]
name = "{s['gpu']}"
peak_flops = "125TFLOPs"     # {s['source']}
hbm = "{s['hbm']}"
hbm_bandwidth = "900GBps"
sms = 80
compute_capability = 7.0
calibration = "../../kernels/calibration/v100.json"

[intra_node]
fabric = "nvswitch"          # {'NVSwitch' if key == 'dgx2' else 'the DGX-1 cube mesh written as an NVSwitch port (no cube-mesh fabric in ZeroSim; the once-per-step all-reduce does not feel it)'}
bandwidth = "150GBps"        # 6 NVLink2 links x 25 GB/s per direction

[nic]
count = 1
bandwidth = "100Gbps"        # unused on one node

[fabric]
kind = "single_switch"
"""


def write_scenario(key, s, n, cases, model_rel, written):
    variants, expects = [], []
    for c in cases:
        m, tr = c["model"], c["training"]
        seq = m["seq_len"]
        mfile = model_rel.format(seq)
        if mfile not in written:
            with open(os.path.join(CAL_DIR, mfile), "w") as f:
                f.write(model_text(c))
            written.add(mfile)
        variants += ["", "[[variant]]", f'name = "{c["id"]}"', f'model = "{mfile}"', f"seq_len = {seq}",
                     f"train_micro_batch_size_per_gpu = {tr['micro_batch_seqs']}",
                     f"gradient_accumulation_steps = {min(tr['grad_accum'], GA_CAP)}"
                     + (f"   # published {tr['grad_accum']}; capped (GA_CAP in the script)" if tr['grad_accum'] > GA_CAP else "")]
        expects += ["", "[[expect]]", f'variant = "{c["id"]}"', 'metric = "tokens_per_s_per_gpu"',
                    f"value = {c['measured']['tokens_per_s_per_gpu']}", "tolerance = 0.25",
                    f'config = "{key}-s{seq} BERT-large {n}gpu mb{tr["micro_batch_seqs"]} ga{tr["grad_accum"]}"',
                    f'source = "{c["source_ref"]["url"]} table \'{c["source_ref"]["table"]}\' line '
                    f'{c["source_ref"]["line"]} ({c["confidence"]}; tokens/s per GPU = printed sequences/s x '
                    f'seq_len / GPUs)"']
    first = cases[0]
    lines = [
        "# Generated by scripts/v100_runs_to_scenarios.py from scenarios/calibration/v100/single_node_runs.json;",
        "# do not edit (rerun the script). The V100 calibration set (issue 35): published single-node runs, one",
        f"# variant per case. Source table: {s['table']} ({first['source_ref']['url']}), {s['label']}, {n} GPU(s).",
        f"# Software ({SOFTWARE}): container {first['software']['container']}, CUDA 11.0.167 (NGC 20.06 release notes),",
        "# apex AMP O2 (fp16), apex FusedLayerNorm and FusedLAMB, unfused attention (modeling.py BertSelfAttention).",
        "# What is approximated (BERT's encoder as ZeroSim's block, DDP as FSDP NO_SHARD): scripts/v100_runs_to_scenarios.py.",
        f'name = "calibration set: v100_{key}_{n}gpu_amp"',
        'group = "calibration: V100 fp16 (DeepLearningExamples BERT, 1 node)"',
        f'topology = "../../topologies/calibration/v100_{key}_{n}gpu.toml"',
        f'model = "{model_rel.format(first["model"]["seq_len"])}"',
        "", "[training]",
        f"seq_len = {first['model']['seq_len']}",
        f"train_micro_batch_size_per_gpu = {first['training']['micro_batch_seqs']}",
        "activation_checkpointing = false   # run_pretraining.py: no checkpointing in the 20.06 tables' runs",
        'attention = "unfused"   # modeling.py BertSelfAttention: QK^T, softmax, dropout, PV as separate kernels',
        "", "[runtime]",
        'framework = "fsdp"   # PyTorch with apex DDP: CUDA\'s 8 hardware queues (nothing sets CUDA_DEVICE_MAX_CONNECTIONS)',
        f'software = "{SOFTWARE}"   # the V100 calibration\'s efficiency set for this container\'s stack',
        "", "[zero]",
        'strategy = "fsdp_no_shard"   # apex DDP, all-reduce once per accumulated step (DDP semantics)',
    ]
    with open(os.path.join(CAL_DIR, f"v100_{key}_{n}gpu_amp.toml"), "w") as f:
        f.write("\n".join(lines + variants + expects) + "\n")


def model_text(c):
    m = c["model"]
    return f"""# Generated by scripts/v100_runs_to_scenarios.py; do not edit. BERT-large as DeepLearningExamples'
# PyTorch BERT builds it ({m['shape_source']}).
# ZeroSim's block stands for BERT's post-LN encoder block (the same GEMMs, norms and biases; see the script).
name = "BERT-large"
source = "scenarios/calibration/v100/single_node_runs.json case {c['id']}"
layers = {m['layers']}
hidden = {m['hidden']}
heads = {m['heads']}
ffn_hidden = {m['ffn']}
vocab = {m['vocab']}
max_position_embeddings = 512
tied_embeddings = true       # the MLM decoder is tied to the word embedding
dtype = "fp16"
dropout = 0.1
positions = "learned"
biases = "all"
"""


def main():
    with open(RUNS) as f:
        runs = json.load(f)
    os.makedirs(TOPO_DIR, exist_ok=True)
    model_rel = "models/v100_bert_large_s{}.toml"
    written = set()
    by_system = OrderedDict((k, []) for k in SYSTEMS)
    for c in runs["cases"]:
        if c["group"] != GROUP or "-amp-" not in c["id"]:
            continue
        key = next(k for k, s in SYSTEMS.items() if c["source_ref"]["table"] == s["table"])
        by_system[key].append(c)
    total = files = 0
    for key, all_cases in by_system.items():
        s = SYSTEMS[key]
        # One scenario and one topology per GPU count (a topology is per scenario: the row's GPUs are one node of n).
        for n in sorted({c["cluster"]["total_gpus"] for c in all_cases}):
            cases = [c for c in all_cases if c["cluster"]["total_gpus"] == n]
            with open(os.path.join(TOPO_DIR, f"v100_{key}_{n}gpu.toml"), "w") as f:
                f.write(topology_text(key, dict(s, gpus_per_node=n)))
            total += len(cases)
            files += 1
            write_scenario(key, s, n, cases, model_rel, written)
    print(f"{total} cases written into {files} scenarios under {CAL_DIR}")


if __name__ == "__main__":
    main()
