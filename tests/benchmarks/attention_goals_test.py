"""benchmarks/attention_goals.py judges goals from benchmark JSON: a made-up run whose figures sit
just above and just below each threshold, and runs without peers, which must say "not measured".

    python3 tests/benchmarks/attention_goals_test.py   (CTest runs it where python3 is found)
"""

import json
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
import attention_goals  # noqa: E402
import attention_table  # noqa: E402


def prefill(entry, d, t, mask, threads, **counters):
    return {"name": f"prefill/D:{d}/H:8/T:{t}/{mask}/threads:{threads}/{entry}/iterations:20/manual_time",
            "run_type": "iteration", **counters}


def decode(entry, hq, hkv, tk, threads, cache, **counters):
    return {"name": f"decode/D:128/Hq:{hq}/Hkv:{hkv}/Tk:{tk}/threads:{threads}/cache:{cache}/{entry}/manual_time",
            "run_type": "iteration", **counters}


def split(batch, **counters):
    return {"name": f"head_split/ctein/B:{batch}/repeats:5/real_time", "run_type": "aggregate",
            "aggregate_name": "median", **counters}


def goal_rows(files):
    """{goal text: (measured, verdict)} of the goals table of these {name: (context, rows)} files."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, (context, rows) in files.items():
            path = pathlib.Path(folder) / name
            path.write_text(json.dumps({"context": context, "benchmarks": rows}))
            paths.append(str(path))
        text = attention_goals.goals_of(paths)
    found = {}
    for line in text.splitlines()[4:]:
        goal, measured, verdict = [cell.strip() for cell in line.strip("|").split("|")]
        found[goal] = (measured, verdict)
    return found


CACHES = [{"type": "Unified", "level": 2, "size": 1 << 20}, {"type": "Unified", "level": 3, "size": 32 << 20}]


def run():
    ctein = [
        prefill("ctein", 128, 2048, "full", 1, GFLOPs=100.0, pct_peak=90.5, seconds=1.0),
        prefill("ctein", 128, 2048, "full", 2, GFLOPs=191.0, pct_peak=91.0, seconds=0.52),
        prefill("ctein", 128, 512, "causal", 1, GFLOPs=80.0, pct_peak=84.9, seconds=0.1,
                **{"pct_peak_torch2.15_products": 72.4}),
        prefill("ctein", 128, 512, "causal", 2, GFLOPs=151.0, pct_peak=80.0, seconds=0.06),
        decode("ctein", 32, 8, 4096, 1, "cold", seconds=1.0, vs_memcpy=0.79, **{"vs_torch2.15": 1.5}),
        decode("ctein_bf16", 32, 8, 4096, 1, "cold", seconds=0.5, vs_memcpy=0.9, vs_ctein=2.0),
        decode("torch2.15", 32, 8, 4096, 1, "cold", seconds=1.5),  # ctein's row holds the ratio
    ]
    rearrange = [split(2, vs_memcpy=0.5, bytes=16 << 20),  # inside the cache: not the goal's row
                 split(8, vs_memcpy=0.91, bytes=64 << 20)]
    engines = [
        prefill("openvino_f32", 128, 2048, "full", 1, seconds=1.2),
        prefill("openvino_f32", 128, 512, "causal", 1, seconds=0.099),
        decode("onnxruntime_gqa", 32, 8, 4096, 1, "cold", seconds=1.1),
        decode("openvino_f32", 32, 8, 4096, 1, "cold", seconds=0.4),
    ]
    return {"attention.json": ({"caches": CACHES}, ctein),
            "attention_engines.json": ({"left_out": {"openvino_bf16": "no native bf16 here"}}, engines),
            "rearrange.json": ({"caches": CACHES}, rearrange)}


class Goals(unittest.TestCase):
    def setUp(self):
        self.goals = goal_rows(run())

    def goal(self, start):
        (found,) = [value for goal, value in self.goals.items() if goal.startswith(start)]
        return found

    def test_peak_goals_judge_each_row(self):
        self.assertEqual(self.goal("fp32 prefill, 1 thread, ≥ 90 %"),
                         ("90.5 % over 1 rows; closest: D 128 T 2048 full 1t 90.5", "met"))
        measured, verdict = self.goal("fp32 prefill, 1 thread, ≥ 85 %")
        self.assertEqual(verdict, "**not met** (0 of 1)")
        self.assertIn("short: D 128 T 512 causal 1t 84.9", measured)
        # the row's two products on PyTorch's GEMM, timed beside it, are quoted with the goal
        self.assertTrue(measured.endswith("; the same rows' q·kᵀ and P·V alone on PyTorch 2.15's GEMM: 72.4 %"))

    def test_peers_are_compared_row_by_row(self):
        measured, verdict = self.goal("fp32 prefill faster than")
        self.assertEqual(verdict, "**not met** (1 of 2)")  # 0.099 s against ctein's 0.1 s
        self.assertIn("short: D 128 T 512 causal 1t ÷ OpenVINO f32 0.99", measured)
        measured, verdict = self.goal("fp32 decode faster than")
        self.assertEqual(verdict, "**not met** (2 of 3)")  # OpenVINO's 0.4 s against ctein's 1.0 s
        self.assertEqual(measured, "0.40–1.50 × over 3 rows; short: 32/8×128 Tk 4096 1t cold ÷ OpenVINO f32 0.40")

    def test_thread_scaling(self):
        measured, verdict = self.goal("fp32 prefill, 2 threads")
        self.assertEqual(verdict, "**not met** (1 of 2)")
        self.assertIn("short: D 128 T 512 causal 2t 1.89", measured)

    def test_memory_goals(self):
        self.assertEqual(self.goal("fp32 decode, cold caches")[1], "**not met** (0 of 1)")
        measured, verdict = self.goal("bf16 KV cache decode")
        self.assertEqual(verdict, "met")
        self.assertIn("at Tk ≥ 4096 2.00 × the fp32 cache's speed", measured)
        self.assertEqual(self.goal("rearrange: head split"), ("0.91 × over 1 rows; closest: B 8 0.91", "met"))

    def test_a_goal_without_rows_is_not_measured(self):
        self.assertEqual(self.goal("bf16 prefill ≥ 1.3"),
                         ("no OpenVINO bf16 rows: no native bf16 here", "not measured"))
        self.assertEqual(self.goal("f16 KV cache decode")[1], "not measured")
        files = run()
        alone = goal_rows({"attention.json": ({}, files["attention.json"][1]),
                           "rearrange.json": files["rearrange.json"]})
        self.assertEqual(alone[next(g for g in alone if g.startswith("fp32 prefill faster"))][1], "not measured")
        self.assertEqual(alone[next(g for g in alone if g.startswith("rearrange"))][1], "met")


class EnginesTimedBetweenCalls(unittest.TestCase):
    """ctein_bench_attention with an engine server: the engines' figures are counters of ctein's
    rows, and a ratio is the one the row measured between its calls, not one of two rows."""

    def rows(self):
        return [
            # the fastest calls alone would say 0.999: the row's own ratio says 1.05
            prefill("ctein", 128, 512, "full", 1, GFLOPs=100.0, pct_peak=70.0, seconds=0.1, vs_openvino_f32=1.05,
                    openvino_f32_seconds=0.0999, openvino_f32_max_abs_error=1.2e-7),
            prefill("ctein_bf16", 128, 512, "full", 1, GFLOPs=300.0, seconds=0.0333, vs_openvino_bf16=1.29,
                    openvino_bf16_seconds=0.05, openvino_bf16_max_abs_error=3e-3),
            # an engine timed by two rows: the first row's figures make its row
            prefill("ctein_f16", 128, 512, "full", 1, GFLOPs=250.0, seconds=0.04, vs_openvino_bf16=1.2,
                    openvino_bf16_seconds=0.048),
            decode("ctein", 32, 8, 4096, 1, "cold", seconds=1.0, bytes_per_second=6.4e10, vs_memcpy=1.1,
                   vs_onnxruntime_gqa=1.2,
                   onnxruntime_gqa_seconds=0.8),
            decode("ctein_bf16", 32, 8, 4096, 1, "cold", seconds=0.5, vs_memcpy=0.9, vs_ctein=2.0,
                   vs_onnxruntime_gqa=0.95, onnxruntime_gqa_seconds=0.47),
        ]

    def test_engine_rows_are_made_of_the_counters(self):
        made = {r["name"]: r for r in attention_table.with_engine_rows(self.rows())}
        openvino = made["prefill/D:128/H:8/T:512/full/threads:1/openvino_f32"]
        self.assertAlmostEqual(openvino["GFLOPs"], 100.0 * 0.1 / 0.0999)
        self.assertEqual((openvino["seconds"], openvino["max_abs_error"]), (0.0999, 1.2e-7))
        self.assertEqual(made["prefill/D:128/H:8/T:512/full/threads:1/openvino_bf16"]["seconds"], 0.05)
        gqa = made["decode/D:128/Hq:32/Hkv:8/Tk:4096/threads:1/cache:cold/onnxruntime_gqa"]
        self.assertAlmostEqual(gqa["bytes_per_second"], 6.4e10 * 1.0 / 0.8)
        self.assertEqual(len(made), len(self.rows()) + 3)

    def test_goals_take_the_ratio_of_the_row_that_timed_both(self):
        goals = goal_rows({"attention.json": ({"caches": CACHES}, self.rows())})

        def goal(start):
            return next(value for text, value in goals.items() if text.startswith(start))

        self.assertEqual(goal("fp32 prefill faster than"),
                         ("1.05 × over 1 rows; closest: D 128 T 512 full 1t ÷ OpenVINO f32 1.05", "met"))
        measured, verdict = goal("bf16 prefill ≥ 1.3")
        self.assertEqual(verdict, "**not met** (0 of 1)")
        self.assertIn("÷ OpenVINO bf16 1.29", measured)
        measured, verdict = goal("bf16 GQA decode")
        self.assertEqual(verdict, "**not met** (0 of 1)")
        self.assertIn("÷ ORT GroupQueryAttention 0.95", measured)
        self.assertEqual(goal("fp32 decode faster than")[1], "met")

    def test_the_tables_say_how_the_engines_were_timed(self):
        def note(runs):
            with tempfile.TemporaryDirectory() as folder:
                path = pathlib.Path(folder) / "attention.json"
                path.write_text(json.dumps({"context": {}, "benchmarks": runs}))
                rows = attention_table.load([str(path)])
            return "".join(attention_table.prefill_tables(rows, []) + attention_table.decode_table(rows, []))

        between = note(self.rows())
        self.assertEqual(between.count("timed in the same iterations as ctein's calls"), 2)  # prefill, decode
        self.assertIn("(a warm row: just before its calls", between)
        apart = note([prefill("ctein", 128, 512, "full", 1, GFLOPs=100.0, seconds=0.1),
                      prefill("openvino_f32", 128, 512, "full", 1, seconds=0.12)])
        self.assertIn("timed apart in the same make bench", apart)
        self.assertNotIn("same iterations", apart)

    def test_an_engine_the_server_left_out_says_why(self):
        rows = [r for r in self.rows() if "bf16" not in r["name"] and "f16" not in r["name"]]
        context = {"caches": CACHES, "left_out_openvino_bf16": "no native bf16 here"}
        goals = goal_rows({"attention.json": (context, rows)})
        self.assertEqual(next(v for g, v in goals.items() if g.startswith("bf16 prefill ≥ 1.3")),
                         ("no OpenVINO bf16 rows: no native bf16 here", "not measured"))


class BadInput(unittest.TestCase):
    def test_an_empty_file_stops_with_a_message(self):
        with tempfile.NamedTemporaryFile(suffix=".json") as empty:
            with self.assertRaises(SystemExit) as stopped:
                attention_goals.goals_of([empty.name])
        self.assertIn("did the filter match no row?", str(stopped.exception))


if __name__ == "__main__":
    unittest.main()
