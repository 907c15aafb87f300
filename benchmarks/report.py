#!/usr/bin/env python3
"""make bench-report: runs the attention and rearrange benchmarks (Google Benchmark JSON),
measures compile times, and renders the plots and tables of docs/benchmarks.md.

    python3 benchmarks/report.py BUILD_DIR [--plots docs/benchmarks] [--steps benchmarks,compile,plots]
                                           [--without torch113]

Progress: each benchmark prints its rows on the terminal as they finish (the attention run takes
several minutes); compile times are printed one file at a time. Results go to BUILD_DIR/results/
(JSON, and report.md with the tables); the PNG plots to --plots. --steps plots renders from the
JSON of an earlier run. Debian's python3 with python3-matplotlib; nothing else.
"""

import argparse
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import time
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import attention_goals  # noqa: E402 (beside this file)
import attention_table  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_benchmark(binary, out, extra=(), env=None):
    """Runs one Google Benchmark binary, its console rows streaming to the terminal."""
    print(f"== {binary.name}", flush=True)
    command = [str(binary), f"--benchmark_out={out}", "--benchmark_out_format=json", *extra]
    subprocess.run(command, check=True, env=env)


def rows_of(path):
    """{name: run} of a Google Benchmark JSON file (iteration runs only)."""
    with open(path) as f:
        runs = attention_table.with_engine_rows(json.load(f)["benchmarks"])
    return {r["name"]: r for r in runs if r.get("run_type", "iteration") == "iteration" and not r.get("error_occurred")}


def medians_of(path):
    """{run name: median run} of a file written with repetitions (ReportAggregatesOnly)."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    return {r["run_name"]: r for r in runs if r.get("aggregate_name") == "median" and not r.get("error_occurred")}


def fields_of(name):
    """'prefill/D:64/H:12/T:512/causal/threads:1/ctein' -> ({'D': '64', ..., 'mask': 'causal'}, 'ctein')."""
    parts = [p for p in name.split("/") if not p.startswith(("iterations:", "min_time:", "manual_time"))]
    fields = {}
    for part in parts[1:-1]:
        key, _, value = part.partition(":")
        fields[key if value else "mask"] = value if value else key
    return fields, parts[-1]


# --- compile times -------------------------------------------------------------------------------

def compile_flags():
    """The flags every ctein program needs (the package's usage requirements)."""
    return ["-std=c++20", "-DXTENSOR_USE_XSIMD", "-I" + str(ROOT / "include")]


def timed_compile(source, flags, defines=()):
    """(seconds, peak MiB) of one g++ compile of `source` to an object file (wall clock, max RSS)."""
    command = ["g++", *compile_flags(), *flags, *defines, "-c", str(source), "-o", os.devnull]
    start = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"compile failed: {' '.join(command)}")
    return seconds, usage.ru_maxrss / 1024.0


def measure_compile_times(results):
    """Each example at -O2 as the project builds it (the attention kernel linked from its one
    compiled instance), the kernel itself at -O2 and at -O3 -march=native, and a one-pattern file."""
    one_pattern = results / "one_pattern.cpp"
    one_pattern.write_text('#include <ctein/ctein.hpp>\nctein::tensor<float, "b s c", 2, 16, 512> x;\n'
                           'int main() { return static_cast<int>(ctein::eval(ctein::rearrange<"b s (h d) -> b h s d">'
                           '(x, ctein::len<"h=8">)).size() == 0); }\n')
    sources = sorted((ROOT / "examples").glob("*.cpp")) + sorted((ROOT / "examples/seeds").glob("*.cpp"))
    sources.append(ROOT / "examples/quick_start/main.cpp")
    native = ["-march=native"]
    # what examples/CMakeLists.txt adds: the benchmarks' timing headers, the seeds' data folder
    example_extras = ["-I" + str(ROOT / "benchmarks"), '-DCTEIN_SEED_DATA=""']
    entries = [(s.relative_to(ROOT).as_posix(), s, ["-O2", *native], example_extras) for s in sources]
    # the whole kernel in one file: the tests build it in two (CTEIN_ATTENTION_INSTANCES adds the
    # 16-bit decode steps to the head sizes' file)
    kernel, whole = ROOT / "tests/support/attention_instances.cpp", ["-DCTEIN_ATTENTION_INSTANCES"]
    entries += [("attention kernel (attention_instances.cpp) -O2", kernel, ["-O2", *native], whole),
                ("attention kernel (attention_instances.cpp) -O3", kernel, ["-O3", *native], whole),
                ("one pattern (rearrange + eval)", one_pattern, ["-O2", *native], [])]
    out = []
    for label, source, flags, extra in entries:
        seconds, mib = timed_compile(source, flags + extra)
        print(f"   {label:52s} {seconds:6.1f} s {mib:7.0f} MiB", flush=True)
        out.append({"file": label, "flags": " ".join(flags), "seconds": seconds, "peak_MiB": mib})
    return out


# --- machine -------------------------------------------------------------------------------------

def machine_of(results):
    """The report's machine line, from what ctein_bench_attention recorded in its JSON (the CPU,
    its caches and vector extensions: attention_table.machine_line) and its load at the start."""
    context = attention_table.context_of(str(results / "attention.json"))
    load = context.get("load_avg", [float("nan")])[0]
    return (f"Machine: {attention_table.machine_line(context) or 'not recorded in attention.json'}; "
            f"load average at the start {load:.2f}.")


# --- plots ---------------------------------------------------------------------------------------

def merged_legend(axes, **options):
    """One legend, on the last panel, naming every line of every panel once (the naive loop is
    in the 1-thread panels only, memcpy in some of rearrange's)."""
    legend = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    axes[-1].legend(legend.values(), legend.keys(), fontsize=7, **options)


def save(fig, path):
    """Writes the figure as a PNG and closes it; returns the path."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


PEER_STYLE = {"ctein": ("C0", "ctein"), "formula": ("C1", "ctein formula"), "torch2": ("C3", "PyTorch {v} SDPA"),
              "torch1": ("C2", "PyTorch {v} (matmul, softmax, matmul)"), "naive": ("C7", "naive loops"),
              "onnxruntime_mha": ("C4", "ORT MultiHeadAttention"), "onnxruntime_attn": ("C9", "ORT Attention"),
              "onnxruntime_gqa": ("C4", "ORT GroupQueryAttention"), "openvino_f32": ("C8", "OpenVINO f32"),
              "openvino_bf16": ("C6", "OpenVINO bf16"), "ctein_bf16": ("C2", "ctein bf16 q, k, v"),
              "ctein_f16": ("C5", "ctein f16 q, k, v")}
ENGINES = ("onnxruntime_mha", "onnxruntime_attn", "onnxruntime_gqa", "openvino_f32", "openvino_bf16")


def peer_key(name):
    if name.startswith("torch2"):
        return "torch2"
    if name.startswith("torch1"):
        return "torch1"
    return name


def prefill_series(files):
    """{(D, threads): {(entry, mask): {T: GFLOP/s}}}, peak {(D, threads): max GFLOP/s}, versions.
    Peers timed inside ctein's row (vs_NAME) are taken from there: GFLOP/s = ctein's / ratio."""
    series = defaultdict(lambda: defaultdict(dict))
    ratios = defaultdict(lambda: defaultdict(dict))  # same-run ctein / peer speed-ups
    peaks = defaultdict(float)
    versions = {}
    for index, rows in enumerate(files):  # ctein's own line from the first file; peers from each
        for name, run in rows.items():
            if not name.startswith("prefill/"):
                continue
            fields, entry = fields_of(name)
            key = (int(fields["D"]), int(fields["threads"]))
            t = int(fields["T"])
            if "GFLOPs" not in run:
                continue
            peaks[key] = max(peaks[key], run.get("peak_GFLOPs", 0.0))
            if entry == "ctein":
                if index == 0:
                    series[key][("ctein", fields["mask"])][t] = run["GFLOPs"]
                for counter, ratio in run.items():
                    # the GEMM's products alone do other work than attention's: no line of their own
                    if counter.startswith("vs_") and not counter.endswith("_products") and ratio > 0:
                        peer = counter[3:]
                        versions[peer_key(peer)] = peer.replace("torch", "")
                        series[key][(peer_key(peer), fields["mask"])][t] = run["GFLOPs"] / ratio
                        ratios[key][(peer_key(peer), fields["mask"])][t] = ratio
            elif entry == "formula":
                series[key][("formula", fields["mask"])][t] = run["GFLOPs"]
            elif entry in ("ctein_bf16", "ctein_f16") and index == 0:
                series[key][(entry, fields["mask"])][t] = run["GFLOPs"]
            elif entry in ENGINES:  # timed between ctein's calls (attention_table.with_engine_rows)
                series[key][(entry, fields["mask"])][t] = run["GFLOPs"]
    return series, peaks, versions, ratios


def plot_prefill(files, plots):
    series, peaks, versions, _ = prefill_series(files)
    keys = sorted(series)
    if not keys:
        return None
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 4.2), sharey=False)
    axes = axes if len(keys) > 1 else [axes]
    for ax, key in zip(axes, keys):
        d, threads = key
        for (entry, mask), points in sorted(series[key].items()):
            color, label = PEER_STYLE.get(entry, ("C5", entry))
            label = label.format(v=versions.get(entry, "")) + (" causal" if mask == "causal" else "")
            ts = sorted(points)
            ax.plot(ts, [points[t] for t in ts], color=color, linestyle="--" if mask == "causal" else "-",
                    marker="o", markersize=3, label=label)
        ax.axhline(peaks[key], color="k", linewidth=1, linestyle=":", label="FMA peak (same run)")
        ax.set_title(f"D = {d}, {threads} thread{'s' if threads > 1 else ''}")
        ax.set_xscale("log", base=2)
        all_ts = sorted({t for points in series[key].values() for t in points})
        ax.set_xticks(all_ts)
        ax.set_xticklabels([str(t) for t in all_ts])
        ax.set_xlabel("sequence length T")
        top = max([peaks[key]] + [v for points in series[key].values() for v in points.values()])
        ax.set_ylim(0, top * 1.08)  # bf16 rows may pass the fp32 FMA peak
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("GFLOP/s")
    merged_legend(axes, loc="lower right")
    fig.suptitle("Attention prefill (B = 1, H = 12 at D = 64, H = 8 at D = 128)")
    return save(fig, plots / "attention_prefill.png")


def plot_decode(files, plots):
    """Decode GB/s of K and V read, ctein and PyTorch, against memcpy of the same bytes."""
    groups = defaultdict(lambda: defaultdict(dict))
    for rows in files:
        for name, run in rows.items():
            if not name.startswith("decode/"):
                continue
            fields, entry = fields_of(name)
            if entry not in ("ctein",) + ENGINES or "bytes_per_second" not in run:
                continue
            label = f"{fields['Hq']}:{fields['Hkv']}×{fields['D']}, {fields['threads']} thr, {fields.get('cache', '')}"
            tk = int(fields["Tk"])
            gbps = run["bytes_per_second"] / 1e9
            groups[label][entry][tk] = gbps
            if entry != "ctein":
                continue
            for counter, ratio in run.items():
                if counter.startswith("vs_") and ratio > 0:
                    groups[label][counter[3:]][tk] = gbps / ratio
    if not groups:
        return None
    labels = sorted(groups)
    fig, ax = plt.subplots(figsize=(14, 5.6))
    width = 0.8 / max(1, max(len(v) for v in groups.values()))
    positions = []
    for g, label in enumerate(labels):
        for e, (entry, points) in enumerate(sorted(groups[label].items(), key=lambda kv: kv[0] != "memcpy")):
            for k, tk in enumerate(sorted(points)):
                x = g * 2 + k
                positions.append((x, f"{label}, Tk {tk}"))
                color = {"memcpy": "k", "ctein": "C0"}.get(entry, PEER_STYLE.get(entry, ("C3",))[0])
                name = {"memcpy": "memcpy of the same bytes", "ctein": "ctein"}.get(
                    entry, PEER_STYLE[entry][1] if entry in ENGINES else f"PyTorch {entry[5:]} SDPA")
                ax.bar(x + (e - (len(groups[label]) - 1) / 2) * width, points[tk], width, color=color,
                       label=name if (g, k) == (0, 0) else None, alpha=0.85 if entry != "memcpy" else 0.35)
    ticks = sorted(set(positions))
    ax.set_xticks([p for p, _ in ticks])
    ax.set_xticklabels([t for _, t in ticks], fontsize=7, rotation=35, ha="right")
    ax.set_ylabel("GB/s of K and V read")
    ax.set_title("Decode: one query over a KV cache, against memcpy of the same bytes (same run)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return save(fig, plots / "attention_decode.png")


def plot_rearrange(rows, plots):
    """Head split and merge GB/s (read + written) against memcpy and a streaming copy, by tensor size."""
    series = defaultdict(lambda: defaultdict(dict))
    for name, run in rows.items():  # "head_split/ctein/B:2/repeats:5/real_time"
        parts = name.split("/")
        if len(parts) < 3 or "bytes_per_second" not in run or not parts[2].startswith("B:"):
            continue
        operation, entry, batch = parts[0], parts[1], int(parts[2][2:])
        series[operation][entry][batch] = run["bytes_per_second"] / 1e9
    if not series:
        return None
    operations = sorted(series)
    fig, axes = plt.subplots(1, len(operations), figsize=(4.2 * len(operations), 4), sharey=True)
    axes = axes if len(operations) > 1 else [axes]
    colors = {"ctein": "C0", "memcpy": "k", "stream_copy": "C1", "xtensor": "C2", "naive": "C7"}
    for ax, operation in zip(axes, operations):
        for entry, points in sorted(series[operation].items()):
            xs = sorted(points)
            ax.plot(xs, [points[x] for x in xs], marker="o", markersize=3, color=colors.get(entry, "C5"),
                    linestyle=":" if entry in ("memcpy", "stream_copy") else "-", label=entry)
        ax.set_xscale("log", base=2)
        batches = sorted({b for points in series[operation].values() for b in points})
        ax.set_xticks(batches)
        ax.set_xticklabels([str(b) for b in batches])
        ax.set_title(operation.replace("_", " "))
        ax.set_xlabel("batch B of B x 2048 x 768 floats (6 MiB each)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("GB/s (bytes read + written)")
    merged_legend(axes, loc="upper right")
    return save(fig, plots / "rearrange.png")


def plot_compile_times(entries, plots):
    if not entries:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(entries) + 1.2))
    labels = [e["file"] for e in entries]
    ax.barh(range(len(entries)), [e["seconds"] for e in entries], color="C0")
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(10, color="C3", linestyle=":", label="goal: 10 s per example")
    ax.set_xlabel("seconds (g++ 12, one core)")
    ax.legend(fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return save(fig, plots / "compile_times.png")


# --- tables --------------------------------------------------------------------------------------

def tables(files, rearrange_rows, compile_times, machine):
    out = [machine, ""]
    series, peaks, versions, same_run = prefill_series(files)
    out += ["| D | threads | T | mask | ctein GFLOP/s | % of peak | " +
            " | ".join("ctein ÷ " + PEER_STYLE.get(p, ("", p))[1].format(v=versions[p]) for p in sorted(versions)) + " |",
            "|---|---|---|---|---|---|" + "---|" * len(versions)]
    for key in sorted(series):
        d, threads = key
        for mask in ("full", "causal"):
            points = series[key].get(("ctein", mask), {})
            for t in sorted(points):
                ratios = []
                for p in sorted(versions):
                    ratio = same_run[key].get((p, mask), {}).get(t)
                    ratios.append(f"{ratio:.2f}x" if ratio else "—")
                out.append(f"| {d} | {threads} | {t} | {mask} | {points[t]:.1f} | "
                           f"{100 * points[t] / peaks[key]:.0f} % | " + " | ".join(ratios) + " |")
    out += ["", "FMA peak in the same run: " + ", ".join(f"{peaks[k]:.1f} GFLOP/s (D {k[0]}, {k[1]} thr)"
                                                        for k in sorted(peaks)), ""]
    out += ["| rearrange | B | ctein GB/s | ÷ memcpy (same run) | ÷ streaming copy (same run) |",
            "|---|---|---|---|---|"]
    for name, run in sorted(rearrange_rows.items()):
        parts = name.split("/")
        if len(parts) > 2 and parts[1] == "ctein" and "vs_memcpy" in run:
            stream = f"{run['vs_stream_copy']:.2f}" if "vs_stream_copy" in run else "—"
            out.append(f"| {parts[0]} | {parts[2][2:]} | {run['bytes_per_second'] / 1e9:.1f} | "
                       f"{run['vs_memcpy']:.2f} | {stream} |")
    out += ["", "| file | flags | seconds | peak MiB |", "|---|---|---|---|"]
    out += [f"| {e['file']} | `{e['flags']}` | {e['seconds']:.1f} | {e['peak_MiB']:.0f} |" for e in compile_times]
    return "\n".join(out) + "\n"


def engine_server(build):
    """The environment that has ctein_bench_attention time ONNX Runtime and OpenVINO between its
    own calls (engine_peers.py --serve); this process's own when no Python has the engines."""
    found = subprocess.run([str(ROOT / "tools/engine-python"), str(build)], capture_output=True, text=True)
    if found.returncode != 0:
        print("engine peers skipped: " + found.stderr.strip(), flush=True)
        return None
    command = shlex.join([found.stdout.strip(), str(ROOT / "benchmarks/engine_peers.py"), "--serve"])
    return {**os.environ, "CTEIN_ENGINE_PEERS": command}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", type=pathlib.Path)
    parser.add_argument("--plots", type=pathlib.Path, default=ROOT / "docs/benchmarks")
    parser.add_argument("--steps", default="benchmarks,compile,plots",
                        help="which of benchmarks, compile, plots to do (the others read the JSON of earlier runs)")
    parser.add_argument("--without", action="append", default=[],
                        help="leave out the peer binaries whose name contains this (e.g. torch113: Debian's "
                             "PyTorch 1.13 materialises the scores, and its T >= 2048 rows take minutes each)")
    args = parser.parse_args()
    steps = set(args.steps.split(","))
    results = args.build / "results"
    results.mkdir(parents=True, exist_ok=True)
    args.plots.mkdir(parents=True, exist_ok=True)
    binaries = args.build / "benchmarks"
    attention_files = []
    if "benchmarks" in steps:
        run_benchmark(binaries / "ctein_bench_rearrange", results / "rearrange.json")
        (results / "attention_engines.json").unlink(missing_ok=True)  # an older run's, timed apart
        run_benchmark(binaries / "ctein_bench_attention", results / "attention.json", env=engine_server(args.build))
        for peer in sorted(binaries.glob("ctein_bench_attention_torch*")):
            (results / f"{peer.name}.json").unlink(missing_ok=True)
            if os.access(peer, os.X_OK) and peer.is_file() and not any(w in peer.name for w in args.without):
                run_benchmark(peer, results / f"{peer.name}.json")
    if "compile" in steps:
        print("== compile times", flush=True)
        (results / "compile_times.json").write_text(json.dumps(measure_compile_times(results)))
    if "plots" not in steps:
        return 0
    for path in sorted(results.glob("attention*.json")) + sorted(results.glob("ctein_bench_attention_torch*.json")):
        attention_files.append(rows_of(path))
    rearrange_rows = medians_of(results / "rearrange.json")
    compile_times = json.loads((results / "compile_times.json").read_text())
    made = [plot_prefill(attention_files, args.plots), plot_decode(attention_files, args.plots),
            plot_rearrange(rearrange_rows, args.plots), plot_compile_times(compile_times, args.plots)]
    report = tables(attention_files, rearrange_rows, compile_times, machine_of(results))
    goal_files = sorted(results.glob("attention*.json")) + [results / "rearrange.json"]
    report += "\n" + attention_goals.goals_of([str(p) for p in goal_files]) + "\n"
    (results / "report.md").write_text(report)
    print(report)
    for path in made:
        if path:
            print(f"plot: {path}")


if __name__ == "__main__":
    sys.exit(main())
