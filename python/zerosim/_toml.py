"""A dict as TOML text (TOML 1.0, https://toml.io/en/v1.0.0): what zerosim's loaders read.

Python's standard library reads TOML (tomllib) but does not write it; this writes the subset a scenario or
sweep uses: strings, booleans, integers, floats (inf and nan included), arrays, tables and arrays of tables
(a list of dicts: ``[[variant]]``), nested to any depth. Keys that are not bare (``"nic.bandwidth"``) are
quoted. A value of another type (None, a set, an object) is a TypeError naming its key: TOML has no null, and
guessing one would change the scenario silently.
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: Any, where: str) -> str:
    if not isinstance(k, str):
        raise TypeError(f"{where}: TOML keys are strings, not {type(k).__name__} ({k!r})")
    return k if _BARE_KEY.match(k) else _string(k)


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = repr(x)  # the shortest text that reads back as the same double
    return text if any(c in text for c in ".eE") else text + ".0"


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(e, Mapping) for e in v)


def _inline(v: Any, where: str) -> str:
    """`v` as a TOML value on one line."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, Mapping):
        items = ", ".join(f"{_key(k, where)} = {_inline(e, f'{where}.{k}')}" for k, e in v.items())
        return "{" + items + "}" if items else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_inline(e, f"{where}[{i}]") for i, e in enumerate(v)) + "]"
    # numpy scalars and the like: their Python value, when they have one.
    item = getattr(v, "item", None)
    if callable(item):
        py = item()
        if isinstance(py, (bool, int, float, str)):
            return _inline(py, where)
    raise TypeError(f"{where}: a {type(v).__name__} ({v!r}) has no TOML form "
                    "(use a string, number, boolean, list or dict)")


def _table(path: list[str], table: Mapping, where: str, lines: list[str]) -> None:
    """Writes `table`'s values, then its sub-tables and arrays of tables under headers below `path`."""
    subtables = []
    for k, v in table.items():
        key = _key(k, where)
        if isinstance(v, Mapping) or _is_table_array(v):
            subtables.append((key, k, v))
        else:
            lines.append(f"{key} = {_inline(v, f'{where}.{k}' if where else k)}")
    for key, k, v in subtables:
        name = f"{where}.{k}" if where else k
        header = ".".join(path + [key])
        if isinstance(v, Mapping):
            lines.append("")
            lines.append(f"[{header}]")
            _table(path + [key], v, name, lines)
        else:
            for i, element in enumerate(v):
                lines.append("")
                lines.append(f"[[{header}]]")
                _table(path + [key], element, f"{name}[{i}]", lines)


def dumps(document: Mapping) -> str:
    """`document` as TOML text."""
    if not isinstance(document, Mapping):
        raise TypeError(f"a scenario or sweep is a dict, not {type(document).__name__}")
    lines: list[str] = []
    _table([], document, "", lines)
    return "\n".join(lines) + "\n"
