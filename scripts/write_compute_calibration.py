#!/usr/bin/env python3
"""Writes the compute sets (`gemm_efficiency`, `software_generations`) of kernels/calibration/*.json.

Empirical sets hold the values `zerosim fit` found on the calibration set (scenarios/calibration/, the single-node
runs of ../shared/validation/single_node_runs.json); FITS below copies them from the fit's output, with the command
that produced them and its leave-one-model-size-out error. Every other set is derived from a fitted one by a stated
rule (RULES below), and says so. The published kernel-benchmark numbers the files cited before stay in
PUBLISHED: a rule relates a kernel or GPU without training data to a fitted one through them.
docs/fitted_parameters.md lists every fitted value with its bounds and standard error.

Usage: python3 scripts/write_compute_calibration.py   (rewrites the compute blocks; the kernels are untouched)
Deterministic: the same values give the same files.
"""
import json
import os
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAL = os.path.join(ROOT, "kernels", "calibration")

# Kernel-level benchmark values (fractions of the dense peak) the files cited before this fit; their sources
# stay in each file's `source` text ("published: ..."). Upper bounds on what training sustains.
# `flash2_fwd` / `flash2_bwd` are the benchmark of the `flash` kernel each GPU is credited with, `attention_kernel`
# (docs/calibration.md): FlashAttention-2 where it runs; on B200 FlashAttention-4 (no FlashAttention-2 figure on B200
# is published); on V100 an assumption (FlashAttention does not run on sm_70).
PUBLISHED = {
    "A100": dict(gemm=0.827, flash2_fwd=0.62, flash2_bwd=0.55, flash_v1=0.325, attention_kernel="FlashAttention-2"),
    "H100": dict(gemm=0.803, flash2_fwd=0.32, flash2_bwd=0.31, fp8_gemm=0.709, attention_kernel="FlashAttention-2"),
    "H200": dict(gemm=0.803, flash2_fwd=0.32, flash2_bwd=0.31, fp8_gemm=0.734, attention_kernel="FlashAttention-2"),
    "B200": dict(gemm=0.776, flash2_fwd=0.63, flash2_bwd=0.537, fp8_gemm=0.763, attention_kernel="FlashAttention-4"),
    "V100": dict(gemm=0.74, flash2_fwd=0.30, flash2_bwd=0.25,
                 attention_kernel="assumed: a FlashAttention-class kernel (FlashAttention does not run on sm_70)"),
}

DATA = "../shared/validation/single_node_runs.json"
FIT3 = "--param compute.gemm --param compute.gemm_k_half=500 --param compute.attention_v1 --loo"

# `zerosim fit` results (value, standard error); bounds: gemm [0.3, 1], gemm_k_half [0, 8192] elements,
# attention_v1 [0.05, 1], fp8_gemm [0.2, 1].
FITS = {
    ("A100", "pytorch-2.1"): dict(
        scenario="scenarios/calibration/a100_80gb_bf16.toml", n=59, table="A100 80GB, PR #543 (PyTorch 2.1 nightly, CUDA 12.1)",
        gemm=(0.811244, 0.029), gemm_k_half=(687.149, 180), attention_v1=(0.322558, 0.0076),
        in_sample=0.040, loo_median=0.044, loo_signed=-0.003, loo_worst=0.330),
    ("A100", "pytorch-1.13"): dict(
        scenario="scenarios/calibration/a100_40gb_bf16.toml", n=46, table="A100 40GB, examples PR #271 (PyTorch 1.13.1, CUDA 11.7)",
        gemm=(0.674225, 0.015), gemm_k_half=(0.0, 92), attention_v1=(0.311727, 0.0061),
        in_sample=0.031, loo_median=0.036, loo_signed=0.002, loo_worst=0.108),
    ("H100", "pytorch-2.1"): dict(
        scenario="scenarios/calibration/h100_bf16.toml", n=37, table="H100 80GB BF16, PR #543 (PyTorch 2.1 nightly, CUDA 12.1)",
        gemm=(0.689506, 0.042), gemm_k_half=(1465.23, 440), attention_v1=(0.183357, 0.0046),
        in_sample=0.030, loo_median=0.040, loo_signed=0.003, loo_worst=0.305),
}
# FP8 GEMMs: fitted alone on the 7 FP8 rows with the H100 BF16 set held (PyTorch 2.0.1 / CUDA 11.8 and
# TransformerEngine v0.10 in that campaign; stated, the only FP8 data).
FP8_FIT = dict(scenario="scenarios/calibration/h100_fp8.toml", n=7, value=0.648101, stderr=0.024, in_sample=0.033,
               loo_median=0.039, loo_signed=0.021)


def errors_text(f, left_out):
    """A fit's in-sample and out-of-sample errors, as every calibration set's `fit` states them."""
    return (f"in-sample median |error| {100 * f['in_sample']:.1f}%, leave one {left_out} out: median "
            f"{100 * f['loo_median']:.1f}%, mean signed {100 * f['loo_signed']:+.1f}%, worst "
            f"{100 * f['loo_worst']:.1f}% (docs/fitted_parameters.md)")


def fit_text(gpu, sw, f):
    return (f"empirical: fitted on the calibration set {DATA} ({f['table']}: {f['n']} single-node llm-foundry runs, "
            f"8 GPUs, FSDP FULL_SHARD, MPT 125M-30B, sequence 512-65,536) by `zerosim fit {f['scenario']} {FIT3}`; "
            + errors_text(f, "model size"))


def empirical_set(gpu, sw):
    f = FITS[(gpu, sw)]
    pub = PUBLISHED[gpu]
    attn = f["attention_v1"][0]
    # FlashAttention-2 (the `flash` kernel) has no training data here: its published kernel benchmark scaled by the
    # fitted kernel's training/benchmark ratio (A100: the Triton v1 kernel's published 0.325; H100: no published v1
    # benchmark on Hopper, so the GEMMs' fit/benchmark ratio).
    ratio = attn / pub["flash_v1"] if "flash_v1" in pub else f["gemm"][0] / pub["gemm"]
    s = OrderedDict()
    s["software"] = sw
    s["kind"] = "empirical"
    s["fit"] = fit_text(gpu, sw, f)
    s["loo_median_abs_error"] = f["loo_median"]
    s["gemm"] = round(f["gemm"][0], 6)
    s["gemm_k_half"] = round(f["gemm_k_half"][0], 3)
    s["attention_kernel"] = pub["attention_kernel"]
    s["attention_forward"] = round(pub["flash2_fwd"] * ratio, 4)
    s["attention_backward"] = round(pub["flash2_bwd"] * ratio, 4)
    s["attention_v1_forward"] = round(attn, 6)
    s["attention_v1_backward"] = round(attn, 6)
    s["attention_v1_source"] = ("empirical: the Triton FlashAttention kernel of 2023 (llm-foundry attn_impl triton, the "
                                "calibration set's), forward and backward as one fitted value; " + fit_text(gpu, sw, f))
    s["kernel_gap_s"] = 2e-06
    s["source"] = (f"gemm, gemm_k_half: {fit_text(gpu, sw, f)}. attention_forward/backward (FlashAttention-2, not in the "
                   f"calibration set): derived, the published kernel benchmark ({pub['flash2_fwd']} / {pub['flash2_bwd']}) x "
                   f"{ratio:.4f} = " + ("the fitted Triton kernel over its published benchmark 0.325 (FlashAttention-2 paper: "
                                        "v1 at 25-40% of A100 peak)" if "flash_v1" in pub else
                                        "the fitted GEMM efficiency over its published benchmark (no published benchmark of the "
                                        "2023 Triton kernel on Hopper)") +
                   f". Published benchmarks before this fit (upper bounds): gemm {pub['gemm']}. kernel_gap_s 2 us assumed "
                   "(fitting it put it at its bound: it is not what limits these runs). memory_efficiency 1 (fitting it "
                   "put it at its bound 1: memory-bound kernels reach the copy bandwidth)")
    return s


def derived_set(gpu, sw, src_gpu, src_sw, fp8=None):
    """GPU `gpu` from `src_gpu`'s empirical set: each kernel class at its own published benchmark times the source
    GPU's training/benchmark ratio of that class (same software generation)."""
    src = empirical_set(src_gpu, src_sw)
    f = FITS[(src_gpu, src_sw)]
    pub, spub = PUBLISHED[gpu], PUBLISHED[src_gpu]
    r_gemm = src["gemm"] / spub["gemm"]
    r_attn = src["attention_forward"] / spub["flash2_fwd"]
    s = OrderedDict()
    s["software"] = sw
    s["kind"] = "derived"
    s["derived_from"] = src_gpu
    same = gpu == "H200" and src_gpu == "H100"
    s["gemm"] = round(src["gemm"] if same else pub["gemm"] * r_gemm, 6)
    s["gemm_k_half"] = src["gemm_k_half"]
    s["attention_kernel"] = pub["attention_kernel"]
    s["attention_forward"] = round(src["attention_forward"] if same else pub["flash2_fwd"] * r_attn, 4)
    s["attention_backward"] = round(src["attention_backward"] if same else pub["flash2_bwd"] * r_attn, 4)
    s["attention_v1_forward"] = src["attention_v1_forward"]
    s["attention_v1_backward"] = src["attention_v1_backward"]
    s["attention_v1_source"] = f"derived: {src_gpu}'s fitted Triton FlashAttention efficiency (same kernel), " + \
                               fit_text(src_gpu, src_sw, f)
    if fp8 is not None:
        s["fp8_gemm"] = fp8[0]
        s["fp8_gemm_source"] = fp8[1]
    s["kernel_gap_s"] = 2e-06
    rule = ("the same GH100 compute die and 132 SMs as the H100 (datasheets): the H100's empirical fractions unchanged"
            if same else
            f"each kernel class at this GPU's published benchmark (gemm {pub['gemm']}, FlashAttention {pub['flash2_fwd']} / "
            f"{pub['flash2_bwd']}) times {src_gpu}'s fitted/published ratio for that class (gemm {r_gemm:.4f}, attention "
            f"{r_attn:.4f}): training loses the same share of a kernel benchmark on both GPUs")
    s["source"] = (f"derived, no single-node training data for this GPU: from {src_gpu}'s empirical set ({src_sw}) by a "
                   f"stated rule: {rule}; gemm_k_half as {src_gpu}'s. {src_gpu}: {fit_text(src_gpu, src_sw, f)}. The band "
                   f"of a derived GPU is {src_gpu}'s widened (kernels/calibration/bands.json derived_widening)")
    return s


def fp8_entry(value, stderr, n, in_sample, loo_median, loo_signed):
    return (value, f"empirical: fitted alone on the {n} H100 FP8 single-node runs ({DATA}, llm-foundry PR #543: amp_fp8, "
                   f"TransformerEngine v0.10 linear layers, PyTorch 2.0.1 / CUDA 11.8), the H100 BF16 set held, by `zerosim fit "
                   f"scenarios/calibration/h100_fp8.toml --param compute.fp8_gemm --loo`: {value} +- {stderr}, in-sample "
                   f"median |error| {100 * in_sample:.1f}%, leave one model size out median {100 * loo_median:.1f}%, mean "
                   f"signed {100 * loo_signed:+.1f}%. Published FP8 MAMF benchmark before the fit: 0.709 (an upper bound)")


# ---------------------------------------------------------------------------------------------------------------
# Today's stacks (issue 34): software generations fitted on scenarios/calibration/today_*.toml, the single-node runs
# of scenarios/calibration/today/single_node_runs.json (scripts/today_runs_to_scenarios.py).
TODAY_DATA = "scenarios/calibration/today/single_node_runs.json"
MCORE = "megatron-core-2025"
TITAN = "torchtitan-2024-12"
# Published kernel benchmarks of today's kernels, fractions of the dense peak (upper bounds on training):
#  - cuDNN fused attention on H100 (what TransformerEngine runs on Hopper): 518 forward / 499 backward TFLOPS, bf16,
#    head dim 128, causal, 4k tokens, in the FlashAttention-3 paper's figures (Shah et al. 2024, Fig. 5-6): over 989.
#  - FlashAttention-2 on H100 (PyTorch SDPA's default flash backend): 319 / 310 TFLOPS, same figures.
#  - Blackwell: FlashAttention-4 (sm_100, causal 8k tokens: 1418.1 forward, 1208.6 backward TFLOPS,
#    Dao-AILab/flash-attention pull request 2280) over B200's 2,250; no cuDNN figure on Blackwell is stored here, so
#    FlashAttention-4 stands for TransformerEngine's cuDNN attention there. GB200: the B200's fractions (same die;
#    no GB200 kernel benchmark is published).
#  - GEMMs: MAMF (S. Bekman, ml-engineering): H100 bf16 794.5 / FP8 1402.6 of 989 / 1979; B200 1745 / 3432.5 of
#    2250 / 4500; GB200 at the B200's fractions.
TODAY_PUBLISHED = {
    ("H100", MCORE): dict(gemm=0.803, fp8_gemm=0.709, attn_fwd=0.524, attn_bwd=0.505, attention_kernel="cuDNN fused attention (TransformerEngine)",
                          attn_source="cuDNN fused attention on H100, 518 / 499 TFLOPS (FlashAttention-3 paper's figures, bf16, head dim 128, causal)",
                          # TransformerEngine's flash-attn backend (NVTE_FUSED_ATTN=0: NeMo-Framework-Launcher
                          # 24.01-24.07), attention = "flash2".
                          fa2_fwd=0.32, fa2_bwd=0.31,
                          fa2_source="FlashAttention-2 on H100, 319 / 310 TFLOPS (the same figures; the backward read off the chart)"),
    ("B200", MCORE): dict(gemm=0.776, fp8_gemm=0.763, attn_fwd=0.63, attn_bwd=0.537, attention_kernel="cuDNN fused attention (TransformerEngine); FlashAttention-4's benchmark stands for it",
                          attn_source="FlashAttention-4 on B200, 1418.1 / 1208.6 TFLOPS (Dao-AILab/flash-attention PR 2280; no cuDNN figure on Blackwell stored)"),
    ("GB200", MCORE): dict(gemm=0.776, fp8_gemm=0.763, attn_fwd=0.63, attn_bwd=0.537, attention_kernel="cuDNN fused attention (TransformerEngine); FlashAttention-4's benchmark stands for it",
                           attn_source="FlashAttention-4 on B200 as a fraction of B200's peak, 1418.1 / 1208.6 of 2250 TFLOPS (PR 2280; same Blackwell die, no GB200 kernel benchmark)"),
    ("H100", TITAN): dict(gemm=0.803, fp8_gemm=0.709, attn_fwd=0.32, attn_bwd=0.31, attention_kernel="FlashAttention-2 (PyTorch SDPA's flash backend)",
                          attn_source="FlashAttention-2 on H100, 319 / 310 TFLOPS (FlashAttention-3 paper's figures)"),
}
# `zerosim fit` results: value, standard error; the LOO (leave one published row out) record. `fitted` names what was
# fitted; everything else follows the rule: each kernel class at its published benchmark x the fitted class's
# training/benchmark ratio (`ratio_of`).
TODAY_FITS = {
    ("H100", MCORE): dict(scenario="scenarios/calibration/today_h100_fp8.toml", n=5,
                          rows="H100 FP8: Megatron-Bridge 25.09/25.11 Llama-3-8B FSDP, NeMo 24.07 Llama-2-7B pretrain and SFT, NeMo 24.03.01 Llama-2-7B 4 GPUs",
                          params="--param compute.fp8_gemm",
                          fp8_gemm=(0.698951, 0.025), attention=None, ratio_of="fp8_gemm",
                          in_sample=0.023, loo_median=0.027, loo_signed=-0.001, loo_worst=0.069),
    ("B200", MCORE): dict(scenario="scenarios/calibration/today_b200_fp8cs.toml", n=2,
                          rows="B200 FP8-CS: Megatron-Bridge 25.09/25.11 Llama-3-8B",
                          params="--param compute.fp8_gemm", fp8_gemm=(0.595337, 0.013), attention=None, ratio_of="fp8_gemm",
                          in_sample=0.010, loo_median=0.021, loo_signed=0.000, loo_worst=0.021),
    ("GB200", MCORE): dict(scenario="scenarios/calibration/today_gb200_fp8cs.toml", n=4,
                           rows="GB200 FP8-CS: Megatron-Bridge 25.09/25.11 and NeMo 25.04/25.07 Llama-3-8B",
                           params="--param compute.fp8_gemm", fp8_gemm=(0.570354, 0.013), attention=None, ratio_of="fp8_gemm",
                           in_sample=0.012, loo_median=0.016, loo_signed=0.000, loo_worst=0.043),
    ("H100", TITAN): dict(scenario="scenarios/calibration/today_h100_500w_bf16.toml scenarios/calibration/today_h100_500w_float8.toml", n=3,
                          rows="H100 96GB at 500 W: torchtitan 2024-12 Llama-3-8B BF16 (compiled) and Float8 (compiled, 8k and 32k)",
                          params="--param compute.gemm --param compute.fp8_gemm", gemm=(0.525144, 0.053), fp8_gemm=(0.520492, 0.076),
                          attention=None, ratio_of="gemm",
                          in_sample=0.030, loo_median=0.165, loo_signed=-0.078, loo_worst=0.330),
}
# gemm_k_half: the rows hold one hidden size (4096) and cannot resolve it; 0 (no roll-off: the published best-shape
# convention). With the 2023 PyTorch fit's 1465 the H100 FP8 fit lands at 0.879, above the FP8 MAMF benchmark 0.709
# (an upper bound): that roll-off belongs to the 2023 stack's GEMMs, not to TransformerEngine's.
TODAY_K_HALF = 0.0


def today_fit_text(gpu, sw, f):
    return (f"empirical: fitted on today's calibration set {TODAY_DATA} ({f['rows']}; {f['n']} rows) by `zerosim fit "
            f"{f['scenario']} {f['params']} --loo`; " + errors_text(f, "published row"))


def today_set(gpu, sw):
    f = TODAY_FITS[(gpu, sw)]
    pub = TODAY_PUBLISHED[(gpu, sw)]
    fitted = f[f["ratio_of"]][0]
    ratio = fitted / pub[f["ratio_of"]]
    gemm = f["gemm"][0] if "gemm" in f else pub["gemm"] * ratio
    fp8 = f["fp8_gemm"][0] if "fp8_gemm" in f else pub["fp8_gemm"] * ratio
    text = today_fit_text(gpu, sw, f)
    s = OrderedDict()
    s["software"] = sw
    s["kind"] = "empirical"
    s["fit"] = text
    s["loo_median_abs_error"] = f["loo_median"]
    s["gemm"] = round(gemm, 6)
    s["gemm_k_half"] = TODAY_K_HALF
    s["attention_kernel"] = pub["attention_kernel"]
    if f["attention"] is not None:
        s["attention_forward"] = s["attention_backward"] = round(f["attention"][0], 6)
        attn_text = f"fitted (one value for forward and backward): {text}; published before the fit: {pub['attn_source']}"
    else:
        s["attention_forward"] = round(pub["attn_fwd"] * ratio, 4)
        s["attention_backward"] = round(pub["attn_bwd"] * ratio, 4)
        attn_text = (f"derived: the published benchmark ({pub['attn_source']}: {pub['attn_fwd']} / {pub['attn_bwd']}) x "
                     f"{ratio:.4f}, the fitted {f['ratio_of']} over its published benchmark")
    if "fa2_fwd" in pub:
        s["attention_fa2_forward"] = round(pub["fa2_fwd"] * ratio, 4)
        s["attention_fa2_backward"] = round(pub["fa2_bwd"] * ratio, 4)
        s["attention_fa2_source"] = (
            f"derived: the published benchmark ({pub['fa2_source']}: {pub['fa2_fwd']} / {pub['fa2_bwd']}) x {ratio:.4f}, "
            f"as attention_forward/backward: the flash-attn package's FlashAttention-2 where TransformerEngine's "
            f"NVTE_FUSED_ATTN=0 selects it (NeMo-Framework-Launcher 24.01-24.07 conf/config.yaml)")
    s["kernel_gap_s"] = 2e-06
    s["fp8_gemm"] = round(fp8, 6)
    s["fp8_gemm_source"] = (f"fitted: {text}" if "fp8_gemm" in f else
                            f"derived: the published FP8 MAMF {pub['fp8_gemm']} x {ratio:.4f} (the fitted {f['ratio_of']} "
                            f"over its benchmark)")
    gemm_text = (f"fitted: {text}" if "gemm" in f else
                 f"derived: the published MAMF {pub['gemm']} x {ratio:.4f} (the fitted {f['ratio_of']} over its "
                 "benchmark): TransformerEngine's 16-bit GEMMs (the logit layer) lose the same share of their benchmark")
    s["source"] = (f"{sw} ({'Megatron-Core with TransformerEngine: NeMo 24.03-25.07 and Megatron-Bridge 25.09-25.11 containers' if sw == MCORE else 'torchtitan 2024-12: PyTorch nightly 1963fc8 with torch.compile, torchao Float8Linear tensorwise, SDPA'}). "
                   f"gemm: {gemm_text}. gemm_k_half {TODAY_K_HALF:g} (these rows hold one hidden "
                   f"size and cannot resolve it; 0, the best-shape convention: the 2023 PyTorch fit's 1465 put the H100 FP8 fit above its MAMF upper bound). attention_forward/backward ({pub['attention_kernel']}): {attn_text}. "
                   "kernel_gap_s 2 us assumed; memory_efficiency 1" +
                   (". Fitted on 500 W power-capped H100s: the cap is in these efficiencies, and power_limit_W 500 says "
                    "so (model/spec/gpu_power.h scales them by F(the topology's limit) / F(500 W): 1 on a 500 W part, "
                    "1 / 0.876 on a 700 W one)"
                    if sw == TITAN else ""))
    if sw == TITAN:
        # The power limit of the rows' GPUs (torchtitan's benchmark: H100 96GB at 500 W).
        s["power_limit_W"] = 500
    return s


def today_same_die(src_gpu, sw):
    """H200 from the H100's set of today's stack: the same GH100 compute die and 132 SMs (datasheets), so the same
    fractions (the rule the pytorch-2.1 set of h200.json follows)."""
    src = today_set(src_gpu, sw)
    s = OrderedDict()
    s["software"] = sw
    s["kind"] = "derived"
    s["derived_from"] = src_gpu
    for k in ("gemm", "gemm_k_half", "attention_kernel", "attention_forward", "attention_backward",
              "attention_fa2_forward", "attention_fa2_backward", "attention_fa2_source", "kernel_gap_s", "fp8_gemm"):
        if k in src:
            s[k] = src[k]
    s["fp8_gemm_source"] = f"derived: the {src_gpu}'s (same GH100 die): " + src["fp8_gemm_source"]
    s["source"] = (f"derived, no single-node training data for this GPU: from {src_gpu}'s empirical set ({sw}) by a "
                   f"stated rule: the same GH100 compute die and 132 SMs (datasheets), so the {src_gpu}'s fractions "
                   f"unchanged. {src_gpu}: " + src["source"])
    return s


# ---------------------------------------------------------------------------------------------------------------
# V100 (issue 35 item 1): the `ngc-20.06` generation fitted on scenarios/calibration/v100_*_amp.toml, the 20
# mixed-precision BERT-large pretraining rows of DeepLearningExamples' PyTorch BERT README (container pytorch:20.06,
# DGX-2 and DGX-1 32G/16G tables; scenarios/calibration/v100/single_node_runs.json, scripts/v100_runs_to_scenarios.py).
V100_DATA = "scenarios/calibration/v100/single_node_runs.json"
V100_SW = "ngc-20.06"
V100_FIT = dict(scenario="scenarios/calibration/v100_*_amp.toml", n=20,
                params="--param compute.gemm --param compute.gemm_k_half=500 --loo",
                rows="DeepLearningExamples PyTorch BERT-large pretraining, pytorch:20.06 container, apex AMP O2, unfused "
                     "attention: DGX-2 (1/4/8/16 GPUs) and DGX-1 32G and 16G (1/4/8 GPUs) at sequence 128 and 512",
                gemm=(0.670665, 0.09), gemm_k_half=(542.994, 230),
                in_sample=0.029, in_worst=0.057, loo_median=0.043, loo_signed=-0.002, loo_worst=0.082)


def v100_fit_text():
    f = V100_FIT
    return (f"empirical: fitted on the V100 calibration set {V100_DATA} ({f['rows']}; {f['n']} rows) by `zerosim fit "
            f"{f['scenario']} {f['params']}`; in-sample median |error| {100 * f['in_sample']:.1f}% (worst "
            f"{100 * f['in_worst']:.1f}%), leave one table x sequence length out: median {100 * f['loo_median']:.1f}%, "
            f"mean signed {100 * f['loo_signed']:+.1f}%, worst {100 * f['loo_worst']:.1f}% (docs/fitted_parameters.md)")


def v100_empirical_set():
    f = V100_FIT
    pub = PUBLISHED["V100"]
    ratio = f["gemm"][0] / pub["gemm"]
    a100 = FITS[("A100", "pytorch-1.13")]
    s = OrderedDict()
    s["software"] = V100_SW
    s["kind"] = "empirical"
    s["fit"] = v100_fit_text()
    s["loo_median_abs_error"] = f["loo_median"]
    s["gemm"] = round(f["gemm"][0], 6)
    s["gemm_k_half"] = round(f["gemm_k_half"][0], 3)
    s["attention_kernel"] = pub["attention_kernel"]
    s["attention_forward"] = round(pub["flash2_fwd"] * ratio, 4)
    s["attention_backward"] = round(pub["flash2_bwd"] * ratio, 4)
    s["attention_v1_forward"] = round(a100["attention_v1"][0], 6)
    s["attention_v1_backward"] = round(a100["attention_v1"][0], 6)
    s["attention_v1_source"] = ("derived: A100's fitted Triton FlashAttention efficiency (same kernel; it does not run on "
                                "sm_70 either), " + fit_text("A100", "pytorch-1.13", a100))
    s["kernel_gap_s"] = 2e-06
    s["source"] = (f"{V100_SW} (NVIDIA NGC pytorch:20.06: CUDA 11.0.167, cuBLAS of that toolkit, apex AMP O2, apex "
                   f"FusedLayerNorm and FusedLAMB). gemm, gemm_k_half: {v100_fit_text()}. The unfused attention "
                   "(batched GEMMs and memory-bound softmax/dropout) is what these rows run and is priced by gemm, "
                   "gemm_k_half and the copy bandwidth. attention_forward/backward (a FlashAttention-class kernel, which "
                   f"does not run on sm_70): assumed benchmark ({pub['flash2_fwd']} / {pub['flash2_bwd']}) x {ratio:.4f}, "
                   f"the fitted GEMM efficiency over its published benchmark {pub['gemm']} (cuBLAS with Tensor Cores, "
                   "83/112 TFLOPS, Markidis et al. 2018). kernel_gap_s 2 us assumed; memory_efficiency 1 (fitting it beside "
                   "gemm instead of gemm_k_half fits as well, gemm 0.541 and memory 0.584: these rows hold one width and "
                   "two sequence lengths and do not separate the two; docs/fitted_parameters.md)")
    return s


EMPIRICAL_FILE_PROVENANCE = ("compute fitted (each software generation's set says how); "
                             "kernels and copy bandwidth ")


def write(name, default, others, top_source=None):
    path = os.path.join(CAL, name)
    with open(path) as f:
        d = json.load(f, object_pairs_hook=OrderedDict)
    out = OrderedDict()
    for k, v in d.items():
        if k == "software_generations":
            continue
        if k == "source" and top_source:
            v = top_source
        # An empirical file's top-level provenance is its kernels' (zerosim calibrate --derive wrote it): say so,
        # so that "(empirical): derived, nothing measured" does not read as a contradiction (issue 38).
        if k == "provenance" and top_source == "empirical" and v.startswith("derived, nothing measured"):
            v = EMPIRICAL_FILE_PROVENANCE + v
        out[k] = default if k == "gemm_efficiency" else v
        if k == "gemm_efficiency" and others:
            out["software_generations"] = OrderedDict((s["software"], s) for s in others)
    with open(path, "w") as f:
        f.write(json.dumps(out, indent=2) + "\n")


def main():
    # FP8: filled in from the fit (FP8_FIT) once it has run; until then the H100 set keeps no fp8 fit.
    a100_21 = empirical_set("A100", "pytorch-2.1")
    a100_113 = empirical_set("A100", "pytorch-1.13")
    write("a100.json", a100_21, [a100_113], top_source="empirical")
    write("a100_40gb.json", a100_21, [a100_113], top_source="empirical")
    h100 = empirical_set("H100", "pytorch-2.1")
    fp8 = None
    if FP8_FIT["value"] is not None:
        fp8 = fp8_entry(FP8_FIT["value"], FP8_FIT["stderr"], FP8_FIT["n"], FP8_FIT["in_sample"], FP8_FIT["loo_median"],
                        FP8_FIT["loo_signed"])
    else:
        fp8 = (PUBLISHED["H100"]["fp8_gemm"], "published FP8 MAMF benchmark (placeholder until the FP8 fit)")
    h100["fp8_gemm"], h100["fp8_gemm_source"] = fp8
    # The default (`gemm_efficiency`, what a scenario without `[runtime] software` gets) is today's stack on every GPU
    # that has one (issue 34): megatron-core-2025. The 2023 sets stay, by name; scenarios that ran on them state it.
    write("h100.json", today_set("H100", MCORE), [h100, today_set("H100", TITAN)], top_source="empirical")
    r_fp8 = fp8[0] / PUBLISHED["H100"]["fp8_gemm"]
    write("h200.json", today_same_die("H100", MCORE),
          [derived_set("H200", "pytorch-2.1", "H100", "pytorch-2.1",
                       (fp8[0], "derived: the H100's FP8 GEMM fit (same GH100 die): " + fp8[1]))])
    write("b200.json", today_set("B200", MCORE),
          [derived_set("B200", "pytorch-2.1", "H100", "pytorch-2.1",
                       (round(PUBLISHED["B200"]["fp8_gemm"] * r_fp8, 6),
                        f"derived: B200's published FP8 MAMF 0.763 x the H100's FP8 fit/benchmark ratio "
                        f"{r_fp8:.4f}: " + fp8[1]))])
    # GB200: its own file (its own peaks and clocks); the kernels (quantization, copy) are the B200's (the same HBM3e
    # at 8 TB/s: the bandwidth ratio is 1). Its only compute set is today's.
    gb200 = os.path.join(CAL, "gb200.json")
    if not os.path.exists(gb200):
        with open(os.path.join(CAL, "b200.json")) as f:
            d = json.load(f, object_pairs_hook=OrderedDict)
        d["gpu"] = "GB200-186GB"
        d["provenance"] = ("derived, nothing measured on this GPU: the kernels and copy bandwidth of "
                           "kernels/calibration/b200.json (the same Blackwell die and HBM3e at 8 TB/s, so the memory-"
                           "bandwidth ratio is 1). B200's provenance: " + d["provenance"])
        d.pop("software_generations", None)
        with open(gb200, "w") as f:
            f.write(json.dumps(d, indent=2) + "\n")
    write("gb200.json", today_set("GB200", MCORE), [], top_source="empirical")
    # V100: the rule-derived pytorch-1.13 set (A100's 2023 fit x V100's benchmarks) is the default, the generation
    # nearest the 2023 stacks V100's scenarios describe (the ZeRO++ paper, DeepSpeed-Chat); the empirical set of its
    # only training data (NGC 20.06, 2020's stack) is chosen by name (docs/fitted_parameters.md, issue 35).
    write("v100.json", derived_set("V100", "pytorch-1.13", "A100", "pytorch-1.13"), [v100_empirical_set()],
          top_source="derived")


if __name__ == "__main__":
    main()
