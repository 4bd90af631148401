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
from collections import OrderedDict

from today_files import GPUS, family, model_file, model_text, topology_text
from today_recipe_settings import TITAN_REDUCE_FP32, ddp_overlap_lines, p2p_overlap_line, split_source, tp_overlap_source

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
