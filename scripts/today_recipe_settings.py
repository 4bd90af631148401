"""What each source of today's multi-node runs sets in its recipes, for scripts/today_runs_to_scenarios.py (imported;
not a command): tensor-parallel communication overlap, Megatron-Core's DDP overlap and gradient-reduction format,
the interleaved schedule's asynchronous sends, and the pipeline split with the embedding and the loss counted. Each
entry names its source: (S) stated by the recipe or config the runs used, (I) inferred from a neighbouring one.
"""
from pipeline_splits import TITAN_SPLIT_SOURCE, titan_split_is_counted


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
