#!/usr/bin/env python3
"""Fits the caching allocator's fragmentation fraction (model/report/runtime_memory.h kAllocatorFragmentation) on
the published peak reserved memory of scenarios/published/memory/ (issue 34 item 4), with leave-one-out.

For each scenario, `zerosim run --format json` gives the modelled parts per GPU; the fraction f enters as
  reserved(f) = reserved_0 + f * transient,  reserved_0 = reserved - fragmentation (the model without it),
  transient = activations + gathered_parameters + buffers.
f minimises the sum of squared relative errors (reserved(f) - published) / published, which is linear in f:
  f = sum(x_i y_i) / sum(x_i^2),  x_i = transient_i / published_i,  y_i = (published_i - reserved_0_i) / published_i,
with standard error sqrt(s^2 / sum(x_i^2)), s^2 = RSS / (n - 1), bounds [0, 1] (a fraction of the transient bytes,
none to all of them again). Leave-one-out: f refitted without each point, that point predicted. The
context-parallel runs (scenarios with `context = `) came after the fit and are its held-out check, never fitted on.

Usage: python3 scripts/fit_allocator_fragmentation.py [--zerosim build/zerosim]   (from the source tree)
Prints the fit, its LOO errors and a markdown table for docs/fitted_parameters.md. Deterministic.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIB = 1024.0 ** 3


def points(zerosim, held_out=False):
    """The memory scenarios' points: those the fraction is fitted on, or (held_out) the context-parallel runs it
    is checked on out of sample (they came after the fit: scenarios/published/memory/README.md)."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "scenarios", "published", "memory", "*.toml"))):
        rel = os.path.relpath(path, ROOT)
        text = open(path).read()
        if ("\ncontext = " in text) != held_out:
            continue
        published = [float(l.split("=")[1]) for l in text.splitlines() if l.startswith("value = ")]
        doc = json.loads(subprocess.run([zerosim, "run", rel, "--format", "json"], cwd=ROOT, check=True,
                                        capture_output=True, text=True).stdout)
        v = doc["variants"][0]
        m = v["memory_per_gpu_bytes"]
        transient = m["activations"] + m["gathered_parameters"] + m["buffers"]
        out.append(dict(name=os.path.basename(path)[:-5], published=published[0],
                        reserved0=(m["reserved"] - m["fragmentation"]) / GIB, transient=transient / GIB,
                        active=m["active"] / GIB, reserved=m["reserved"] / GIB))
    return out


def fit(ps):
    sxx = sum((p["transient"] / p["published"]) ** 2 for p in ps)
    sxy = sum((p["transient"] / p["published"]) * (p["published"] - p["reserved0"]) / p["published"] for p in ps)
    f = min(1.0, max(0.0, sxy / sxx))
    rss = sum(((p["reserved0"] + f * p["transient"] - p["published"]) / p["published"]) ** 2 for p in ps)
    se = (rss / max(1, len(ps) - 1) / sxx) ** 0.5
    return f, se


def error(p, f):
    return (p["reserved0"] + f * p["transient"]) / p["published"] - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zerosim", default=os.path.join(ROOT, "build", "zerosim"))
    a = ap.parse_args()
    ps = points(a.zerosim)
    f, se = fit(ps)
    loo = []
    for i, p in enumerate(ps):
        fi, _ = fit(ps[:i] + ps[i + 1:])
        loo.append((p, fi, error(p, fi)))
    ins = [error(p, f) for p in ps]
    print(f"f = {f:.4f} +- {se:.4f} (bounds 0-1), n = {len(ps)}")
    print(f"without fragmentation: median |error| {100 * statistics.median(abs(error(p, 0)) for p in ps):.1f}%, "
          f"mean signed {100 * statistics.mean(error(p, 0) for p in ps):+.1f}%")
    print(f"in sample: median |error| {100 * statistics.median(abs(e) for e in ins):.1f}%, "
          f"worst {100 * max(abs(e) for e in ins):.1f}%, mean signed {100 * statistics.mean(ins):+.1f}%")
    le = [e for _, _, e in loo]
    print(f"leave one out: median |error| {100 * statistics.median(abs(e) for e in le):.1f}%, "
          f"worst {100 * max(abs(e) for e in le):.1f}%, mean signed {100 * statistics.mean(le):+.1f}%, "
          f"f range {min(fi for _, fi, _ in loo):.4f}-{max(fi for _, fi, _ in loo):.4f}")
    print()
    print("| run | published GiB | active GiB | reserved without f GiB | transient GiB | error without f | LOO f | LOO error |")
    print("|---|---|---|---|---|---|---|---|")
    for p, fi, e in loo:
        print(f"| {p['name']} | {p['published']:.1f} | {p['active']:.1f} | {p['reserved0']:.1f} | {p['transient']:.1f} "
              f"| {100 * error(p, 0):+.1f}% | {fi:.4f} | {100 * e:+.1f}% |")
    held = points(a.zerosim, held_out=True)
    if held:
        he = [error(p, f) for p in held]
        print()
        print(f"held out (context parallelism, not fitted on): n = {len(held)}, median |error| "
              f"{100 * statistics.median(abs(e) for e in he):.1f}%, worst {100 * max(abs(e) for e in he):.1f}%, "
              f"mean signed {100 * statistics.mean(he):+.1f}%")
        print()
        print("| held-out run | published GiB | reserved GiB at f | error |")
        print("|---|---|---|---|")
        for p, e in zip(held, he):
            print(f"| {p['name']} | {p['published']:.1f} | {p['reserved0'] + f * p['transient']:.1f} | {100 * e:+.1f}% |")


if __name__ == "__main__":
    main()
