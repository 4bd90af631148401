#!/usr/bin/env python3
"""Executes a notebook headless (nbclient) and fails on any cell error.

usage: run_notebook.py NOTEBOOK --out DIR [--zerosim BIN] [--pythonpath DIR ...] [--expect FIGURE.png ...]

With --expect, each named figure must have been written (non-empty, after the run started) into DIR: a notebook
that runs but draws nothing fails. Each must also be a PNG of a readable size: 300 to 2,400 pixels on each side and
at most 4 times as wide as high or as high as wide (a 5,148 x 506 strip of panels would fail).

The notebook runs with its directory as the working directory and these environment variables:
ZEROSIM_BIN (the zerosim binary), ZEROSIM_ROOT (the source tree) and ZEROSIM_NOTEBOOK_OUT (where it writes
its PNGs and data). --pythonpath puts folders first on the kernel's PYTHONPATH: the package python/zerosim and
the built module zerosim._core (build/python), for notebooks that `import zerosim`. The executed copy is saved as DIR/<name>.ipynb; the notebook in the tree stays clean.
"""
import argparse
import os
import pathlib
import struct
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


# A readable figure (pixels): each side within these, the longer at most MAX_ASPECT times the shorter.
MIN_SIDE_PX, MAX_SIDE_PX, MAX_ASPECT = 300, 2400, 4.0


def png_size(path: pathlib.Path):
    """(width, height) from a PNG's IHDR chunk (PNG spec 11.2.2: bytes 16-23 after the 8-byte signature and the
    chunk's length and type), or None if the file is not a PNG."""
    head = path.read_bytes()[:24]
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def size_problem(path: pathlib.Path):
    """Why the figure at `path` is not of a readable size, or None."""
    size = png_size(path)
    if size is None:
        return f"{path.name} is not a PNG"
    w, h = size
    if not (MIN_SIDE_PX <= w <= MAX_SIDE_PX and MIN_SIDE_PX <= h <= MAX_SIDE_PX):
        return f"{path.name} is {w} x {h} pixels: each side must be {MIN_SIDE_PX} to {MAX_SIDE_PX}"
    if max(w, h) > MAX_ASPECT * min(w, h):
        return f"{path.name} is {w} x {h} pixels: more than {MAX_ASPECT:g} times as long one way as the other"
    return None


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("notebook", nargs="?")
    p.add_argument("--out")
    p.add_argument("--tested", nargs="*", help="instead of running: fail unless these are every notebook beside this script")
    p.add_argument("--zerosim", default=None)
    p.add_argument("--pythonpath", nargs="*", default=[], help="folders the kernel imports from first (import zerosim)")
    p.add_argument("--expect", nargs="*", default=[], help="figures (file names in --out) the run must write")
    a = p.parse_args()
    if a.tested is not None:
        here = pathlib.Path(__file__).resolve().parent
        present = sorted(f.stem for f in here.glob("*.ipynb"))
        if present != sorted(a.tested):
            print(f"notebooks present {present}, tested {sorted(a.tested)}: list every notebook in tests/CMakeLists.txt",
                  file=sys.stderr)
            return 1
        print(f"every notebook is tested: {', '.join(present)}")
        return 0
    if a.notebook is None or a.out is None:
        p.error("give NOTEBOOK and --out (or --tested NAME ...)")
    nb_path = pathlib.Path(a.notebook).resolve()
    root = nb_path.parent.parent
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.environ["ZEROSIM_ROOT"] = str(root)
    os.environ["ZEROSIM_NOTEBOOK_OUT"] = str(out)
    os.environ.setdefault("MPLBACKEND", "Agg")
    if a.zerosim:
        os.environ["ZEROSIM_BIN"] = str(pathlib.Path(a.zerosim).resolve())
    if a.pythonpath:
        paths = [str(pathlib.Path(d).resolve()) for d in a.pythonpath]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [os.environ.get("PYTHONPATH")] if p])
    started = time.time()
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
    missing = [f for f in a.expect
               if not (out / f).is_file() or (out / f).stat().st_size == 0 or (out / f).stat().st_mtime < started - 1]
    if missing:
        print(f"{nb_path.name}: ran, but did not write {', '.join(missing)} into {out}", file=sys.stderr)
        return 1
    unreadable = [why for why in (size_problem(out / f) for f in a.expect) if why]
    if unreadable:
        print(f"{nb_path.name}: figures of an unreadable size: {'; '.join(unreadable)}", file=sys.stderr)
        return 1
    print(f"{nb_path.name}: executed; outputs in {out}" + (f"; figures {', '.join(a.expect)}" if a.expect else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
