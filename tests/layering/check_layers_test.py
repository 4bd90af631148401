#!/usr/bin/env python3
"""check_layers.py must fail on each kind of backward include and pass a tree without one (ctest
model_layers_checker). Builds small trees in a temporary folder."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = [sys.executable, os.path.join(HERE, "check_layers.py")]
MODEL = ["spec", "schedule", "cost"]
TREE = ["model", "sim"]


def tree(files):
    root = tempfile.mkdtemp()
    for d in ["model/spec", "model/schedule", "model/cost", "sim"]:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    return root


def run(root):
    r = subprocess.run(CHECK + ["--root", root, "--model"] + MODEL + ["--tree"] + TREE,
                       capture_output=True, text=True)
    shutil.rmtree(root)
    return r.returncode, r.stdout + r.stderr


def expect(name, files, code, needle=""):
    got, out = run(tree(files))
    if got != code or needle not in out:
        print(f"FAIL {name}: exit {got} (want {code}), output:\n{out}")
        return False
    print(f"ok   {name}")
    return True


ok = all([
    expect("forward includes pass",
           {"model/units.h": "", "model/schedule/s.h": '#include "model/spec/a.h"\n#include "model/units.h"\n',
            "model/cost/c.cc": '#include "model/schedule/s.h"\n', "sim/r.cc": '#include "model/cost/c.h"\n'}, 0),
    expect("a folder including a later one fails",
           {"model/schedule/s.h": '#include "model/cost/c.h"\n'}, 1, "model/schedule/s.h:1"),
    expect("the top level including a folder fails",
           {"model/units.h": '\n#include "model/spec/a.h"\n'}, 1, "model/units.h:2"),
    expect("model including sim fails",
           {"model/spec/a.cc": '#include "sim/replay.h"\n'}, 1, "model/spec/a.cc:1"),
    expect("a folder outside the order fails",
           {"model/extra/x.h": ""}, 1, "extra"),
])
sys.exit(0 if ok else 1)
