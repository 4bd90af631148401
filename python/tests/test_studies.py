"""zerosim.sweep, plan and validate against the command line's JSON lines and tables."""
import os
import re
import tempfile
import tomllib
import unittest

import zerosim
from zerosim._results import flatten

from cli_reference import ROOT, cli, jsonl

H200_SWEEP = ROOT / "scenarios" / "procurement" / "h200_400g_vs_200g.sweep.toml"
FIG7 = ROOT / "scenarios" / "zeropp_paper" / "fig7_1x100g.toml"


def columns(rows: list) -> list:
    """The dotted field names of `rows` in first-seen order: a DataFrame's columns."""
    seen: dict = {}
    for r in rows:
        for k in flatten(r):
            seen.setdefault(k, None)
    return list(seen)


class SweepTest(unittest.TestCase):
    def test_sweep_is_the_commands(self):
        s = zerosim.sweep(H200_SWEEP)
        rows = jsonl(cli(self, "sweep", str(H200_SWEEP), "--quiet").stdout)
        self.assertEqual(s.rows, rows)
        df = s.to_dataframe()
        self.assertEqual(len(df), len(rows))
        self.assertEqual(list(df.columns), columns(rows))
        for name in ("cluster.nodes", "cluster.nic_count", "tokens_per_s", "cost.usd_per_million_tokens"):
            self.assertIn(name, df.columns)
        self.assertEqual(sorted(set(df["cluster.nodes"])), [16, 32, 64])

    def test_sweep_jobs_and_a_dict_base(self):
        # A sweep dict whose base is a dict too: both written beside each other in base_dir (a private folder:
        # never scenarios/, which other tests list while this one runs), the base's paths absolute.
        with open(H200_SWEEP, "rb") as f:
            sweep = tomllib.load(f)
        with open(H200_SWEEP.parent / sweep["base"], "rb") as f:
            base = tomllib.load(f)
        for key in ("topology", "model"):
            base[key] = str((H200_SWEEP.parent / base[key]).resolve())
        sweep["base"] = base
        sweep["axes"] = {"nodes": [16, 32]}
        with tempfile.TemporaryDirectory() as tmp:
            s = zerosim.sweep(sweep, jobs=2, base_dir=tmp)
            self.assertEqual(os.listdir(tmp), [])  # both files removed after the call
        reference = [r for r in zerosim.sweep(H200_SWEEP).rows
                     if r["cluster"]["nodes"] in (16, 32) and r["cluster"]["nic_count"] == 8
                     and r["cluster"]["nic_bandwidth_Bps"] == 50e9]
        self.assertEqual(len(s), len(reference))
        for got, want in zip(s.rows, reference):
            self.assertEqual(got["tokens_per_s"], want["tokens_per_s"])

    def test_bad_axis_raises(self):
        with self.assertRaises(zerosim.InputError) as e, tempfile.TemporaryDirectory() as tmp:
            zerosim.sweep({"name": "x", "base": str(H200_SWEEP.parent / "h200_70b.toml"),
                           "axes": {"no_such_axis": [1, 2]}}, base_dir=tmp)
        self.assertIn("no_such_axis", str(e.exception))
        self.assertEqual(e.exception.path, "<dict>")


class PlanTest(unittest.TestCase):
    def test_plan_is_the_commands(self):
        p = zerosim.plan(H200_SWEEP, target_days=60)
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"zerosim_plan_test_{os.getpid()}.jsonl")
        try:
            text = cli(self, "plan", str(H200_SWEEP), "--target-days", "60", "--quiet", "--jsonl", out).stdout
            with open(out) as f:
                rows = jsonl(f.read())
        finally:
            if os.path.exists(out):
                os.unlink(out)
        self.assertEqual(p.rows, rows)
        self.assertEqual(p.text, text)
        df = p.to_dataframe()
        self.assertEqual(list(df.columns), columns(rows))
        for name in ("axes.nodes", "gpu", "best_setting", "tokens_per_s", "cost_to_train_usd", "time_to_train_s"):
            self.assertIn(name, df.columns)
        self.assertEqual(len(df), 12)


class ValidateTest(unittest.TestCase):
    def test_points_and_groups_are_the_commands(self):
        v = zerosim.validate(FIG7)
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"zerosim_validate_test_{os.getpid()}.jsonl")
        try:
            p = cli(self, "validate", str(FIG7), "--jsonl", out, expect_rc=0 if v.passed else 1)
            with open(out) as f:
                points = jsonl(f.read())
        finally:
            if os.path.exists(out):
                os.unlink(out)
        self.assertEqual(v.points, points)
        self.assertEqual(v.text, p.stdout)
        self.assertEqual(list(v.to_dataframe().columns), columns(points))
        groups = v.groups()
        self.assertEqual(list(groups.columns), ["engine", "group", "metric", "n", "median_abs_error",
                                                "worst_abs_error", "mean_signed_error", "infeasible"])
        self.assertEqual(int(groups["n"].sum()), len(points))
        # The command's own group table (study/validation.cc FormatGroupSummary), line by line, to its 0.1%.
        table = re.findall(r"^(analytic|sim)\s+(.+?)\s{2,}(\S+)\s+(\d+)\s+([-+\d.]+)%\s+([-+\d.]+)%\s+([-+\d.]+)%"
                           r"\s+(\d+)\s*$", p.stdout, re.M)
        self.assertEqual(len(table), len(groups))
        for (engine, group, metric, n, median, worst, signed, infeasible), g in zip(table, groups.itertuples()):
            self.assertEqual((engine, group, metric, int(n), int(infeasible)),
                             (g.engine, g.group, g.metric, g.n, g.infeasible))
            self.assertEqual(f"{100 * g.median_abs_error:.1f}", median)
            self.assertEqual(f"{100 * g.worst_abs_error:.1f}", worst)
            self.assertEqual(f"{100 * g.mean_signed_error:+.1f}", signed)

    def test_a_point_outside_tolerance_is_a_result(self):
        v = zerosim.validate(FIG7)
        outside = [pt for pt in v.points if abs(pt["error"]) > pt["tolerance"]]
        self.assertEqual(v.passed, not outside)


if __name__ == "__main__":
    unittest.main()
