#!/usr/bin/env python3
"""Turns ../shared/validation/nccl_points.json into scenarios/published/nccl_points.json, the NCCL measurements
ZeroSim can express, for `zerosim validate --nccl-points`.

A point is expressible when its GPU type, GPU and node counts, message size and (across nodes) the NICs per node
and their rate are known, and its algorithm is one ZeroSim models: NCCL's ring and all-to-all, and for all-reduce
also tree, single-node NVLS and NVLSTree (model/cost/nccl_allreduce.h); not NVLS all-gather or reduce-scatter.
Each point also carries what the source says about how it was measured: the benchmark, its own per-call cost
that the timing includes (BENCHMARKS below), the NCCL release when stated, the algorithm when forced, and the
network plugin's reported latency where the point names an EC2 platform (PLATFORM_NET_LATENCY_S). Node fabrics are read from the point's own description (gpu string and notes, e.g. "8 x 400 Gb RoCE per
node", "3200 Gb/s per node"); nothing is guessed: a point whose NICs are not stated is listed as not expressible
with the reason. Deterministic output.

Usage: python3 scripts/nccl_points_to_checks.py [--points PATH] [--out FILE]
"""
import argparse
import json
import os
import re
import sys
from collections import Counter

# NVSwitch bandwidth per GPU per direction, GB/s (datasheets: A100 NVLink3 600 GB/s, H100/H200 NVLink4 900 GB/s,
# B200 NVLink5 1.8 TB/s, all bidirectional), and SM counts (datasheets).
GPUS = [("B200", 900, 148), ("H200", 450, 132), ("H100", 450, 132), ("H800", 200, 132), ("A100", 300, 108)]


def gpu_of(text):
    for name, nvlink, sms in GPUS:
        if text and name in text:
            return name, nvlink, sms
    return None


# What each benchmark's timing holds beside NCCL's own time, seconds per call.
# - nccl-tests (src/common.cu): launches `iters` collectives back to back and synchronises once, so host cost per
#   call overlaps the GPU work: 0.
# - stas00/ml-engineering network/benchmarks/all_reduce_bench.py (repo HEAD 744d01e, timed_allreduce): per call
#   dist.barrier(), start_event.record(), dist.all_reduce(tensor), end_event.record(), torch.cuda.synchronize():
#   the stream is idle when the start event is taken, so the host path of one torch.distributed call (c10d's
#   ProcessGroupNCCL work setup, stream sync, NCCL enqueue, kernel launch) lies inside the timing. Its size, from
#   the same author on the same 8 x H200 node (network/README.md, 'Real network throughput'): the
#   all_reduce_latency_comp.py run issues 1,000 back-to-back 4e6-byte all-reduces, busbw 1146.127 Gbps, i.e.
#   4e9 * 8 / (1146.127e9 / 1.75) / 1000 = 48.86 us per call with the host cost overlapped; all_reduce_bench.py's
#   4 MiB row (algbw 61.23 GBps) is 4194304 / 61.23e9 = 68.50 us. Scaling the back-to-back call to 4 MiB as pure
#   bandwidth (48.86 us * 4194304 / 4e6 = 51.23 us) leaves 17.3 us per call for the benchmark (the lower bound;
#   pure latency would leave 19.6 us).
BENCHMARKS = {"nccl-tests": 0.0, "all_reduce_bench.py": 17.3e-6, "unknown": 0.0}


# The latency the network plugin reports to NCCL (ncclNetProperties_t.latency), which NCCL's tuner adds to each
# network step (model/cost/collective_time.h NetworkStepLatencySeconds). aws-ofi-nccl sets it per EC2 platform
# (src/platform-aws.cpp, platform table, at aws/aws-ofi-nccl 2daf7d3; 35 us since 2496e7de, 2025-05-23, "Updating
# latency value for p5en and p6 based on empirical search"): p5en and p6-b200 35 us, p5 and p5e 75 us. NCCL's own
# IB and socket transports report 0 ("Not set"). Only a platform the point names explicitly gets a value.
PLATFORM_NET_LATENCY_S = [(r"\bp6-b200\b", 35e-6), (r"\bp5en\b", 35e-6), (r"\bp5e?\.\d*x?large\b", 75e-6)]


def net_latency_of(point):
    text = f"{point.get('gpu') or ''} {point.get('notes') or ''}"
    for pattern, latency_s in PLATFORM_NET_LATENCY_S:
        if re.search(pattern, text):
            return latency_s
    return 0.0


def benchmark_of(point):
    text = f"{point.get('source') or ''} {point.get('notes') or ''}"
    if "all_reduce_bench.py" in text or ("ml-engineering" in text and "torch" in text):
        return "all_reduce_bench.py"
    if "nccl-tests" in text or "all_reduce_perf" in text or "all_gather_perf" in text:
        return "nccl-tests"
    return "unknown"


def release_of(point):
    m = re.search(r"NCCL[ =-]?v?(2\.\d+(?:\.\d+)?)", point.get("notes") or "")
    return m.group(1) if m else None


def algorithm_of(point):
    text = f"{point['id']} {point.get('notes') or ''}".lower()
    if point["id"].endswith("-ring") or "nvls_enable=0" in text or re.search(r"\bring\b", point.get("notes") or "", re.I):
        return "ring"
    if "nvlstree" in text:
        return "nvlstree"
    if re.search(r"\btree\b", text) or point["id"].endswith("-tree"):
        return "tree"
    if "nvls" in text:
        return "nvls"
    return "default"


def nics_of(point):
    text = f"{point.get('gpu') or ''} {point.get('notes') or ''}"
    m = re.search(r"(\d+)\s*x\s*(\d+)\s*Gb", text)
    if m:
        return int(m.group(1)), float(m.group(2))
    m = re.search(r"(\d+)\s*x\s*HDR\s*200", text)
    if m:
        return int(m.group(1)), 200.0
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", default=os.path.join(root, "..", "shared", "validation", "nccl_points.json"))
    ap.add_argument("--out", default=os.path.join(root, "scenarios", "published", "nccl_points.json"))
    args = ap.parse_args()
    with open(args.points) as f:
        points = json.load(f)["points"]
    out, skipped = [], Counter()
    for p in points:
        text = f"{p.get('gpu') or ''} {p.get('notes') or ''}".lower()
        why = None
        gpu = gpu_of(p.get("gpu"))
        coll = p["collective"]
        if coll not in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all"):
            why = "collective not named"
        elif gpu is None:
            why = "GPU type not stated or not in ZeroSim's table"
        elif not p.get("message_bytes"):
            why = "no message size (a peak over a sweep)"
        elif p.get("busbw_GBps") is None:
            why = "no bus bandwidth"
        elif "tree" in text and coll != "all_reduce":
            why = "tree algorithm for a collective other than all-reduce"
        elif "nvls active from" in text:
            why = "algorithm changes along the sweep (NVLS from a size the source names)"
        elif "nvlstree" in text and (p.get("nodes") or 0) < 2:
            why = "NVLSTree on fewer than two nodes (or node count not stated)"
        elif "nvls" in text and "nvlstree" not in text and (coll != "all_reduce" or (p.get("nodes") or 0) != 1):
            why = "NVLS other than single-node all-reduce"
        elif not p.get("nodes") or not p.get("gpus"):
            why = "node or GPU count not stated"
        elif "pcie" in text or "nv12" in text:
            why = "not an NVSwitch node"
        if why is None:
            nodes, gpus = p["nodes"], p["gpus"]
            if gpus % nodes != 0:
                why = "GPUs not spread evenly over nodes"
            nics = nics_of(p) if nodes > 1 else (1, 0.0)
            if why is None and nics is None:
                why = "NICs per node not stated"
        if why is not None:
            skipped[why] += 1
            continue
        name, nvlink, sms = gpu
        out.append({
            "id": p["id"], "source": p["source"], "confidence": p["confidence"], "collective": coll,
            "gpu": name, "sms": sms, "nvlink_GBps": nvlink, "nodes": nodes, "gpus_per_node": gpus // nodes,
            "nics_per_node": nics[0], "nic_Gbps": nics[1], "message_bytes": p["message_bytes"],
            "busbw_GBps": p["busbw_GBps"], "algorithm": algorithm_of(p), "benchmark": benchmark_of(p),
            "benchmark_overhead_s": BENCHMARKS[benchmark_of(p)],
        })
        if net_latency_of(p) > 0:
            out[-1]["net_latency_s"] = net_latency_of(p)
        if release_of(p):
            out[-1]["nccl_release"] = release_of(p)
    with open(args.out, "w") as f:
        json.dump({"format": "zerosim-nccl-points-1",
                   "generated_by": "scripts/nccl_points_to_checks.py from ../shared/validation/nccl_points.json",
                   "not_expressible": dict(sorted(skipped.items())), "points": out}, f, indent=1)
        f.write("\n")
    print(f"{len(out)} of {len(points)} NCCL points expressible; not: " +
          ", ".join(f"{n} {why}" for why, n in sorted(skipped.items())))


if __name__ == "__main__":
    sys.exit(main())
