#!/usr/bin/env python3
"""Fails on an #include that runs backwards through ZeroSim's layers (issue 36 item 4).

Two orders, lowest first, each a list of folders:
  --model   model/'s folders (CMake's ZEROSIM_MODEL_LAYERS, then io): a file in model/<f>/ may include
            model/<g>/... only where g is f or comes before f; model/'s top-level headers (status.h, units.h, ...)
            are below every folder and include none of them.
  --tree    the top-level folders (model kernels sim study cli): a file in <d>/ may include "<e>/..." only where
            e is d or comes before d.
Only the project's quoted includes are read ("folder/file.h"); system and library headers are not. Prints every
backward include as file:line: the include, and what the layer order allows, then exits 1; exits 0 when there is
none. Usage: check_layers.py --root DIR --model spec schedule ... --tree model kernels ...
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".cc", ".cu", ".cuh", ".cpp")


def sources_under(root, folder):
    for base, _, files in os.walk(os.path.join(root, folder)):
        for name in sorted(files):
            if name.endswith(SOURCES):
                yield os.path.join(base, name)


def includes(path):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def model_layer(parts, order):
    """The layer index of model/<parts...>: -1 for model's top level, None for a folder not in the order."""
    if len(parts) == 1:
        return -1
    return order.index(parts[0]) if parts[0] in order else None


def check(root, model_order, tree_order):
    problems = []
    for top in tree_order:
        for path in sources_under(root, top):
            rel = os.path.relpath(path, root)
            rel_parts = rel.split(os.sep)
            for number, inc in includes(path):
                inc_parts = inc.split("/")
                if len(inc_parts) < 2 or inc_parts[0] not in tree_order:
                    continue  # a header of the same folder by its own name, or not the project's
                where = f"{rel}:{number}: #include \"{inc}\""
                if tree_order.index(inc_parts[0]) > tree_order.index(top):
                    problems.append(f"{where}: {top}/ is below {inc_parts[0]}/ (order: {' < '.join(tree_order)})")
                    continue
                if top != "model" or inc_parts[0] != "model":
                    continue
                mine = model_layer(rel_parts[1:], model_order)
                theirs = model_layer(inc_parts[1:], model_order)
                if mine is None:
                    problems.append(f"{rel}: model/{rel_parts[1]}/ is not in the layer order")
                    continue
                if theirs is None:
                    problems.append(f"{where}: model/{inc_parts[1]}/ is not in the layer order")
                elif theirs > mine:
                    name = "model/ (top level)" if mine < 0 else f"model/{rel_parts[1]}/"
                    problems.append(f"{where}: {name} is below model/{inc_parts[1]}/ "
                                    f"(order: top level < {' < '.join(model_order)})")
    return sorted(set(problems))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--model", nargs="+", required=True)
    ap.add_argument("--tree", nargs="+", required=True)
    a = ap.parse_args()
    missing = [d for d in a.tree if not os.path.isdir(os.path.join(a.root, d))]
    missing += [f"model/{d}" for d in a.model if not os.path.isdir(os.path.join(a.root, "model", d))]
    if missing:
        print("check_layers: no such folder: " + ", ".join(missing), file=sys.stderr)
        return 2
    on_disk = sorted(e.name for e in os.scandir(os.path.join(a.root, "model")) if e.is_dir()
                     and e.name != "__pycache__")
    unordered = [d for d in on_disk if d not in a.model]
    if unordered:
        print("check_layers: model/ folders missing from the layer order: " + ", ".join(unordered), file=sys.stderr)
        return 1
    problems = check(a.root, a.model, a.tree)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} backward include(s)", file=sys.stderr)
        return 1
    print(f"no backward include: model {' < '.join(['top level'] + a.model)}; tree {' < '.join(a.tree)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
