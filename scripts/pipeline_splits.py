"""Pipeline splits the scenario generators compare (imported by scripts/today_runs_to_scenarios.py and
scripts/memory_runs_to_scenarios.py; not a command).

ZeroSim expresses an uneven split only as Megatron-Core's, with the embedding and the loss counted as layers
(model/spec/pipeline_split.h). A torchtitan run without pipeline_parallel_split_points splits by
generate_split_points (as stored from late 2024: the first stage L // S layers, one more to each middle stage while
the remainder lasts, the rest to the last); the generators state the counted split for such a run only where the
two give the same stages.
"""

TITAN_SPLIT_SOURCE = ("(I) torchtitan's default split (generate_split_points as stored from late 2024; the 9dec370 "
                      "copy is not stored; no split points given): for these layers and stages the same as "
                      "Megatron-Core's with the embedding and the loss counted (scripts/pipeline_splits.py)")


def titan_default_split(layers, stages):
    """torchtitan's default stage sizes of `layers` over `stages`."""
    base, extra = divmod(layers, stages)
    sizes = [base]
    for _ in range(1, stages - 1):
        sizes.append(base + (1 if extra > 0 else 0))
        extra = max(0, extra - 1)
    return sizes + [layers - sum(sizes)]


def counted_split(layers, stages):
    """Megatron-Core's stage sizes with the embedding and the loss counted, or None where L + 2 does not divide."""
    if (layers + 2) % stages:
        return None
    k = (layers + 2) // stages
    return [k - 1] + [k] * (stages - 2) + [k - 1]


def titan_split_is_counted(layers, stages):
    """Whether torchtitan's default split of an uneven run is the counted split (so ZeroSim can state it)."""
    return stages > 1 and layers % stages != 0 and titan_default_split(layers, stages) == counted_split(layers, stages)
