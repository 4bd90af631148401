"""What the package's functions return: typed results over the commands' JSON lines, each with to_dataframe().

Every record is the JSON line the command writes, unchanged (a dict, nested where a field name has a dot:
"cluster.nodes" is record["cluster"]["nodes"]); DataFrames flatten them back to the dotted names, the columns
of the commands' CSV (docs/report.md, docs/sweeps.md). A number a variant does not have (one that did not
run) is absent from its record, None in the typed fields and NaN in a DataFrame.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional


def flatten(record: dict, prefix: str = "") -> dict:
    """A JSON line's nested objects as dotted names: {"cluster": {"nodes": 24}} -> {"cluster.nodes": 24}."""
    out: dict = {}
    for k, v in record.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


def frame(records: list[dict]):
    """The records as a pandas DataFrame, one row each, columns the dotted field names in first-seen order."""
    import pandas as pd  # only where a DataFrame is asked for: `import zerosim` does not need pandas

    rows = [flatten(r) for r in records]
    columns: dict = {}
    for r in rows:
        for k in r:
            columns.setdefault(k, None)
    return pd.DataFrame(rows, columns=list(columns))


@dataclass(frozen=True)
class VariantResult:
    """One variant of one engine of `zerosim run`: the headline numbers, and every field in `record`."""

    scenario: str
    variant: str
    engine: str
    feasible: bool
    infeasible_reason: str
    iteration_time_s: Optional[float]
    tflops_per_gpu: Optional[float]
    mfu: Optional[float]
    tokens_per_s: Optional[float]
    exposed_comm_s: Optional[float]
    memory_per_gpu_bytes: Optional[int]
    cross_node_bytes: Optional[int]
    intra_node_bytes: Optional[int]
    record: dict = field(repr=False)  # the JSON line of `zerosim run --format jsonl`, as written

    @classmethod
    def from_record(cls, record: dict) -> "VariantResult":
        names = [f.name for f in dataclasses.fields(cls) if f.name != "record"]
        return cls(**{n: record.get(n) for n in names}, record=record)

    def __getitem__(self, name: str) -> Any:
        """Any field by its dotted name (docs/report.md): r["cluster.gpus"], r["memory_activations_bytes"]."""
        return flatten(self.record)[name]


@dataclass(frozen=True)
class RunResult:
    """`zerosim run`: a row per variant (and engine), the full report document, and the command's messages."""

    variants: list[VariantResult]
    document: dict = field(repr=False)  # the report as `zerosim run --json FILE` writes it (docs/report.md)
    messages: str = field(default="", repr=False)  # what the command printed on stderr

    def __iter__(self) -> Iterator[VariantResult]:
        return iter(self.variants)

    def __len__(self) -> int:
        return len(self.variants)

    def __getitem__(self, key: int | str) -> VariantResult:
        """By position, or by variant name (the first engine's, for --engine both)."""
        if isinstance(key, int):
            return self.variants[key]
        for v in self.variants:
            if v.variant == key:
                return v
        raise KeyError(f"no variant {key!r}; variants: {', '.join(v.variant for v in self.variants)}")

    def to_dataframe(self):
        return frame([v.record for v in self.variants])


class _Rows:
    """A result whose records are `self.rows` (one JSON line each): its length and its DataFrame."""

    def __len__(self) -> int:
        return len(self.rows)

    def to_dataframe(self):
        return frame(self.rows)


@dataclass(frozen=True)
class ComparisonResult(_Rows):
    """`zerosim compare`: per variant and field, A's and B's values and their difference."""

    rows: list[dict] = field(repr=False)  # the JSON lines: variant, engine, field, unit, a, b, difference
    messages: str = field(default="", repr=False)

    def value(self, variant: str, name: str) -> tuple[Any, Any, Any]:
        """(a, b, difference) of field `name` for `variant`."""
        for r in self.rows:
            if r["variant"] == variant and r["field"] == name:
                return r["a"], r["b"], r["difference"]
        raise KeyError(f"no field {name!r} for variant {variant!r}")


@dataclass(frozen=True)
class SweepResult(_Rows):
    """`zerosim sweep`: one row per point and variant (the sweep rows of docs/sweeps.md)."""

    rows: list[dict] = field(repr=False)
    messages: str = field(default="", repr=False)


@dataclass(frozen=True)
class PlanResult(_Rows):
    """`zerosim plan`: every cluster that can train the model (`--jsonl`'s lines), and the ranking as printed."""

    rows: list[dict] = field(repr=False)
    text: str = field(default="", repr=False)  # the ranking, the Pareto front and the deadline answer
    messages: str = field(default="", repr=False)


@dataclass(frozen=True)
class ValidationResult:
    """`zerosim validate`: each published point against the simulated one, and whether the gate passed."""

    points: list[dict] = field(repr=False)  # `--jsonl`'s lines: engine, scenario, variant, metric, error, ...
    passed: bool = True  # exit status 0: every point within its tolerance (or the contract or baseline held)
    text: str = field(default="", repr=False)  # the validation table and summaries as printed
    messages: str = field(default="", repr=False)

    def __len__(self) -> int:
        return len(self.points)

    def to_dataframe(self):
        return frame(self.points)

    def groups(self):
        """Per engine, validation group and metric (in first-seen order), as the command's group table
        (study/validation.cc GroupStatistics): n, median and worst |error|, mean signed error, infeasible points.
        Errors are relative (0.05 is 5%)."""
        import pandas as pd

        points = self.to_dataframe()
        columns = ["engine", "group", "metric", "n", "median_abs_error", "worst_abs_error", "mean_signed_error",
                   "infeasible"]
        if points.empty:
            return pd.DataFrame(columns=columns)
        keyed = points.assign(abs_error=points["error"].abs(), infeasible=~points["feasible"].astype(bool))
        g = keyed.groupby(["engine", "group", "metric"], sort=False)
        out = pd.DataFrame({
            "n": g.size(),
            "median_abs_error": g["abs_error"].median(),
            "worst_abs_error": g["abs_error"].max(),
            "mean_signed_error": g["error"].mean(),
            "infeasible": g["infeasible"].sum().astype(int),
        }).reset_index()
        return out[columns]


@dataclass(frozen=True)
class CommandResult:
    """A command run as the command line would (zerosim.cli): its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str
