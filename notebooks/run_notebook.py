#!/usr/bin/env python3
"""Executes a notebook headless (nbclient) and fails on any cell error.

usage: run_notebook.py NOTEBOOK --out DIR [--zerosim BIN]

The notebook runs with its directory as the working directory and these environment variables:
ZEROSIM_BIN (the zerosim binary), ZEROSIM_ROOT (the source tree) and ZEROSIM_NOTEBOOK_OUT (where it writes
its PNGs and data). The executed copy is saved as DIR/<name>.ipynb; the notebook in the tree stays clean.
"""
import argparse
import os
import pathlib
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("notebook")
    p.add_argument("--out", required=True)
    p.add_argument("--zerosim", default=None)
    a = p.parse_args()
    nb_path = pathlib.Path(a.notebook).resolve()
    root = nb_path.parent.parent
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.environ["ZEROSIM_ROOT"] = str(root)
    os.environ["ZEROSIM_NOTEBOOK_OUT"] = str(out)
    os.environ.setdefault("MPLBACKEND", "Agg")
    if a.zerosim:
        os.environ["ZEROSIM_BIN"] = str(pathlib.Path(a.zerosim).resolve())
    nb = nbformat.read(nb_path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(nb_path.parent)}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{nb_path.name}: a cell failed:\n{e}", file=sys.stderr)
        return 1
    finally:
        nbformat.write(nb, out / nb_path.name)
    print(f"{nb_path.name}: executed; outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
