#!/usr/bin/env python3
"""Golden tests: the README's commands with their expected output checked in (after SimGrid's .tesh files).

Each case is tests/golden/<name>.cmd: comment lines (#) saying where the command comes from, then one line
of arguments to `zerosim` (split as a POSIX shell would, run from the source directory). Its expected
standard output is tests/golden/<name>.out; its exit status must be 0, or N given by a line `#!exit N`.

`check NAME` runs the case and compares its output with the expected one field by field: the text between
numbers must be equal, and each number must be within the tolerance below of the expected one. Before the
comparison both sides are normalised: ZeroSim's version (it names the commit) and input-file hashes become
placeholders, since they change with every commit or edit of an input without changing a result.

`update [NAME...]` rewrites the expected outputs (scripts/update_golden.sh): after a change that moves
numbers on purpose, regenerate and review the diff.
"""
import argparse
import pathlib
import re
import shlex
import subprocess
import sys

# Relative tolerance on each number, with an absolute floor for values near 0: numbers printed in full
# (round-trip) precision may differ in their last digits between compilers and CPUs (FMA contraction,
# libm); any model change moves them by far more.
REL_TOL = 1e-6
ABS_TOL = 1e-12

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent.parent

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# (pattern, replacement): ZeroSim's version wherever it is printed, then input hashes.
NORMALISE = [
    (re.compile(r'("zerosim_version"\s*:\s*")[^"]*'), r"\1<version>"),
    (re.compile(r"\b(ZeroSim|zerosim) \d+\.\d+\.\d+\S*"), r"\1 <version>"),
    (re.compile(r"fnv1a64:[0-9a-f]{16}"), "<hash>"),
    (re.compile(r'("sweep_hash"\s*:\s*")[^"]*'), r"\1<hash>"),
    # A CSV cell that is ZeroSim's version (`sweep --format csv`'s provenance.zerosim_version).
    (re.compile(r"(?<=,)\d+\.\d+\.\d+(?:\+[^,\r\n]*)?(?=,)"), "<version>"),
]


def normalise(text):
    for pattern, repl in NORMALISE:
        text = pattern.sub(repl, text)
    return text


def read_case(name):
    """The case's arguments and its expected exit status (0, or the `#!exit N` line's N)."""
    text = (HERE / f"{name}.cmd").read_text().splitlines()
    status = 0
    for l in text:
        if l.startswith("#!exit "):
            status = int(l.split()[1])
    lines = [l for l in text if l.strip() and not l.startswith("#")]
    if len(lines) != 1:
        sys.exit(f"{name}.cmd: want one command line, found {len(lines)}")
    return shlex.split(lines[0]), status


def run(zerosim, name):
    args, status = read_case(name)
    p = subprocess.run([zerosim] + args, cwd=SOURCE, capture_output=True, text=True, errors="replace")
    if p.returncode != status:
        sys.exit(f"golden {name}: `zerosim {' '.join(args)}` exited {p.returncode}, not {status}\n{p.stderr}")
    return normalise(p.stdout)


def split(text):
    """The text as alternating [text, number, text, number, ..., text]."""
    parts, pos = [], 0
    for m in NUMBER.finditer(text):
        parts.append(text[pos:m.start()])
        parts.append(m.group(0))
        pos = m.end()
    parts.append(text[pos:])
    return parts


def compare(expected, actual):
    """Differences as readable lines; empty when the outputs agree within the tolerance."""
    problems = []
    el, al = expected.splitlines(), actual.splitlines()
    if len(el) != len(al):
        problems.append(f"{len(el)} lines expected, {len(al)} written")
    for i, (e, a) in enumerate(zip(el, al), start=1):
        pe, pa = split(e), split(a)
        if len(pe) != len(pa):
            problems.append(f"line {i}: expected\n    {e}\n  got\n    {a}")
            continue
        for k, (x, y) in enumerate(zip(pe, pa)):
            if k % 2 == 0:
                if x != y:
                    problems.append(f"line {i}: text {x!r} expected, {y!r} written\n    {a}")
                    break
                continue
            fx, fy = float(x), float(y)
            if abs(fx - fy) > max(ABS_TOL, REL_TOL * abs(fx)):
                context = pe[k - 1].strip()[-40:]
                problems.append(f"line {i}: {context!r} {x} expected, {y} written "
                                f"(relative {abs(fy - fx) / max(abs(fx), 1e-300):.2e} > {REL_TOL:g})")
        if len(problems) > 40:
            problems.append("... (more)")
            break
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zerosim", required=True, help="the zerosim binary")
    ap.add_argument("mode", choices=["check", "update"])
    ap.add_argument("names", nargs="*", help="cases (default for update: every tests/golden/*.cmd)")
    a = ap.parse_args()
    names = a.names or sorted(p.stem for p in HERE.glob("*.cmd"))
    failed = 0
    for name in names:
        out = run(a.zerosim, name)
        path = HERE / f"{name}.out"
        if a.mode == "update":
            old = path.read_text() if path.exists() else None
            path.write_text(out)
            print(f"{name}: {'unchanged' if old == out else 'written'}")
            continue
        problems = compare(path.read_text(), out)
        if problems:
            failed += 1
            print(f"golden {name}: `zerosim {' '.join(read_case(name)[0])}` differs from tests/golden/{name}.out:")
            for p in problems:
                print("  " + p)
            print("If the change is intended: scripts/update_golden.sh, then review the diff.")
        else:
            print(f"golden {name}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
