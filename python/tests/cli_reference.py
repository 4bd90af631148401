"""The tests' reference: the `zerosim` binary itself (ZEROSIM_BIN, set by ctest: python/CMakeLists.txt), run as a
separate process on the same input, so the package is checked against the command line's own output."""
import json
import os
import pathlib
import subprocess
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]  # the source tree: scenarios/ and tests/ are read from it
BIN = os.environ.get("ZEROSIM_BIN")


def binary_or_skip(case: unittest.TestCase) -> str:
    if not BIN:
        case.skipTest("ZEROSIM_BIN is not set (ctest sets it to the built zerosim)")
    return BIN


def cli(case: unittest.TestCase, *args: str, expect_rc: int = 0) -> subprocess.CompletedProcess:
    """`zerosim ARGS...` from the source tree, with its exit status checked."""
    p = subprocess.run([binary_or_skip(case), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    case.assertEqual(p.returncode, expect_rc, f"zerosim {' '.join(args)}: {p.stderr}")
    return p


def jsonl(text: str) -> list:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
