#!/usr/bin/env python3
"""Turns the published runs of today's stacks (issue 34 item 1) into ZeroSim scenarios.

Two sets, never mixed:
  - the calibration set: scenarios/calibration/today/single_node_runs.json (single-node runs of 2024-26 stacks:
    Megatron-Bridge / NeMo / Megatron-Core with TransformerEngine, torchtitan), one scenario per GPU x precision
    recipe as scenarios/calibration/today_<gpu>_<recipe>.toml, one variant and one [[expect]] of tokens/s per GPU
    (the published number verbatim) per case. `zerosim fit` fits a software generation's compute on them.
  - validation groups: the multi-node runs of the same stacks in scenarios/published/tp_pp/runs.json (ids
    mbridge*, nemo2407*, megatron-llama-example*, mcore-h100*, nemo-longseq*, torchtitan*, llama3-405b*), one
    scenario per run under scenarios/published/today/, grouped per source. Nothing is fitted on them.

Each run is expressed as its source states it: TP, SP, PP, VP, micro-batch, global batch, FP8 linear layers as
`fp8_gemms`, the attention kernel through the software generation, the framework. Megatron-Core runs (NeMo,
Megatron-Bridge, Megatron-LM) are ZeRO-1 (the distributed optimizer: the gradients reduce-scattered, the updated
parameters all-gathered) under the megatron launcher (CUDA_DEVICE_MAX_CONNECTIONS=1), as
scripts/tp_runs_to_scenarios.py runs Megatron-LM; torchtitan runs are FSDP2 (torchtitan's `apply_fsdp`).
Runs ZeroSim cannot express (context parallelism, MoE, LoRA, uneven pipeline stages, pipeline stages sharing a
node, torch.compile off, async TP, a GPU without a calibration, unstated precision or micro-batch) are counted with
their reason in each folder's cases.json (`zerosim validate` prints the inventory), never bent.

Usage: python3 scripts/today_runs_to_scenarios.py   (from anywhere; writes into this source tree)
Deterministic: the same input gives the same files.
"""
import json
import os
import re

from pipeline_splits import TITAN_SPLIT_SOURCE, titan_split_is_counted
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINGLE = os.path.join(ROOT, "scenarios", "calibration", "today", "single_node_runs.json")
RUNS = os.path.join(ROOT, "scenarios", "published", "tp_pp", "runs.json")
CAL_DIR = os.path.join(ROOT, "scenarios", "calibration")
VAL_DIR = os.path.join(ROOT, "scenarios", "published", "today")
TOPO_CAL = os.path.join(ROOT, "topologies", "calibration")
TOPO_PUB = os.path.join(ROOT, "topologies", "published")
TOLERANCE = 0.25

MCORE = "megatron-core-2025"
TITAN = "torchtitan-2024-12"
SOFTWARE_NOTE = {
    MCORE: "Megatron-Core with TransformerEngine (NeMo 24.03-25.07, Megatron-Bridge 25.09-26.04 containers): TE GEMMs, "
           "FP8 per-tensor scaling, cuDNN fused attention (TE's default backend on Hopper and Blackwell)",
    TITAN: "torchtitan 2024-12 (PyTorch nightly 1963fc8 with torch.compile, torchao Float8Linear tensorwise, SDPA "
           "attention)",
}

# The GPUs, their datasheet facts and calibration files. GB200: the B200's Blackwell die in a GB200 superchip,
# clocked higher (a 1,200 W part against the B200's 1,000 W), so its own peaks and its own calibration file.
GPUS = OrderedDict([
    ("h100", dict(name="H100-SXM5-80GB", peak="989TFLOPs", fp8="1979TFLOPs", hbm="81559MiB", hbm_bw="3350GBps",
                  sms=132, cc="9.0", nvlink="450GBps", calibration="h100.json",
                  source="H100 SXM5 datasheet: 989 TFLOPS dense bf16, 1,979 dense FP8, 80 GB HBM3 at 3,350 GB/s, "
                         "132 SMs, NVLink4 900 GB/s bidirectional",
                  hbm_note="what the device reports: nvidia-smi on an H100 80GB (modal-labs/modal-client#2797)")),
    ("h100_96gb_500w", dict(
        name="H100-SXM5-96GB-500W", peak="989TFLOPs", fp8="1979TFLOPs", hbm="98304MiB", hbm_bw="3350GBps", sms=132,
        cc="9.0", nvlink="450GBps", calibration="h100.json",
        source="H100 SXM5 datasheet peaks (989 TFLOPS dense bf16, 1,979 dense FP8, 132 SMs)",
        power_limit="500W",
        power_note="as torchtitan's benchmark states. Not counted twice: the torchtitan-2024-12 set was fitted on these "
                   "500 W parts and says so (power_limit_W 500 in h100.json), so the power model's factor is "
                   "F(500 W) / F(500 W) = 1 for it and F(500 W) = 0.876 for a set obtained at the default 700 W "
                   "(model/spec/gpu_power.h)",
        hbm_note="96 GB as torchtitan's benchmark states (H100 96GB); bandwidth assumed the H100 SXM5's 3,350 GB/s "
                 "(the benchmark states HBM2e without a bandwidth)")),
    ("b200", dict(name="B200-SXM-180GB", peak="2250TFLOPs", fp8="4500TFLOPs", hbm="183359MiB", hbm_bw="8TBps",
                  sms=148, cc="10.0", nvlink="900GBps", calibration="b200.json",
                  source="DGX B200 datasheet: 72 PFLOPS FP8 training (sparse) over 8 GPUs = 4.5 dense FP8, 2.25 dense "
                         "bf16 per GPU; 180 GB HBM3e at 8 TB/s; 148 SMs; NVLink5 1.8 TB/s bidirectional",
                  hbm_note="nvidia-smi on a B200 (NVIDIA/TensorRT-LLM#10278)")),
    ("gb200", dict(name="GB200-186GB", peak="2500TFLOPs", fp8="5000TFLOPs", hbm="189471MiB", hbm_bw="8TBps",
                   sms=148, cc="10.0", nvlink="900GBps", calibration="gb200.json",
                   source="GB200 NVL72 datasheet: 360 PFLOPS FP16/BF16 and 720 PFLOPS FP8 with sparsity over 72 GPUs = "
                          "2.5 dense bf16 and 5 dense FP8 per GPU; 186 GB HBM3e at 8 TB/s per GPU; NVLink5 1.8 TB/s "
                          "bidirectional; SMs assumed the B200's 148 (the same Blackwell die)",
                   hbm_note="186 GB per GPU (GB200 NVL72 datasheet: 13.4 TB over 72 GPUs), as GiB")),
])

# Calibration tables: (single_node_runs.json group, precision recipe) -> file slug, GPU, software, FP8.
TABLES = OrderedDict([
    ("today_h100_fp8", dict(gpu="h100", software=MCORE, fp8=True, label="H100 FP8 (Megatron-Core/TE, 1 node)",
                            groups=["mbridge-1node-h100-fp8-cs", "nemo-1node-h100-fp8", "nemo-1node-h100-fp8-sft",
                                    "nemo-longseq-1node-h100-fp8"])),
    ("today_b200_fp8cs", dict(gpu="b200", software=MCORE, fp8=True, label="B200 FP8-CS (Megatron-Core/TE, 1 node)",
                              groups=["mbridge-1node-b200-fp8-cs"])),
    ("today_b200_mxfp8", dict(gpu="b200", software=MCORE, fp8=True, label="B200 MXFP8 (Megatron-Core/TE, 1 node)",
                              groups=["mbridge-1node-b200-mxfp8"])),
    ("today_b200_fp8", dict(gpu="b200", software=MCORE, fp8=True,
                            label="B200 FP8, recipe not stated (NeMo 25.02, 1 node)", groups=["nemo-docs-1node-b200-fp8"])),
    ("today_gb200_fp8cs", dict(gpu="gb200", software=MCORE, fp8=True, label="GB200 FP8-CS (Megatron-Core/TE, 1 node)",
                               groups=["mbridge-1node-gb200-fp8-cs", "nemo-docs-1node-gb200-fp8-cs"])),
    ("today_gb200_mxfp8", dict(gpu="gb200", software=MCORE, fp8=True, label="GB200 MXFP8 (Megatron-Core/TE, 1 node)",
                               groups=["mbridge-1node-gb200-mxfp8"])),
    ("today_h100_500w_bf16", dict(gpu="h100_96gb_500w", software=TITAN, fp8=False,
                                  label="H100 500 W BF16 (torchtitan, 1 node)", groups=["torchtitan-1node-h100-bf16"])),
    ("today_h100_500w_float8", dict(gpu="h100_96gb_500w", software=TITAN, fp8=True,
                                    label="H100 500 W Float8 (torchtitan, 1 node)",
                                    groups=["torchtitan-1node-h100-float8", "torchtitan-1node-h100-float8-cp"])),
])


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def family(name):
    n = name.lower()
    if "gpt" in n:
        return "gpt"
    if "nemotron" in n:
        return "nemotron"
    return "llama"


def model_text(m, source, generator):
    """The model as its source defines it: Llama 2/3 (RMSNorm, rotary, SwiGLU, no biases, untied), GPT-3 as NeMo's
    GPTConfig175B/20B (LayerNorm, learned positions, GeLU, biases, tied), Nemotron-4 340B (no biases, rotary, untied;
    its squared-ReLU MLP as a two-matrix MLP of the same shapes)."""
    fam = family(m["name"])
    kv = m.get("kv_heads") or m["heads"]
    lines = [f"# Generated by scripts/today_runs_to_scenarios.py from {generator}; do not edit.",
             f"# Shape as published for {m['name']} ({source}).",
             f'name = "{m["name"]}"', f'source = "{source}"', f"layers = {m['layers']}", f"hidden = {m['hidden']}",
             f"heads = {m['heads']}"]
    if kv != m["heads"]:
        lines.append(f"kv_heads = {kv}")
    lines += [f"ffn_hidden = {m['ffn']}", f"vocab = {m['vocab']}", f"max_position_embeddings = {max(m['seq_len'], 4096)}"]
    if fam == "gpt":
        lines += ["tied_embeddings = true", 'dtype = "bf16"', "dropout = 0.0", 'positions = "learned"', 'biases = "all"']
    elif fam == "nemotron":
        lines += ["tied_embeddings = false", 'dtype = "bf16"', "dropout = 0.0", 'norm = "layernorm"',
                  'positions = "rotary"', 'biases = "none"',
                  "# squared-ReLU MLP (two matrices): the same GEMM shapes as mlp = \"gelu\""]
    else:
        lines += ["tied_embeddings = false", 'dtype = "bf16"', "dropout = 0.0", 'mlp = "swiglu"', 'norm = "rmsnorm"',
                  'positions = "rotary"', 'biases = "none"']
    return "\n".join(lines) + "\n"


def model_file(m):
    return "{}_l{}_h{}_f{}_v{}_s{}".format(family(m["name"]), m["layers"], m["hidden"], m["ffn"], m["vocab"],
                                           max(m["seq_len"], 4096))


def topology_text(key, nodes, fabric, nic_note, cal_rel, generator, title):
    g = GPUS[key]
    # Not stated by the sources: a non-blocking two-level fat tree of 8 nodes (64 GPUs) per leaf.
    power_line = (f"\npower_limit = \"{g['power_limit']}\"    # {g['power_note']}" if "power_limit" in g else "")
    fabric_extra = ("\nnodes_per_leaf = 8          # assumed: the source states no fabric"
                    "\noversubscription = 1        # assumed non-blocking") if fabric == "fat_tree" else ""
    return f"""# Generated by scripts/today_runs_to_scenarios.py ({generator}); do not edit.
# {title}
name = "{nodes} x 8 {g['name']} ({title.split(':')[0]})"
nodes = {nodes}
gpus_per_node = 8

[gpu]
name = "{g['name']}"
peak_flops = "{g['peak']}"    # {g['source']}
fp8_peak_flops = "{g['fp8']}"
hbm = "{g['hbm']}"    # {g['hbm_note']}
hbm_bandwidth = "{g['hbm_bw']}"
sms = {g['sms']}
compute_capability = {g['cc']}{power_line}
calibration = "{cal_rel}{g['calibration']}"

[intra_node]
fabric = "nvswitch"
bandwidth = "{g['nvlink']}"

[nic]
count = 8
bandwidth = "400Gbps"        # {nic_note}

[fabric]
kind = "{fabric}"{fabric_extra}

[nccl]
# The NCCL of PyTorch's CUDA 12 builds (pytorch/pytorch .ci/docker/ci_commit_pins/nccl-cu12.txt at 06b24a9d), as
# topologies/dgx_h100_8x400g.toml: today's stacks ship 2.2x releases.
release = "2.27.5"
"""


# ----------------------------------------------------------------------------------------------------------------
# The calibration set.

def single_node_reason(c):
    """Why a single-node case is not in the calibration set (None: it is)."""
    t = c["training"]
    if c["suitability"] != "B":
        return "suitability C: MoE, LoRA, a hybrid model without a recorded shape, or no tokens/s"
    if "gb300" in c["group"]:
        return "GB300 (Blackwell Ultra): no GB300 calibration or datasheet topology yet (its doubled attention " \
               "softmax throughput is not a peak ZeroSim models)"
    if (t.get("cp") or 1) > 1:
        return ("context parallelism (CP > 1; torchtitan's as context_comm = \"all_gather\"): modelled since issue 37, "
                "not yet in the fit (adding it is a refit of the set, left open)")
    if (t.get("pp") or 1) > 1:
        return "pipeline stages sharing a node (PP > 1 on one node): not modelled (stages fill whole nodes)"
    if t.get("compile") is False:
        return "torch.compile off: the torchtitan-2024-12 set describes the compiled stack (no compile switch)"
    return None


def approximations_of(c):
    out = []
    if c["cluster"]["total_gpus"] != 8:
        out.append(f"{c['cluster']['total_gpus']} GPUs run as one 8-GPU node (per-GPU data-parallel throughput)")
    if c["training"]["strategy"].startswith("megatron_fsdp"):
        out.append("Megatron FSDP (parameters, gradients and optimizer sharded, gathered per layer) as ZeRO-3")
    return out


def recompute_key(c):
    rc = (c["training"].get("recompute") or "").lower()
    if rc.startswith("selective"):
        return 'recompute = "selective_op"   # torchtitan ac_mode selective, op-level SAC (source)'
    if rc.startswith("full"):
        return 'recompute = "full"   # source: full activation checkpointing'
    return 'recompute = "none"   # not printed; Megatron-Bridge/NeMo perf recipes set no recompute for these layouts'


def config_of(c):
    t = c["training"]
    return "{} {} mb{} gbs{} s{}".format(c["id"], c["model"]["name"].split(" ")[0], t["micro_batch_seqs"],
                                         t["global_batch_seqs"], c["model"]["seq_len"])


def write_calibration(single, inventory):
    os.makedirs(TOPO_CAL, exist_ok=True)
    model_dir = os.path.join(CAL_DIR, "models")
    by_group = {}
    for c in single["cases"]:
        why = single_node_reason(c)
        entry = OrderedDict(id=c["id"], run=why is None)
        if why is None:
            slug_ = next((s for s, t in TABLES.items() if c["group"] in t["groups"]), None)
            if slug_ is None:
                entry["run"] = False
                why = "no calibration table for group " + c["group"]
            else:
                by_group.setdefault(slug_, []).append(c)
                entry["scenario"] = slug_ + ".toml"
                entry["variant"] = c["id"]
                entry["approximations"] = approximations_of(c)
                entry["assumptions"] = []
        if why is not None:
            entry["reason"] = why
        inventory.append(entry)
    written = 0
    for slug_, t in TABLES.items():
        cases = by_group.get(slug_, [])
        if not cases:
            continue
        g = GPUS[t["gpu"]]
        topo = "today_" + t["gpu"]
        with open(os.path.join(TOPO_CAL, topo + ".toml"), "w") as f:
            f.write(topology_text(t["gpu"], 1, "single_switch", "unused on one node", "../../kernels/calibration/",
                                  "from scenarios/calibration/today/single_node_runs.json",
                                  "calibration set: one node of today's single-node runs. GB200: 2 trays of one NVL72 "
                                  "NVLink domain (8 GPUs), modelled as one 8-GPU NVSwitch node at NVLink5's bandwidth"))
        lines = ["# Generated by scripts/today_runs_to_scenarios.py from scenarios/calibration/today/single_node_runs.json;",
                 "# do not edit (rerun the script). The calibration set of today's stacks (issue 34): published single-node",
                 "# runs, one variant per case, the published tokens/s per GPU verbatim.",
                 f"# Software ({t['software']}): {SOFTWARE_NOTE[t['software']]}.",
                 f'name = "calibration set: {slug_}"',
                 f'group = "calibration: {t["label"]}"',
                 f'topology = "../../topologies/calibration/{topo}.toml"']
        variants, expects = [], []
        first = None
        for c in cases:
            m, tr = c["model"], c["training"]
            mf = model_file(m)
            with open(os.path.join(model_dir, "today_" + mf + ".toml"), "w") as f:
                f.write(model_text(m, m.get("shape_source", "scenarios/calibration/today/single_node_runs.json")[:200]
                                   .replace('"', "'"), "scenarios/calibration/today/single_node_runs.json"))
            first = first or (c, mf)
            gbs, mb = tr["global_batch_seqs"], tr["micro_batch_seqs"]
            dp = c["cluster"]["total_gpus"] // ((tr.get("tp") or 1) * (tr.get("pp") or 1) * (tr.get("cp") or 1))
            ga = gbs // (mb * dp)
            variants += ["", "[[variant]]", f'name = "{c["id"]}"', f'model = "models/today_{mf}.toml"',
                         f"seq_len = {m['seq_len']}", f"train_micro_batch_size_per_gpu = {mb}",
                         f"gradient_accumulation_steps = {ga}   # GBS {gbs} / (mb {mb} x dp {dp})",
                         recompute_key(c)]
            if c["training"]["strategy"].startswith("megatron_fsdp"):
                variants.append('strategy = "zero3"   # Megatron FSDP (FSDP column 8): parameters sharded too')
            elif t["software"] == MCORE:
                variants += ddp_overlap_lines(c).splitlines()
            if c["id"].startswith(FA2_LAUNCHER_PREFIX):
                variants.append(FA2_LAUNCHER_LINE)
            if c["cluster"]["total_gpus"] != 8:
                variants.append(f"# {c['cluster']['total_gpus']} GPUs of the node: the scenario runs on 8; per-GPU "
                                "throughput of data parallelism on one NVSwitch node")
            src = c["source_ref"]
            expects += ["", "[[expect]]", f'variant = "{c["id"]}"', 'metric = "tokens_per_s_per_gpu"',
                        f"value = {c['measured']['tokens_per_s_per_gpu']}", f"tolerance = {TOLERANCE}",
                        f'config = "{config_of(c)}"',
                        f'source = "{src.get("url", c["source"][:200])} {src.get("table", "")[:120]} line '
                        f'{src.get("line", "?")} ({c["confidence"]}; {(c["software"].get("container") or c["software"].get("campaign") or "")[:80]})"'.replace("\\", "")]
            written += 1
        c0, mf0 = first
        lines += [f'model = "models/today_{mf0}.toml"', "", "[training]", f"seq_len = {c0['model']['seq_len']}",
                  f"train_micro_batch_size_per_gpu = {c0['training']['micro_batch_seqs']}", 'recompute = "none"',
                  'attention = "flash"   # the generation\'s fused attention kernel (attention_kernel in the calibration)',
                  "", "[runtime]"]
        if t["software"] == MCORE:
            lines += ['launcher = "megatron-deepspeed"   # Megatron-Core: CUDA_DEVICE_MAX_CONNECTIONS=1',
                      f'software = "{t["software"]}"', "", "[zero]",
                      'strategy = "zero1"   # the distributed optimizer (Megatron-Bridge/NeMo recipes: '
                      'use_distributed_optimizer; H100 rows print FSDP 8 = Megatron FSDP, gradients and optimizer '
                      'sharded the same way, parameters gathered per layer: see cases.json)']
        else:
            lines += ['framework = "fsdp"', f'software = "{t["software"]}"', "", "[zero]",
                      'strategy = "fsdp2"   # torchtitan: FSDP2 fully_shard per block',
                      TITAN_REDUCE_FP32]
        if t["fp8"]:
            lines.append("fp8_gemms = true   # the source's FP8 linear layers (TransformerEngine / torchao Float8Linear)")
        with open(os.path.join(CAL_DIR, slug_ + ".toml"), "w") as f:
            f.write("\n".join(lines + variants + expects) + "\n")
    return written


# ----------------------------------------------------------------------------------------------------------------
# The validation groups (multi-node).

TODAY_IDS = ("mbridge", "nemo2407", "torchtitan", "llama3-405b", "megatron-llama-example", "mcore-h100", "nemo-longseq")
GROUP_MCORE = "today: Megatron-Core H100 (NeMo / Megatron-Bridge)"
GROUP_TITAN = "today: torchtitan H100 500 W"
GROUP_META = "today: Llama 3 405B H100 (Meta)"


def titan_virtual_stages(t):
    # torchtitan's looped schedules run 2 stages per rank unless split points say otherwise (its default).
    return 2 if (t.get("pipeline_schedule") or "").lower().startswith("interleaved") else 1


def multi_node_reason(r, single_ids):
    t = r["training"]
    m = r["model"]
    pp, v = t.get("pp") or 1, t.get("virtual_stages") or 1
    if r["id"].startswith("torchtitan"):
        v = titan_virtual_stages(t)
    if r["cluster"]["total_gpus"] <= 8:
        return "single node: in the calibration set (scenarios/calibration/today), never a validation point"
    if (t.get("cp") or 1) > 1 and r["id"].startswith("nemo-longseq"):
        return ("run in the cp group as scenarios/published/moe/nemo2403-h100-llama2-7b-*.toml (the same NeMo table, "
                "scripts/moe_runs_to_scenarios.py)")
    if r["id"].startswith("mcore-h100"):
        return "precision and micro-batch not stated (Megatron-LM README weak-scaling table)"
    if r["id"].startswith("llama3-405b"):
        return ("Meta's own stack: micro-batch, virtual stages and recompute not stated (Llama 3 paper Table 4 "
                "prints the layout and MFU only)")
    if m["layers"] % (pp * v) and not split_source(r, m["layers"], pp, v):
        return f"uneven pipeline stages ({m['layers']} layers over {pp} x {v} stages): no source for the split"
    if r["measured"].get("tokens_per_s_per_gpu") is None:
        return "no tokens/s published"
    if not r["id"].startswith("torchtitan") and not t.get("micro_batch_seqs"):
        return "micro-batch not stated"
    dp = r["cluster"]["total_gpus"] // ((t.get("tp") or 1) * pp)
    if pp > 1 and (t.get("tp") or 1) * dp < 8:
        return "pipeline stages sharing a node: not modelled (stages fill whole nodes)"
    return None


# The attention backend where the container's launcher chose it (S): NeMo-Framework-Launcher's conf/config.yaml for
# the 24.03.01 container (the stored copy at 01d07738 names nvcr.io/nvidia/nemo:24.03.01.framework) sets
# NVTE_FUSED_ATTN: 0 ("Disable cudnn FA until we've tested it more"), so TransformerEngine 1.3 runs the flash-attn
# package's FlashAttention-2, not cuDNN's fused attention (the generation's attention_kernel). The 24.07 launcher's
# setting is not among the stored copies: the 24.07 rows keep the generation's kernel.
FA2_LAUNCHER_PREFIX = "nemo24.03"
FA2_LAUNCHER_LINE = ('attention = "flash2"   # NeMo-Framework-Launcher 24.03.01 conf/config.yaml NVTE_FUSED_ATTN: 0: '
                     "TransformerEngine 1.3's flash-attn backend (S)")


# Tensor-parallel communication overlap (ZeroSim [parallel] tp_comm_overlap) as each source's recipes set it (S:
# the recipes, not the runs' logs). None: the source states nothing, the scenario leaves it off.
TP_OVERLAP_SOURCES = {
    "mbridge": "Megatron-Bridge scripts/performance COMM_OVERLAP_CONFIG_MAP: llama3_70b and llama31_405b on h100 -> "
               "userbuffers_{bf16,fp8}_h100_* configs under CommOverlapConfig(tp_comm_overlap=True)",
    "nemo2407": "NeMo 2.0 llm recipes' performance mode: MegatronCommOverlapCallback(tp_comm_overlap=True) with the "
                "tp_overlap_configs.userbuffers configs of each model",
    "mcore-h100": "Megatron-LM README, the H100 weak-scaling table: 'TP (--tp-comm-overlap)' among its "
                  "communication optimizations",
    # (I): inferred. The README's table says its configurations follow NeMo's performance scripts, whose
    # llama3_70b H100 recipe runs TP overlap (the mbridge rows' source above); its 1,621 tokens/s/GPU sits among
    # the mbridge rows of the same layout (1,602-1,664).
    "megatron-llama-example": "(I) Megatron-LM examples/llama/README.md: the configurations 'follow those defined "
                              "in NeMo Framework's performance scripts', whose llama3_70b H100 recipe sets "
                              "tp_comm_overlap=True",
}


# Megatron-Core's DDP overlap options ([zero] overlap_grad_reduce, overlap_param_gather) and the gradient
# reduction's format ([zero] communication_data_type) as each source's recipes set them (S: the recipes, not the
# runs' logs). Prefixes not listed leave the keys at their defaults (Megatron-Core's: off; the model's dtype).
DDP_OVERLAP_SOURCES = {
    "mbridge": "Megatron-Bridge 067f987d src/megatron/bridge/recipes/common.py _pretrain_common and "
               "recipes/llama/h100/llama3.py: DistributedDataParallelConfig(overlap_grad_reduce=True, "
               "overlap_param_gather=True, grad_reduce_in_fp32=True)",
    "nemo24": "NeMo-Framework-Launcher 26e42fa9 launcher_scripts/conf/training/{gpt3/20b,gpt3/175b,llama/llama2_7b,"
              "llama/llama2_70b,nemotron/nemotron_340b}.yaml optim: overlap_grad_sync true, overlap_param_sync true; "
              "NeMo 2.0 recipes/llama3_70b.py trainer(): DistributedDataParallelConfig(overlap_grad_reduce=True, "
              "overlap_param_gather=True)",
    "megatron-llama-example": "Megatron-LM examples/llama/train_llama3_8b_h100_fp8.sh DDP_ARGS: "
                              "--use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather",
    # (I): the NeMo 2.0 recipes' trainer() as read for llama3_70b.py (NVIDIA/NeMo 0189a3b3); the 8B recipe's is
    # not stored here.
    "nemo25": "(I) NeMo 2.0 recipes: llama3_70b.py trainer() DistributedDataParallelConfig(overlap_grad_reduce=True, "
              "overlap_param_gather=True), the 8B recipe's taken alike",
    "nemodocs25": "(I) NeMo 2.0 recipes: llama3_70b.py trainer() DistributedDataParallelConfig(overlap_grad_reduce=True, "
                  "overlap_param_gather=True), the 8B recipe's taken alike",
}
# The gradient reduction in fp32 where the recipe says so (Megatron's grad_reduce_in_fp32: the main-gradient
# buffer, and so the reduce-scatter, in fp32); the Megatron-LM example reduces in bf16 (--grad-reduce-in-bf16),
# the model's dtype, ZeroSim's default; NeMo 24.07's format is not stated in what is stored (default kept).
# torchtitan reduces FSDP2's gradients in fp32: its config's `mixed_precision_reduce: Literal["float32"] = "float32"`
# (torchtitan config_manager.py / config/job_config.py of 2024-12 to 2025-06: float32 is the only value it accepts),
# passed to fully_shard as MixedPrecisionPolicy(reduce_dtype=torch.float32) (parallelize_llama.py apply_fsdp).
TITAN_REDUCE_FP32 = ('communication_data_type = "fp32"   # torchtitan mixed_precision_reduce = "float32", its only '
                     'choice: FSDP2 MixedPrecisionPolicy(reduce_dtype=torch.float32) (S)')
GRAD_REDUCE_FP32 = ("mbridge",)
# Runs whose performance script turns the fp32 reduction off again (S): the Llama 3.1 405B rows' configs.
GRAD_REDUCE_MODEL_DTYPE = {
    "llama31_405b": "Megatron-Bridge scripts/performance/configs/llama/llama31_llm_pretrain.py "
                    "set_llama31_common_configs: ddp.grad_reduce_in_fp32 = False (S)",
}


# The interleaved schedule's asynchronous point-to-point sends ([parallel] overlap_p2p_comm), as each stack sets it.
P2P_OVERLAP_SOURCES = {
    "mbridge": "Megatron-Bridge 067f987d src/megatron/bridge/training/comm_overlap.py: pipeline > 1 with virtual "
               "stages > 1 -> overlap_p2p_comm = True, batch_p2p_comm = False",
    "nemo24": "NeMo-Framework-Launcher 26e42fa9 conf/training/{gpt3/175b,llama/llama2_70b,nemotron/nemotron_340b}.yaml: "
              "overlap_p2p_comm: true, batch_p2p_comm: false",
    "megatron-llama-example": "Megatron-LM arguments.py: --no-overlap-p2p-communication (store_false): on by default",
}


# The pipeline split with the embedding and the loss counted as layers ([parallel]
# account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split, model/spec/pipeline_split.h) where the
# source's recipe sets it; runs whose layers the chunks do not divide otherwise.
SPLIT_SOURCES = {
    "mbridge": "Megatron-Bridge src/megatron/bridge/recipes/llama/llama3.py llama31_405b_pretrain_config: "
               "account_for_embedding_in_pipeline_split=True, account_for_loss_in_pipeline_split=True (S)",
    # (I): the README says its configurations follow NeMo's performance scripts, whose Llama 3.1 405B recipe
    # (the mbridge rows' above) counts both; Megatron-LM refuses 126 layers over 8 x 8 chunks otherwise.
    "megatron-llama-example": "(I) Megatron-LM examples/llama/README.md follows NeMo's performance scripts: the "
                              "Llama 3.1 405B recipe's account_for_embedding/loss_in_pipeline_split=True (126 + 2 "
                              "units over 8 x 8 chunks; Megatron refuses 126 over 64 otherwise)",
}


def split_source(r, layers, pp, v):
    if (layers + 2) % (pp * v):
        return None
    if r["id"].startswith("torchtitan"):
        return TITAN_SPLIT_SOURCE if titan_split_is_counted(layers, pp * v) else None
    for prefix, source in SPLIT_SOURCES.items():
        if r["id"].startswith(prefix):
            return source
    return None


def p2p_overlap_line(r, v):
    if v <= 1:
        return ""
    for prefix, source in P2P_OVERLAP_SOURCES.items():
        if r["id"].startswith(prefix):
            return f"overlap_p2p_comm = true   # {source} (S)\n"
    return ""


def ddp_overlap_lines(r):
    for prefix, source in DDP_OVERLAP_SOURCES.items():
        if r["id"].startswith(prefix):
            lines = (f"overlap_grad_reduce = true   # {source}{'' if source.startswith('(I)') else ' (S)'}\n"
                     "overlap_param_gather = true\n")
            off = [s for k, s in GRAD_REDUCE_MODEL_DTYPE.items() if k in r["id"]]
            if prefix in GRAD_REDUCE_FP32 and off:
                lines += f'communication_data_type = "bf16"   # the model dtype: {off[0]}\n'
            elif prefix in GRAD_REDUCE_FP32:
                lines += 'communication_data_type = "fp32"   # grad_reduce_in_fp32=True (the same recipes) (S)\n'
            return lines
    return ""


def tp_overlap_source(r, tp, sp_val):
    if tp == 1 or sp_val != "true":
        return None
    for prefix, source in TP_OVERLAP_SOURCES.items():
        if r["id"].startswith(prefix):
            return source
    return None


def megatron_scenario(r, mf):
    t, c, meas = r["training"], r["cluster"], r["measured"]
    tp, pp, v = t.get("tp") or 1, t.get("pp") or 1, t.get("virtual_stages") or 1
    nodes = c["total_gpus"] // 8
    cp = t.get("cp") or 1
    dp = c["total_gpus"] // (tp * pp)  # ZeroSim's d: the context ranks included (the gradient group)
    mb = t["micro_batch_seqs"]
    ga = t["global_batch_seqs"] // (mb * (dp // cp))
    sp = t.get("sequence_parallel")
    sp_val = "true" if (sp or (sp is None and tp > 1)) else "false"
    sp_note = "" if sp is not None else "   # not printed; NeMo/Megatron-Bridge recipes set it with TP > 1 (S)"
    pipeline = "" if pp == 1 else f"pipeline = {pp}\n" + (
        "" if v == 1 else f'virtual_stages = {v}\nschedule = "interleaved_1f1b"\n' + p2p_overlap_line(r, v))
    split = split_source(r, r["model"]["layers"], pp, v) if r["model"]["layers"] % (pp * v) else None
    if split:
        pipeline += (f"account_for_embedding_in_pipeline_split = true   # {split}\n"
                     "account_for_loss_in_pipeline_split = true\n")
    if cp > 1:  # TransformerEngine's ring attention (cp_comm_type p2p, its default)
        pipeline += f"context = {cp}\n"
    fp8 = "fp8" in (t.get("precision") or "").lower() or "fp8" in r["id"] or r["id"].startswith("mbridge")
    assumptions = []
    if r["id"].startswith("mbridge") and not t.get("precision"):
        assumptions.append("FP8 (current scaling): the 25.09 table prints no precision; 25.11 prints FP8-CS for "
                           "the same layouts")
    if sp is None and tp > 1:
        assumptions.append("sequence parallelism with TP > 1 (the recipes' setting; not printed)")
    if family(r["model"]["name"]) == "nemotron":
        assumptions.append("squared-ReLU MLP as a two-matrix MLP of the same shapes")
    overlap = tp_overlap_source(r, tp, sp_val)
    overlap_line = (f"tp_comm_overlap = true   # {overlap}{'' if overlap.startswith('(I)') else ' (S)'}\n" if overlap else
                    ("" if tp == 1 else "tp_comm_overlap = false   # not stated by the source\n"))
    config = "{} t{}{} d{}{} mb{} ga{}".format(r["model"]["name"].split(" ")[0], tp,
                                             "" if pp == 1 else f" p{pp}" + ("" if v == 1 else f" v{v}"), dp,
                                             f" c{cp}" if cp > 1 else "", mb, ga)
    src = r["source"]["url"] if isinstance(r["source"], dict) else r["source"]
    text = (
        "# Generated by scripts/today_runs_to_scenarios.py from scenarios/published/tp_pp/runs.json; do not edit.\n"
        f"# {r['id']} on {c['gpu']} ({c['total_gpus']} GPUs): tensor {tp}, pipeline {pp} x {v}, data {dp}"
        + (f" (context {cp} x {dp // cp})" if cp > 1 else "") + ".\n"
        f"# Software: {t.get('software') or ''}. Validation only: nothing is fitted on it.\n"
        "# Megatron-Core's distributed optimizer as ZeRO-1 under the megatron launcher (CUDA_DEVICE_MAX_CONNECTIONS=1),\n"
        "# as scripts/tp_runs_to_scenarios.py; TP communication overlap as the source's recipes set it.\n"
        + "".join(f"# Assumed: {a}.\n" for a in assumptions) +
        f'name = "published: {r["id"]}"\ngroup = "{GROUP_MCORE}"\n'
        f'topology = "../../../topologies/published/today_dgx_h100_8x400g.toml"\nnodes = {nodes}\n'
        f'model = "models/{mf}.toml"\n\n'
        f"[training]\nseq_len = {r['model']['seq_len']}\ntrain_micro_batch_size_per_gpu = {mb}\n"
        f"gradient_accumulation_steps = {ga}\n"
        'recompute = "none"   # not printed; the H100 perf recipes set no recompute for these layouts\n'
        'attention = "flash"   # TransformerEngine\'s fused attention (the generation\'s attention_kernel)\n\n'
        f'[runtime]\nlauncher = "megatron-deepspeed"\nsoftware = "{MCORE}"\n\n'
        '[zero]\nstrategy = "zero1"\n' + ddp_overlap_lines(r) + ("fp8_gemms = true\n" if fp8 else "") + "\n"
        f"[parallel]\ntensor = {tp}\nsequence_parallel = {sp_val}{sp_note}\n{overlap_line}{pipeline}\n"
        f'[[variant]]\nname = "{r["id"]}"\n\n'
        f'[[expect]]\nvariant = "{r["id"]}"\nmetric = "tokens_per_s_per_gpu"\nvalue = {meas["tokens_per_s_per_gpu"]}\n'
        f'tolerance = {TOLERANCE}\nconfig = "{config}"\nsource = "{src} ({r["confidence"]})"\n')
    return text, assumptions


def is_async_tp(r):
    return "-async-" in r["id"] or r["id"].endswith("-asynctp-fp8")


def titan_scenario(r, mf):
    t, c, meas = r["training"], r["cluster"], r["measured"]
    tp, pp, cp = t.get("tp") or 1, t.get("pp") or 1, t.get("cp") or 1
    v = titan_virtual_stages(t)
    nodes = c["total_gpus"] // 8
    dp = c["total_gpus"] // (tp * pp)  # ZeroSim's d: FSDP shards over dp_shard x cp (torchtitan's dp_shard_cp mesh)
    local = t.get("local_batch_seqs_per_dp_rank") or t["global_batch_seqs"] // dp
    table = r["source"].get("table", "") if isinstance(r["source"], dict) else ""
    # With PP, the local batch in pipeline_parallel_microbatches micro-batches: unset, torchtitan's
    # build_pipeline_schedule (as stored from late 2024) takes the pipeline degree p, as
    # scripts/memory_runs_to_scenarios.py's runs.json states for the same runs.
    micro, accumulation = (local // pp, pp) if pp > 1 else (local, 1)
    async_tp = is_async_tp(r) or (pp > 1 and "AsyncTP" in table)
    fp8 = "float8" in (t.get("precision") or "").lower() or "fp8" in r["id"]
    rc = (t.get("recompute") or "").lower()
    recompute = 'recompute = "selective_op"' if rc.startswith("selective") else 'recompute = "full"'
    config = "{} t{}{} d{}{} mb{}{}{}".format(r["model"]["name"].replace("Llama 3.1 ", "Llama-3.1-"), tp,
                                            "" if pp == 1 else f" p{pp}" + ("" if v == 1 else f" v{v}"), dp,
                                            f" c{cp}" if cp > 1 else "", micro,
                                          "" if pp == 1 else f" ga{accumulation}", " fp8" if fp8 else "")
    src = r["source"]["url"] if isinstance(r["source"], dict) else r["source"]
    assumptions = (["no gradient accumulation: the local batch is one micro-batch (torchtitan without PP)"] if pp == 1
                   else [f"micro-batches = the pipeline degree {pp} (torchtitan's build_pipeline_schedule default)"])
    pipeline = ""
    if pp > 1:
        pipeline = (f"pipeline = {pp}\n" + (f'virtual_stages = {v}\nschedule = "interleaved_1f1b"   # torchtitan '
                                            "Interleaved1F1B, 2 stages per rank (its looped-schedule default)\n"
                                            if v > 1 else 'schedule = "1f1b"\n'))
        split = split_source(r, r["model"]["layers"], pp, v) if r["model"]["layers"] % (pp * v) else None
        if split:
            pipeline += (f"account_for_embedding_in_pipeline_split = true   # {split}\n"
                         "account_for_loss_in_pipeline_split = true\n")
    if cp > 1:
        pipeline += (f"context = {cp}\n"
                     'context_comm = "all_gather"   # torchtitan context_parallel_rotate_method, default "allgather": '
                     "PyTorch's context_parallel with its all-gather rotater (S)\n")
    text = (
        "# Generated by scripts/today_runs_to_scenarios.py from scenarios/published/tp_pp/runs.json; do not edit.\n"
        f"# {r['id']} on {c['gpu']} ({c['total_gpus']} GPUs): tensor {tp} (sequence parallel), FSDP2 over {dp}"
        + (f", pipeline {pp} x {v}" if pp > 1 else "") + ".\n"
        f"# Software: {t.get('software') or ''}. Validation only: nothing is fitted on it.\n"
        + ("# torchtitan: FSDP2 per block beside Megatron-style TP; the local batch as one micro-batch (no PP).\n"
           if pp == 1 else "# torchtitan: FSDP2 per block (not resharded after forward under PP) beside Megatron-style "
           "TP, torch.distributed.pipelining's schedule.\n") +
        f'name = "published: {r["id"]}"\ngroup = "{GROUP_TITAN}"\n'
        f'topology = "../../../topologies/published/today_h100_96gb_500w_8x400g.toml"\nnodes = {nodes}\n'
        f'model = "models/{mf}.toml"\n\n'
        f"[training]\nseq_len = {r['model']['seq_len']}\ntrain_micro_batch_size_per_gpu = {micro}\n"
        f"gradient_accumulation_steps = {accumulation}\n{recompute}\nattention = \"flash\"\n\n"
        f'[runtime]\nframework = "fsdp"\nsoftware = "{TITAN}"\n\n'
        '[zero]\nstrategy = "fsdp2"\n' + TITAN_REDUCE_FP32 + "\n" + ("fp8_gemms = true   # torchao Float8Linear (tensorwise)\n" if fp8 else "") +
        f"\n[parallel]\ntensor = {tp}\nsequence_parallel = true\n"
        + ("tp_comm_overlap = true   # torchtitan async TP (micro-pipelined all-gather-matmul and "
           "matmul-reduce-scatter), as the run's {} states\n".format("name" if is_async_tp(r) else "table")
           if async_tp else "") + pipeline + "\n"
        f'[[variant]]\nname = "{r["id"]}"\n\n'
        f'[[expect]]\nvariant = "{r["id"]}"\nmetric = "tokens_per_s_per_gpu"\nvalue = {meas["tokens_per_s_per_gpu"]}\n'
        f'tolerance = {TOLERANCE}\nconfig = "{config}"\nsource = "{src} ({r["confidence"]})"\n')
    return text, assumptions


def write_validation(runs, single_ids):
    os.makedirs(os.path.join(VAL_DIR, "models"), exist_ok=True)
    os.makedirs(TOPO_PUB, exist_ok=True)
    with open(os.path.join(TOPO_PUB, "today_dgx_h100_8x400g.toml"), "w") as f:
        f.write(topology_text("h100", 128, "rail_optimized", "NDR InfiniBand, one ConnectX-7 per GPU (DGX H100)",
                              "../../kernels/calibration/", "for scenarios/published/today",
                              "DGX H100 clusters of NVIDIA's published runs: 8 x 400 Gbps NDR per node, rail-optimized "
                              "(DGX SuperPOD reference architecture; the sources print only DGX-H100)"))
    with open(os.path.join(TOPO_PUB, "today_h100_96gb_500w_8x400g.toml"), "w") as f:
        f.write(topology_text("h100_96gb_500w", 64, "fat_tree", "400 Gb/s RDMA per GPU (torchtitan benchmark)",
                              "../../kernels/calibration/", "for scenarios/published/today",
                              "torchtitan's Grand Teton hosts: 8 H100 96GB at 500 W, 400 Gb/s RDMA per GPU (the "
                              "benchmark's statement); the fabric is not stated: a non-blocking fat tree assumed"))
    inventory = []
    written = 0
    for r in runs:
        if not r["id"].startswith(TODAY_IDS):
            continue
        why = multi_node_reason(r, single_ids)
        entry = OrderedDict(id=r["id"], run=why is None)
        if why is not None:
            entry["reason"] = why
            inventory.append(entry)
            continue
        mf = model_file(r["model"])
        src = r["source"]["url"] if isinstance(r["source"], dict) else r["source"]
        with open(os.path.join(VAL_DIR, "models", mf + ".toml"), "w") as f:
            f.write(model_text(r["model"], f"scenarios/published/tp_pp/runs.json run {r['id']}",
                               "scenarios/published/tp_pp/runs.json"))
        text, assumptions = (titan_scenario if r["id"].startswith("torchtitan") else megatron_scenario)(r, mf)
        with open(os.path.join(VAL_DIR, r["id"] + ".toml"), "w") as f:
            f.write(text)
        entry["scenario"] = r["id"] + ".toml"
        entry["variant"] = r["id"]
        entry["approximations"] = []
        entry["assumptions"] = assumptions
        inventory.append(entry)
        written += 1
    return written, inventory


def main():
    with open(SINGLE) as f:
        single = json.load(f)
    with open(RUNS) as f:
        runs = json.load(f)
    cal_inventory = []
    n_cal = write_calibration(single, cal_inventory)
    with open(os.path.join(CAL_DIR, "cases.json"), "w") as f:
        json.dump(OrderedDict(about="Every case of scenarios/calibration/today/single_node_runs.json: in today's "
                              "calibration set (scenarios/calibration/today_*.toml) or not, and why. Written by "
                              "scripts/today_runs_to_scenarios.py.", cases=cal_inventory), f, indent=1)
        f.write("\n")
    n_val, inventory = write_validation(runs, {c["id"] for c in single["cases"]})
    with open(os.path.join(VAL_DIR, "cases.json"), "w") as f:
        json.dump(OrderedDict(about="Every multi-node run of today's stacks in scenarios/published/tp_pp/runs.json: "
                              "run by scenarios/published/today/ or not, and why. Written by "
                              "scripts/today_runs_to_scenarios.py; zerosim validate counts it.", cases=inventory),
                  f, indent=1)
        f.write("\n")
    print(f"{n_cal} calibration cases into {len(TABLES)} tables; {n_val} of {len(inventory)} multi-node runs into "
          f"{os.path.relpath(VAL_DIR, ROOT)}")


if __name__ == "__main__":
    main()
