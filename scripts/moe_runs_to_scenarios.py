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

The context-parallel runs (dense models) become the group "cp: Megatron-Core context parallelism (NeMo,
Megatron-Bridge)" the same way, with `context` as printed, sequence parallelism with TP > 1 (the recipes'), and
the published tokens/s per GPU where printed; where only TFLOP/s is printed (NeMo's long-sequence tables), the
tokens/s per GPU it implies by the table's own count, NeMo's non-causal Megatron formula F(s) =
12 L h f 3/2 + 12 L h^2 (1 + kv/a + s/h) + 6 h V (scenarios/calibration/today/README.md: it reproduces NeMo
24.03-25.07's printed TFLOP/token), so that the comparison does not depend on how FLOPs are counted.

Runs ZeroSim cannot express yet are listed in scenarios/published/moe/cases.json with their reason (`zerosim
validate` prints the inventory), never bent: multi-head latent attention (DeepSeek-V3),
expert tensor parallelism (TP > 1 on an MoE model) where no source states ETP 1 (MoE parallel folding: ETP_SOURCES),
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
CP_GROUP = "cp: Megatron-Core context parallelism (NeMo, Megatron-Bridge)"
# The sources' recipe settings, as scripts/today_runs_to_scenarios.py reads them for the same containers (S).
CP_DDP_OVERLAP = {
    "mb": "Megatron-Bridge 067f987d recipes/common.py _pretrain_common: DistributedDataParallelConfig("
          "overlap_grad_reduce=True, overlap_param_gather=True, grad_reduce_in_fp32=True)",
    "nemo2403": "NeMo-Framework-Launcher 26e42fa9 conf/training/llama/llama2_7b.yaml optim: overlap_grad_sync true, "
                "overlap_param_sync true",
    "nemo2504": "(I) NeMo 2.0 recipes: llama3_70b.py trainer() DistributedDataParallelConfig(overlap_grad_reduce="
                "True, overlap_param_gather=True), the 8B recipe's taken alike",
}
CP_TP_OVERLAP = {"mb": "Megatron-Bridge scripts/performance COMM_OVERLAP_CONFIG_MAP: llama31_405b on h100 -> "
                       "userbuffers_fp8_h100_* configs under CommOverlapConfig(tp_comm_overlap=True)"}
# The attention backend, where the launcher of the container's release chose it (S): NeMo-Framework-Launcher
# 24.01-24.07 (tag 24.03.01, 5c7e280a) launcher_scripts/conf/config.yaml sets NVTE_FUSED_ATTN: 0 ("Disable cudnn FA
# until we've tested it more", 562dcb45; removed by 04b8d098, 2024-08-29), so TransformerEngine 1.3 runs the
# flash-attn package's FlashAttention-2 on H100 instead of cuDNN's fused attention.
CP_ATTENTION = {
    "nemo2403": 'attention = "flash2"   # NeMo-Framework-Launcher 24.03.01 (5c7e280a) conf/config.yaml NVTE_FUSED_ATTN: 0: '
                "TransformerEngine 1.3's flash-attn backend (S)",
}
CP_P2P_OVERLAP = {"mb": "Megatron-Bridge 067f987d training/comm_overlap.py: pipeline > 1 with virtual stages > 1 -> "
                        "overlap_p2p_comm = True"}
TOLERANCE = 0.25
# What the Megatron-Bridge perf configs recompute, where read (Megatron's module recompute: recompute_layernorm,
# recompute_moe_act); elsewhere not printed, and `none` keeps every activation (an upper bound on the memory).
RECOMPUTE_NOTE = {
    "gpt-oss-120b": 'recompute = "selective"\n'
                    'recompute_layernorm = true   # the recipes recompute modules ["layernorm", "moe_act"] '
                    '(Megatron-Bridge 07eea52d scripts/performance/configs/gpt_oss/gpt_oss_workload_base_configs.py '
                    'H100 and B200 BF16)\nrecompute_moe_act = true',
}
# Models whose performance configs fold the expert grid (expert_tensor_parallel_size = 1 beside TP > 1: [parallel]
# expert_tensor = 1), with what else those configs set for the TP > 1 rows that ZeroSim does not model (S).
ETP_SOURCES = {
    "Qwen3-235B-A22B": "Megatron-Bridge scripts/performance/configs/qwen/qwen3_workload_base_configs.py @01b2977e: "
                       "BASE_QWEN3_235B_A22B_CONFIG expert_tensor_parallel_size=1; H100 BF16/FP8_CS V1: TP 2, PP 8, "
                       "VP 4, EP 32, GBS 2048, moe_token_dispatcher_type alltoall",
}
ETP_UNMODELLED = {
    "Qwen3-235B-A22B": "the H100 configs' moe_a2a_overlap=True (the dispatch and combine of one micro-batch beside "
                       "another's compute) is not modelled: ZeroSim's all-to-alls are waited for",
}
TOPOLOGY = {"H100": "../../../topologies/published/today_dgx_h100_8x400g.toml",
            "B200": "../../../topologies/dgx_b200_8x400g.toml"}


# Models whose recipes count the embedding and the loss in the pipeline split ([parallel]
# account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split; model/spec/pipeline_split.h).
SPLIT_SOURCES = {
    # (I): the library recipe's flags; the performance configs start from it and change the layout only.
    "Qwen3-235B-A22B": "(I) Megatron-Bridge recipes/qwen/qwen3_moe.py qwen3_235b_a22b_pretrain_config: 'Uses "
                       "account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split'; the "
                       "performance configs start from that recipe (94 + 2 units over the chunks)",
}


def split_source(c):
    """The source of a run's counted split where its layers need it and its recipe sets it, else None."""
    t, m = c["training"], c["model"]
    chunks = t["pp"] * (t.get("vp") or 1)
    if t["pp"] < 2 or m["layers"] % chunks == 0 or (m["layers"] + 2) % chunks:
        return None
    return SPLIT_SOURCES.get(m["name"].split(" ")[0])


def reason_not_run(c):
    """Why ZeroSim cannot run case `c` as its source states it; None when it can."""
    t, m, cl = c["training"], c["model"], c["cluster"]
    name = m["name"]
    if c["group"] == "cp":
        if m.get("experts"):
            return "context parallelism of an MoE model is not modelled yet"
        vp = t.get("vp") or 1
        if m["layers"] % (t["pp"] * vp) != 0:
            # The same Megatron-Bridge row as the today group's (scripts/today_runs_to_scenarios.py), which runs it
            # with the counted split; one run, one validation point.
            return "run in the today group as scenarios/published/today/mbridge26.04.01-h100-llama31_405b-1024.toml " \
                   "(the same Megatron-Bridge table row)"
        return None
    if t.get("tp") is None or t.get("pp") is None or t.get("ep") is None:
        return "layout not stated (headline only)"
    if "DeepSeek" in name:
        return "multi-head latent attention (DeepSeek-V3's MLA) is not modelled"
    if t["tp"] > 1 and name.split(" ")[0] not in ETP_SOURCES:
        return "tensor parallelism of an MoE model whose expert tensor parallelism no source states (only ETP 1, " \
               "MoE parallel folding, is modelled)"
    vp = t.get("vp") or 1
    if m["layers"] % (t["pp"] * vp) != 0 and not split_source(c):
        return f"{m['layers']} layers do not split evenly over pipeline {t['pp']} x virtual {vp}, and no source " \
               "says how the recipe splits them"
    gpu = cl["gpu"].split()[0].split("-")[0]
    if gpu == "GB200" and cl["total_gpus"] % 72 != 0:
        return f"{cl['total_gpus']} GB200 GPUs do not fill NVL72 racks (ZeroSim's node is the NVLink domain)"
    if gpu not in TOPOLOGY:
        return f"no validation topology for {cl['gpu']} yet"
    measured = c["measured"]
    if measured.get("tokens_per_s_per_gpu") is None and measured.get("tflops_per_gpu") is None:
        return "no throughput printed"
    return None


def approximations(c):
    """What the scenario of a runnable case assumes beyond what its source prints (zerosim validate lists them)."""
    t, m, measured = c["training"], c["model"], c["measured"]
    out = []
    if c["group"] == "cp":
        if not t.get("micro_batch_seqs"):
            out.append("micro-batch not printed: 1")
        out.append("recompute not printed: none")
        if t["tp"] > 1 and t.get("sequence_parallel") is None:
            out.append("sequence parallelism with TP > 1 (the recipes' setting; not printed)")
        if measured.get("tokens_per_s_per_gpu") is None:
            out.append("tokens/s per GPU derived from the printed TFLOP/s by NeMo's non-causal FLOP count")
        if c["id"].split("-")[0] in CP_ATTENTION:
            out.append("the launcher's attention backend (NVTE_FUSED_ATTN=0) taken for the run: the page does not "
                       "say how it was launched")
    elif m["name"].split(" ")[0] not in RECOMPUTE_NOTE:
        out.append("recompute not printed: none")
    if c["group"] != "cp" and (split_source(c) or "").startswith("(I)"):
        out.append("the pipeline split with the embedding and the loss counted: the library recipe's flags, the "
                   "performance configs' not printed")
    if "FP8" in t["precision"].upper() and t["precision"].upper() not in ("FP8", "FP8-CS"):
        out.append(f"{t['precision']} as TransformerEngine's per-tensor FP8 GEMMs")
    if c["group"] != "cp" and t["tp"] > 1:
        out.append("expert_tensor = 1 (ETP not printed): the model's performance configs, "
                   + ETP_UNMODELLED[m["name"].split(" ")[0]])
    return out


# The block every model of these runs shares (Llama-style: untied embeddings, bf16, no dropout, SwiGLU, RMSNorm,
# rotary positions, no biases; gpt-oss's biases are set after).
LLAMA_STYLE = ["tied_embeddings = false", 'dtype = "bf16"', "dropout = 0.0", 'mlp = "swiglu"', 'norm = "rmsnorm"',
               'positions = "rotary"', 'biases = "none"']


# Megatron-Core under its launcher (CUDA_DEVICE_MAX_CONNECTIONS=1), today's compute, the distributed optimizer
# as zero1: the [runtime] and [zero] opening every scenario of this folder.
MCORE_RUNTIME = ["", "[runtime]", 'launcher = "megatron-deepspeed"', 'software = "megatron-core-2025"', "", "[zero]",
                 'strategy = "zero1"']


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
    ] + LLAMA_STYLE + [
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


def dense_model_file(m, seq_len):
    """The model TOML of a dense run's shape (runs.json's fields); returns (file name, text)."""
    name = f"{slug(m['name'].split('(')[0])}.toml"
    lines = [
        f"# {m['name']}: the shape scenarios/published/moe/runs.json records (docs/design/moe_cp_sources.md (b)).",
        "# Written by scripts/moe_runs_to_scenarios.py; do not edit.",
        f'name = "{m["name"].split(" (")[0]}"',
        'source = "scenarios/published/moe/runs.json (the Hugging Face config fields)"',
        f"layers = {m['layers']}",
        f"hidden = {m['hidden']}",
        f"heads = {m['heads']}",
        f"kv_heads = {m['kv_heads']}",
        f"ffn_hidden = {m['ffn']}",
        f"vocab = {m['vocab']}",
        f"max_position_embeddings = {seq_len}   # the longest run's sequence (the long-context recipes scale the "
        "rotary base); rotary positions: only the sequence's limit",
    ] + LLAMA_STYLE
    return name, "\n".join(lines) + "\n"


def nemo_flops_per_token(m, s):
    """NeMo 24.03-25.07's model FLOPs per token (non-causal Megatron formula; see the module's docstring)."""
    L, h, f, a, kv, v = m["layers"], m["hidden"], m["ffn"], m["heads"], m["kv_heads"], m["vocab"]
    return 12 * L * h * f * 1.5 + 12 * L * h * h * (1 + kv / a + s / h) + 6 * h * v


def variant_and_expect(c, metric, value, config):
    """The scenario's one [[variant]] and its [[expect]] of the published `value` (the lines, after a blank one)."""
    return ["", "[[variant]]", f'name = "{c["id"]}"', "", "[[expect]]", f'variant = "{c["id"]}"',
            f'metric = "{metric}"', f"value = {float(value)}", f"tolerance = {TOLERANCE}", f'config = "{config}"',
            f'source = "{c["source"]} ({c["confidence"]})"']


def cp_scenario(c, model_name):
    t, m, cl, measured = c["training"], c["model"], c["cluster"], c["measured"]
    gpus, per_node = cl["total_gpus"], cl["gpus_per_node"]
    tp, pp, cp, vp = t["tp"], t["pp"], t["cp"], t.get("vp") or 1
    mb = t.get("micro_batch_seqs") or 1
    dp = gpus // (tp * pp * cp)
    accumulation = t["global_batch_seqs"] // (mb * dp)
    prefix = c["id"].split("-")[0]
    prefix = "mb" if prefix.startswith("mb") else prefix
    if measured.get("tokens_per_s_per_gpu") is not None:
        value, derived = measured["tokens_per_s_per_gpu"], "printed"
    else:
        flops = nemo_flops_per_token(m, t["seq_len"])
        value = round(measured["tflops_per_gpu"] * 1e12 / flops, 1)
        derived = (f"D: {measured['tflops_per_gpu']} TFLOP/s / NeMo's non-causal F(s = {t['seq_len']}) = "
                   f"{flops / 1e9:.2f} GFLOP/token")
    gpu = cl["gpu"].split()[0].split("-")[0]
    lines = [
        "# Generated by scripts/moe_runs_to_scenarios.py from scenarios/published/moe/runs.json; do not edit.",
        f"# {c['id']}: {m['name']} on {gpus} x {cl['gpu']}: context {cp}, tensor {tp}, pipeline {pp} x {vp}, "
        f"data {dp} (x {cp} context ranks).",
        f"# Software: {c['source_version']}. Validation only: nothing is fitted on it.",
        "# Megatron-Core's distributed optimizer as ZeRO-1 under the megatron launcher (CUDA_DEVICE_MAX_CONNECTIONS=1),",
        "# TransformerEngine's ring attention (cp_comm_type p2p, its default).",
        f'name = "published: {c["id"]}"',
        f'group = "{CP_GROUP}"',
        f'topology = "{TOPOLOGY[gpu]}"',
        f"nodes = {gpus // per_node}",
        f'model = "models/{model_name}"',
        "",
        "[training]",
        f"seq_len = {t['seq_len']}",
        f"train_micro_batch_size_per_gpu = {mb}" + ("" if t.get("micro_batch_seqs") else "   # not printed"),
        f"gradient_accumulation_steps = {accumulation}   # GBS {t['global_batch_seqs']} / (mb {mb} x dp {dp})",
        'recompute = "none"   # not printed',
        CP_ATTENTION.get(prefix, 'attention = "flash"'),
    ] + MCORE_RUNTIME + [
        f"overlap_grad_reduce = true   # {CP_DDP_OVERLAP[prefix]}",
        "overlap_param_gather = true",
    ]
    if prefix == "mb":
        lines.append('communication_data_type = "fp32"   # grad_reduce_in_fp32=True (the same recipe)')
    if "FP8" in t["precision"].upper():
        lines.append(f"fp8_gemms = true   # {t['precision']}: TransformerEngine's FP8 linear layers")
    lines += ["", "[parallel]", f"context = {cp}"]
    if tp > 1:
        lines += [f"tensor = {tp}", "sequence_parallel = true   # the recipes set it with TP > 1 (S)"]
        if prefix in CP_TP_OVERLAP:
            lines.append(f"tp_comm_overlap = true   # {CP_TP_OVERLAP[prefix]} (S)")
    if pp > 1:
        lines.append(f"pipeline = {pp}")
    if vp > 1:
        lines += [f"virtual_stages = {vp}", 'schedule = "interleaved_1f1b"']
        if prefix in CP_P2P_OVERLAP:
            lines.append(f"overlap_p2p_comm = true   # {CP_P2P_OVERLAP[prefix]} (S)")
    return "\n".join(lines + variant_and_expect(c, "tokens_per_s_per_gpu", value,
                                                f'{c["quoted"][:160]} ({derived})')) + "\n"


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
    ] + MCORE_RUNTIME + [
        "overlap_grad_reduce = true",
        "overlap_param_gather = true",
        'communication_data_type = "fp32"',
    ]
    if fp8:
        lines.append(f"fp8_gemms = true   # {t['precision']}: every FP8 recipe as TransformerEngine's per-tensor GEMMs")
    lines += ["", "[parallel]", f"expert = {t['ep']}"]
    if t["tp"] > 1:
        lines += [f"tensor = {t['tp']}", "sequence_parallel = true   # Megatron-Core requires it for MoE with TP (S)",
                  f"expert_tensor = 1   # {ETP_SOURCES[m['name'].split(' ')[0]]} (S)"]
    if t["pp"] > 1:
        lines.append(f"pipeline = {t['pp']}")
    if vp > 1:
        lines += [f"virtual_stages = {vp}", 'schedule = "interleaved_1f1b"']
    split = split_source(c)
    if split:
        lines += [f"account_for_embedding_in_pipeline_split = true   # {split}",
                  "account_for_loss_in_pipeline_split = true"]
    return "\n".join(lines + variant_and_expect(c, metric, value, c["quoted"][:200])) + "\n"


def main():
    with open(RUNS) as f:
        runs = json.load(f)
    os.makedirs(os.path.join(OUT, "models"), exist_ok=True)
    inventory = []
    for c in runs["cases"]:
        why = reason_not_run(c)
        entry = {"id": c["id"], "run": why is None, "reason": why or ""}
        if why is None:
            entry["scenario"] = f"{c['id']}.toml"
            entry["approximations"] = approximations(c)
        inventory.append(entry)
        if why is not None:
            continue
        if c["group"] == "cp":
            longest = max(x["training"]["seq_len"] for x in runs["cases"] if x["model"]["name"] == c["model"]["name"])
            name, text = dense_model_file(c["model"], longest)
            with open(os.path.join(OUT, "models", name), "w") as f:
                f.write(text)
            with open(os.path.join(OUT, f"{c['id']}.toml"), "w") as f:
                f.write(cp_scenario(c, name))
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
