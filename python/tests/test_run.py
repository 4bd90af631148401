"""zerosim.run and zerosim.compare against the command line's JSON lines; scenarios as dicts; errors."""
import math
import os
import tempfile
import tomllib
import unittest

import zerosim
from zerosim import _toml
from zerosim._results import flatten

from cli_reference import ROOT, cli, jsonl

DEFAULT = ROOT / "scenarios" / "default.toml"
FIG6 = ROOT / "scenarios" / "zeropp_paper" / "fig6_4x100g.toml"
FIG7 = ROOT / "scenarios" / "zeropp_paper" / "fig7_1x100g.toml"


def default_dict() -> dict:
    """scenarios/default.toml as a dict, its paths relative to the source tree's root (base_dir=ROOT). Dicts are
    written beside their base_dir for the call: never into scenarios/ or topologies/, which other tests list while
    this one runs (tests/io/shipped_inputs_test.cc)."""
    with open(DEFAULT, "rb") as f:
        d = tomllib.load(f)
    d["topology"] = "topologies/zeropp_v100_1x100g.toml"
    d["model"] = "scenarios/models/gpt_18b.toml"
    return d


class RunTest(unittest.TestCase):
    def assert_matches_cli(self, result: zerosim.RunResult, cli_rows: list):
        self.assertEqual([v.record for v in result], cli_rows)
        for v, row in zip(result, cli_rows):
            for name in ("scenario", "variant", "engine", "feasible", "iteration_time_s", "tflops_per_gpu", "mfu",
                         "tokens_per_s", "exposed_comm_s", "memory_per_gpu_bytes", "cross_node_bytes",
                         "intra_node_bytes"):
                self.assertEqual(getattr(v, name), row[name], name)

    def test_default_scenario_is_the_commands(self):
        r = zerosim.run()
        self.assertEqual([v.variant for v in r], ["ZeRO-3", "ZeRO++"])
        self.assert_matches_cli(r, jsonl(cli(self, "run", "--format", "jsonl").stdout))
        self.assertIsInstance(r["ZeRO++"].tflops_per_gpu, float)
        self.assertIsInstance(r["ZeRO++"].memory_per_gpu_bytes, int)
        self.assertEqual(r["ZeRO-3"]["cluster.gpus"], 384)
        # The document is `run --json`'s: its variants are the rows' variants.
        self.assertEqual([v["name"] for v in r.document["variants"]], ["ZeRO-3", "ZeRO++"])
        again = zerosim.run()  # deterministic: the same input gives the same values
        self.assertEqual((again.variants, again.document), (r.variants, r.document))

    def test_dataframe_has_the_jsonl_fields(self):
        r = zerosim.run(FIG7)
        df = r.to_dataframe()
        rows = jsonl(cli(self, "run", str(FIG7), "--format", "jsonl").stdout)
        self.assertEqual(len(df), len(rows))
        self.assertEqual(list(df.columns), list(flatten(rows[0])))
        first = flatten(rows[0])
        for name, value in first.items():
            if isinstance(value, float):
                self.assertEqual(df[name].iloc[0], value, name)
        self.assertEqual(list(df["variant"]), [row["variant"] for row in rows])

    def test_a_dict_is_the_file_it_was_read_from(self):
        # The dict's relative paths (topology, model) resolve against base_dir, as from a file there.
        r = zerosim.run(default_dict(), base_dir=ROOT)
        self.assert_matches_cli(r, jsonl(cli(self, "run", str(DEFAULT), "--format", "jsonl").stdout))
        self.assertEqual([f for f in os.listdir(ROOT) if f.startswith(".zerosim-")], [])  # removed after the call

    def test_a_changed_dict_changes_the_result(self):
        d = default_dict()
        d["training"]["tokens_per_gpu"] = 1024
        d["variant"] = [{"name": "ZeRO++ small", "zero_quantized_weights": True, "zero_hpz_partition_size": 16,
                         "zero_quantized_gradients": True}]
        r = zerosim.run(d, base_dir=ROOT)
        self.assertEqual([v.variant for v in r], ["ZeRO++ small"])
        self.assertEqual(r[0]["tokens_per_gpu"], 1024)
        base = zerosim.run()["ZeRO++"]
        self.assertLess(r[0].iteration_time_s, base.iteration_time_s)

    def test_overrides_are_set_options(self):
        r = zerosim.run(nodes=12, settings={"nic.bandwidth": "200Gbps"})
        rows = jsonl(cli(self, "run", "--set", "nic.bandwidth=200Gbps", "--set", "nodes=12", "--format",
                         "jsonl").stdout)
        self.assert_matches_cli(r, rows)
        self.assertEqual(r[0]["cluster.nodes"], 12)
        self.assertEqual(r[0]["cluster.nic_bandwidth_Bps"], 25e9)

    def test_sim_engine_forks_its_workers_from_python(self):
        # The sim engine runs each variant in a forked child (sim/process_pool.h): from inside Python too.
        r = zerosim.run(engine="both", jobs=2)
        self.assertEqual([(v.variant, v.engine) for v in r],
                         [("ZeRO-3", "analytic"), ("ZeRO-3", "sim"), ("ZeRO++", "analytic"), ("ZeRO++", "sim")])
        rows = jsonl(cli(self, "run", "--engine", "both", "--format", "jsonl").stdout)
        self.assert_matches_cli(r, rows)


class ErrorTest(unittest.TestCase):
    def test_a_bad_key_in_a_dict_names_the_key(self):
        d = default_dict()
        d["training"]["bogus_key"] = 3
        with self.assertRaises(zerosim.InputError) as e:
            zerosim.run(d, base_dir=ROOT)
        err = e.exception
        self.assertEqual(err.exit_code, 2)
        self.assertIn("bogus_key", str(err))
        self.assertIn("[training] bogus_key: unknown key", str(err))
        self.assertEqual(err.path, "<dict>")
        # The line is the written TOML's (err.toml["<dict>"]): that line holds the key.
        self.assertIn("bogus_key", err.toml["<dict>"].splitlines()[err.line - 1])

    def test_a_bad_key_in_a_file_names_file_line_and_key(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.toml")
            d = default_dict()
            d["topology"] = str(ROOT / "topologies" / "zeropp_v100_1x100g.toml")
            d["model"] = str(ROOT / "scenarios" / "models" / "gpt_18b.toml")
            d["zero"]["bogus_zero_key"] = True
            with open(path, "w") as f:
                f.write(_toml.dumps(d))
            with self.assertRaises(zerosim.InputError) as e:
                zerosim.run(path)
            cli_err = cli(self, "run", path, expect_rc=2).stderr.strip()
        self.assertEqual(str(e.exception), cli_err)
        self.assertEqual(e.exception.path, path)
        self.assertIn("[zero] bogus_zero_key: unknown key", str(e.exception))
        self.assertIsInstance(e.exception.line, int)

    def test_unknown_setting_and_missing_file(self):
        with self.assertRaises(zerosim.InputError) as e:
            zerosim.run(no_such_axis=1)
        self.assertIn("no_such_axis", str(e.exception))
        with self.assertRaises(zerosim.InputError) as e:
            zerosim.run(ROOT / "no_such_scenario.toml")
        self.assertIn("no_such_scenario.toml", str(e.exception))
        self.assertIsInstance(e.exception, ValueError)

    def test_cli_returns_the_status(self):
        r = zerosim.cli("run", "--format", "nonsense")
        self.assertEqual(r.returncode, 2)
        self.assertIn("nonsense", r.stderr)
        self.assertEqual(zerosim.cli("run", "--format", "jsonl").stdout,
                         cli(self, "run", "--format", "jsonl").stdout)

    def test_the_process_descriptors_come_back(self):
        before = (os.fstat(1).st_ino, os.fstat(2).st_ino)
        zerosim.run()
        with self.assertRaises(zerosim.InputError):
            zerosim.run(nodes="banana")
        self.assertEqual((os.fstat(1).st_ino, os.fstat(2).st_ino), before)


class CompareTest(unittest.TestCase):
    def test_compare_is_the_commands(self):
        c = zerosim.compare(FIG6, FIG7)
        rows = jsonl(cli(self, "compare", str(FIG6), str(FIG7), "--format", "jsonl").stdout)
        self.assertEqual(c.rows, rows)
        a, b, diff = c.value("18B-1K ZeRO-3", "cluster.nic_count")
        self.assertEqual((a, b, diff), (4, 1, -3))
        df = c.to_dataframe()
        self.assertEqual(list(df.columns), ["variant", "engine", "field", "unit", "a", "b", "difference"])

    def test_compare_a_dict_with_settings(self):
        c = zerosim.compare(default_dict(), DEFAULT, set_a={"nic.bandwidth": "200Gbps"}, base_dir=ROOT)
        a, b, _ = c.value("ZeRO-3", "iteration_time_s")
        self.assertLess(a, b)  # more bandwidth is never slower, and here it is faster


class TomlTest(unittest.TestCase):
    def test_round_trip(self):
        d = {"name": 'quote " and \\ and \n', "n": 3, "x": 0.1, "big": 1e300, "flag": False,
             "inf": math.inf, "axes": {"nic.bandwidth": ["200Gbps", "400Gbps"], "nodes": [1, 2]},
             "variant": [{"name": "a", "sub": {"k": 1}}, {"name": "b", "list": [{"x": 1}, [2, 3]]}],
             "empty": {}, "unicode": "Δt ✓"}
        self.assertEqual(tomllib.loads(_toml.dumps(d)), d)

    def test_a_value_toml_cannot_hold_names_its_key(self):
        with self.assertRaises(TypeError) as e:
            _toml.dumps({"training": {"seq_len": None}})
        self.assertIn("training.seq_len", str(e.exception))


if __name__ == "__main__":
    unittest.main()
