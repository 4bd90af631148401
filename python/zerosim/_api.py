"""run, compare, sweep, plan, validate and cli: the `zerosim` commands in this process (zerosim._core).

Each builds the command line the CLI would get, runs the command's handler in-process, and reads the JSON lines
it writes (`--format jsonl`, `--jsonl FILE`), so results carry the same fields, with the same values, as the
command's output. A scenario or sweep is a path (str or os.PathLike), a dict, or None where the command has an
embedded default. A dict is written as TOML (zerosim._toml) to a hidden temporary file in `base_dir` (default:
the current directory) for the call, so relative paths in it (topology, model, base, prices) resolve against
`base_dir`, as they would from a file there.

Exit status 2 (bad usage or input) raises InputError, with the command's message: file, line and key. Exit
status 1 (a run that failed or whose output could not be written) raises RunError, except for validate, where
it means a point outside its tolerance: ValidationResult.passed is then False.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
from typing import Any, Iterable, Mapping, Optional, Union

from . import _core, _toml
from ._results import (CommandResult, ComparisonResult, PlanResult, RunResult, SweepResult, ValidationResult,
                       VariantResult)

Source = Union[str, os.PathLike, Mapping, None]

EXIT_FAILED = 1
EXIT_USAGE = 2


class ZeroSimError(Exception):
    """A command that did not succeed: its message (stderr), exit status and command line."""

    def __init__(self, message: str, exit_code: int, argv: list[str], stderr: str, toml: dict[str, str]):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.argv = argv  # the command line, as `zerosim ...` would get it
        self.stderr = stderr
        self.toml = toml  # name -> TOML text written for each dict input ("<dict>", "<dict a>", "<dict base>")
        where = re.search(r"(?P<path>[^\s:][^:\n]*):(?P<line>\d+):(?P<column>\d+): ", message)
        self.path: Optional[str] = where["path"] if where else None  # the file the message names, if any
        self.line: Optional[int] = int(where["line"]) if where else None
        self.column: Optional[int] = int(where["column"]) if where else None


class InputError(ZeroSimError, ValueError):
    """Bad usage or input (exit status 2): the message names the file, line and key."""


class RunError(ZeroSimError, RuntimeError):
    """A run that failed (exit status 1)."""


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


class _Call:
    """One command's arguments and the temporary files its dict inputs and outputs need."""

    def __init__(self, command: str, base_dir: Union[str, os.PathLike, None]):
        self.command = command
        self.base_dir = os.fspath(base_dir) if base_dir is not None else os.getcwd()
        self.args: list[str] = []
        self.toml: dict[str, str] = {}  # dict input's name -> its TOML text
        self.renames: dict[str, str] = {}  # temporary path -> the name messages show
        self.stack = contextlib.ExitStack()
        self.tmpdir: Optional[str] = None

    def __enter__(self) -> "_Call":
        return self

    def __exit__(self, *exc) -> None:
        self.stack.close()

    def source(self, value: Source, label: str = "<dict>") -> Optional[str]:
        """A scenario or sweep argument as a path; a dict is written to a file in base_dir."""
        if value is None:
            return None
        if isinstance(value, Mapping):
            document = dict(value)
            base = document.get("base")
            if isinstance(base, Mapping):  # a sweep's base scenario given as a dict too
                document["base"] = os.path.basename(self.source(base, "<dict base>"))
            text = _toml.dumps(document)
            # A sweep's name ends in .sweep.toml, as `validate`'s search of a folder expects (it skips them).
            suffix = ".sweep.toml" if "axes" in document or "base" in document else ".toml"
            fd, path = tempfile.mkstemp(prefix=".zerosim-", suffix=suffix, dir=self.base_dir)
            self.stack.callback(_unlink, path)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            self.toml[label] = text
            self.renames[path] = label
            self.renames[os.path.basename(path)] = label
            return path
        return os.fspath(value)

    def output_file(self) -> str:
        """A path in a private temporary directory for an output the command writes (--json, --jsonl)."""
        if self.tmpdir is None:
            self.tmpdir = self.stack.enter_context(tempfile.TemporaryDirectory(prefix="zerosim-"))
        return os.path.join(self.tmpdir, f"out{len(os.listdir(self.tmpdir))}.json")

    def add(self, *args: Any) -> None:
        self.args.extend(str(a) for a in args)

    def option(self, name: str, value: Any) -> None:
        """--name VALUE when value is not None; a bool is a switch (--name when True)."""
        if value is None or value is False:
            return
        if value is True:
            self.args.append(name)
        else:
            self.args.extend([name, _value(value)])

    def repeated(self, name: str, values: Union[Mapping, Iterable, None]) -> None:
        """--name KEY=VALUE for each item of a dict, or --name VALUE for each of a list."""
        if not values:
            return
        if isinstance(values, Mapping):
            for k, v in values.items():
                self.args.extend([name, f"{k}={_value(v)}"])
        else:
            for v in ([values] if isinstance(values, str) else values):
                self.args.extend([name, str(v)])

    def engine(self, engine, fidelity, reduction, cfg, log) -> None:
        self.option("--engine", engine)
        self.option("--fidelity", fidelity)
        self.option("--reduction", reduction)
        self.repeated("--cfg", cfg)
        self.repeated("--log", log)

    def run(self, *, failure_is_result: bool = False) -> tuple[int, str, str]:
        """Runs the command: (exit status, stdout, stderr), or raises for exit status 2 (and 1 unless
        `failure_is_result`)."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        rc, out, err = _core.run_command(self.command, self.args)
        out, err = _text(out), _text(err)
        if rc == 0 or (rc == EXIT_FAILED and failure_is_result):
            return rc, out, err
        message = err.strip() or f"zerosim {self.command} exited with status {rc}"
        for path, label in sorted(self.renames.items(), key=lambda kv: -len(kv[0])):
            message = message.replace(path, label)
        argv = ["zerosim", self.command, *self.args]
        cls = InputError if rc == EXIT_USAGE else RunError
        raise cls(message, rc, argv, err, dict(self.toml))


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return os.fspath(v) if isinstance(v, os.PathLike) else str(v)


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _read_lines(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return _lines(f.read())


def run(scenario: Source = None, *, settings: Optional[Mapping] = None, engine: Optional[str] = None,
        fidelity: Optional[str] = None, reduction: Optional[str] = None, jobs: Optional[int] = None,
        hf_config: Union[str, os.PathLike, None] = None, ds_config: Union[str, os.PathLike, None] = None,
        search_batch: bool = False, global_batch: Optional[int] = None, cfg: Iterable[str] = (),
        log: Iterable[str] = (), base_dir: Union[str, os.PathLike, None] = None, **overrides: Any) -> RunResult:
    """`zerosim run`: every variant of `scenario` (None: the embedded default).

    `settings` and keyword `overrides` are what-ifs, each a `--set KEY=VALUE` (any sweep axis, docs/sweeps.md):
    run(s, nodes=48) or run(s, settings={"nic.bandwidth": "200Gbps"}) for keys that are not Python names.
    """
    with _Call("run", base_dir) as c:
        path = c.source(scenario)
        if path is not None:
            c.add(path)
        c.add("--format", "jsonl")
        document_path = c.output_file()
        c.add("--json", document_path)
        c.engine(engine, fidelity, reduction, cfg, log)
        c.option("--jobs", jobs)
        c.option("--hf-config", hf_config)
        c.option("--ds-config", ds_config)
        c.option("--search-batch", search_batch)
        c.option("--global-batch", global_batch)
        c.repeated("--set", {**(settings or {}), **overrides})
        _, out, err = c.run()
        with open(document_path, encoding="utf-8") as f:
            document = json.load(f)
        return RunResult([VariantResult.from_record(r) for r in _lines(out)], document, err)


def compare(a: Source, b: Source, *, scenario: Source = None, set_a: Optional[Mapping] = None,
            set_b: Optional[Mapping] = None, engine: Optional[str] = None, fidelity: Optional[str] = None,
            reduction: Optional[str] = None, jobs: Optional[int] = None, cfg: Iterable[str] = (),
            log: Iterable[str] = (), base_dir: Union[str, os.PathLike, None] = None) -> ComparisonResult:
    """`zerosim compare A B`: two scenarios, or two topologies with `scenario` (None: the embedded default)."""
    with _Call("compare", base_dir) as c:
        c.add(c.source(a, "<dict a>"), c.source(b, "<dict b>"))
        c.option("--scenario", c.source(scenario, "<dict scenario>"))
        c.repeated("--set-a", set_a)
        c.repeated("--set-b", set_b)
        c.engine(engine, fidelity, reduction, cfg, log)
        c.option("--jobs", jobs)
        c.add("--format", "jsonl")
        _, out, err = c.run()
        return ComparisonResult(_lines(out), err)


def sweep(sweep: Source, *, jobs: Optional[int] = None, shard: Optional[str] = None, engine: Optional[str] = None,
          fidelity: Optional[str] = None, reduction: Optional[str] = None, cfg: Iterable[str] = (),
          log: Iterable[str] = (), base_dir: Union[str, os.PathLike, None] = None) -> SweepResult:
    """`zerosim sweep`: every point of `sweep` (a .sweep.toml or a dict; its `base` may be a dict too)."""
    with _Call("sweep", base_dir) as c:
        c.add(c.source(sweep), "--format", "jsonl", "--quiet")
        c.option("--jobs", jobs)
        c.option("--shard", shard)
        c.engine(engine, fidelity, reduction, cfg, log)
        _, out, err = c.run()
        return SweepResult(_lines(out), err)


def plan(sweep: Source, *, budget_usd: Optional[float] = None, target_days: Optional[float] = None,
         top: Optional[int] = None, search_batch: bool = False, search_layout: bool = False,
         tp_comm_overlap: bool = False, global_batch: Optional[int] = None, goodput: bool = True,
         base_dir: Union[str, os.PathLike, None] = None) -> PlanResult:
    """`zerosim plan`: the clusters of `sweep` ranked with their best setting (rows: `plan --jsonl`)."""
    with _Call("plan", base_dir) as c:
        c.add(c.source(sweep), "--quiet")
        rows_path = c.output_file()
        c.add("--jsonl", rows_path)
        c.option("--budget-usd", budget_usd)
        c.option("--target-days", target_days)
        c.option("--top", top)
        c.option("--search-batch", search_batch)
        c.option("--search-layout", search_layout)
        c.option("--tp-comm-overlap", tp_comm_overlap)
        c.option("--global-batch", global_batch)
        c.option("--no-goodput", not goodput)
        _, out, err = c.run()
        return PlanResult(_read_lines(rows_path), out, err)


def validate(scenarios: Union[Source, Iterable[Source]] = None, *,
             contract: Union[str, os.PathLike, None] = None, baseline: Union[str, os.PathLike, None] = None,
             engine: Optional[str] = None, fidelity: Optional[str] = None, reduction: Optional[str] = None,
             jobs: Optional[int] = None, cfg: Iterable[str] = (), log: Iterable[str] = (),
             base_dir: Union[str, os.PathLike, None] = None) -> ValidationResult:
    """`zerosim validate`: published expectations against the model (None: every scenario under ./scenarios).
    A point outside its tolerance (or a broken contract or baseline) gives passed=False, not an exception."""
    with _Call("validate", base_dir) as c:
        if scenarios is not None:
            items = [scenarios] if isinstance(scenarios, (str, os.PathLike, Mapping)) else list(scenarios)
            for i, s in enumerate(items):
                c.add(c.source(s, "<dict>" if len(items) == 1 else f"<dict {i}>"))
        points_path = c.output_file()
        c.add("--jsonl", points_path)
        c.option("--contract", contract)
        c.option("--baseline", baseline)
        c.engine(engine, fidelity, reduction, cfg, log)
        c.option("--jobs", jobs)
        rc, out, err = c.run(failure_is_result=True)
        return ValidationResult(_read_lines(points_path), rc == 0, out, err)


def cli(*args: Any) -> CommandResult:
    """`zerosim ARGS...` for run, validate, sweep, plan, compare or fit, as the command line would run it: the
    exit status and what it printed, never an exception for a failing command."""
    if not args:
        raise ValueError(f"zerosim.cli: name a command ({', '.join(_core.commands())})")
    rc, out, err = _core.run_command(str(args[0]), [_value(a) for a in args[1:]])
    return CommandResult(rc, _text(out), _text(err))
