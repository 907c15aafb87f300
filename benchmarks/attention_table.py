#!/usr/bin/env python3
"""Markdown tables for docs/benchmarks.md from ctein_bench_attention's JSON output.

    build-bench/benchmarks/ctein_bench_attention --benchmark_out=attention.json
    build-bench/benchmarks/ctein_bench_attention_torch113 --benchmark_out=attention_torch113.json
    python3 benchmarks/attention_table.py attention.json attention_torch113.json
    python3 benchmarks/attention_table.py --fastest run1/attention*.json run2/attention*.json

Each file's rows are read as the binary named them ("prefill/D:64/H:12/T:512/causal/threads:1/ctein"):
a ratio column comes from the ctein row of the file that also ran that peer, where the peer was
timed next to it (benchmarks/same_run.hpp). With --benchmark_repetitions, medians are used.
"""

import argparse
import json
import statistics
import sys
from collections import defaultdict

# Google Benchmark's own suffixes after the row's name.
RUN_SUFFIXES = ("iterations:", "repeats:", "min_time:", "manual_time", "real_time", "process_time")


def parse_name(name):
    """(section, {field: value}, entry) of a row name, or None for rows of another binary. The
    head split of ctein_bench_rearrange ("head_split/ctein/B:4") is read too, for its goal."""
    parts = [p for p in name.split("/") if not p.startswith(RUN_SUFFIXES)]
    if len(parts) == 3 and parts[0] == "head_split":
        return parts[0], dict([parts[2].split(":")]), parts[1]
    if len(parts) < 3 or parts[0] not in ("prefill", "decode", "memory"):
        return None
    fields = {}
    for part in parts[1:-1]:
        key, _, value = part.partition(":")
        fields[key if value else "mask"] = value if value else key
    return parts[0], fields, parts[-1]


def read_json(path):
    """A benchmark's JSON output; a clear exit for a file that is not one (Google Benchmark leaves
    the --benchmark_out file empty when its filter matches no row)."""
    with open(path) as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as error:
            sys.exit(f"{path}: not a benchmark's JSON output ({error}); an empty file: did the filter match no row?")


def with_engine_rows(runs):
    """`runs` and a run for each engine that ctein's rows timed between their own calls
    (bench_attention.cpp with CTEIN_ENGINE_PEERS: counters <engine>_seconds and
    <engine>_max_abs_error beside vs_<engine>), laid out as engine_peers.py's own rows; the first
    row that timed an engine on a shape gives its figures. A ratio still comes from the row that
    timed both (speedup)."""
    found = {}
    for run in runs:
        parts = [p for p in run.get("run_name", run["name"]).split("/") if not p.startswith(RUN_SUFFIXES)]
        for engine in ENGINES:
            seconds = run.get(engine + "_seconds")
            if not seconds or run.get("error_occurred"):
                continue
            name = "/".join(parts[:-1] + [engine])
            key = (name, run.get("aggregate_name"))
            if key in found:
                continue
            made = {"name": name, "run_name": name, "run_type": run.get("run_type", "iteration"),
                    "seconds": seconds, "max_abs_error": run.get(engine + "_max_abs_error")}
            if run.get("aggregate_name"):
                made["aggregate_name"] = run["aggregate_name"]
            for rate in ("GFLOPs", "bytes_per_second"):  # the same work as the row's, in the engine's time
                if run.get(rate) and run.get("seconds"):
                    made[rate] = run[rate] * run["seconds"] / seconds
            found[key] = made
    return runs + list(found.values())


def load_file(path):
    """{(section, config, entry): {counter: value, "label": text}} of one file."""
    runs = with_engine_rows(read_json(path)["benchmarks"])
    has_median = any(r.get("aggregate_name") == "median" for r in runs)
    samples = defaultdict(lambda: defaultdict(list))
    labels = {}
    for run in runs:
        if run.get("error_occurred"):
            continue
        if has_median and run.get("aggregate_name") != "median":
            continue
        if not has_median and run.get("run_type", "iteration") != "iteration":
            continue
        parsed = parse_name(run.get("run_name", run["name"]))
        if parsed is None:
            continue
        section, fields, entry = parsed
        key = (section, tuple(sorted(fields.items())), entry)
        for counter, value in run.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                samples[key][counter].append(float(value))
        if run.get("label"):
            labels[key] = run["label"]
    rows = {key: {c: statistics.median(v) for c, v in counters.items()} for key, counters in samples.items()}
    for key, label in labels.items():
        rows[key]["label"] = label
    return rows


def context_of(path):
    return read_json(path).get("context", {})


def machine_line(context):
    """The CPU, its cores, caches and vector extensions, as ctein_bench_attention recorded them."""
    if "cpu" not in context:
        return None
    caches = ", ".join(f"L{c['level']}{'d' if c['type'] == 'Data' else ''} {c['size'] // 1024} KiB"
                       for c in context.get("caches", []) if c["type"] != "Instruction")
    return (f"{context['cpu']}, {context.get('num_cpus', '?')} cores, {caches}; "
            f"{context.get('isa', '?')}")


def context_line(path):
    """When a file was run, with which torch, and how busy the machine was as it started."""
    context = context_of(path)
    name = context.get("executable", path).rsplit("/", 1)[-1]
    load_avg = " / ".join(f"{x:.1f}" for x in context.get("load_avg", []))
    torch = context.get("torch_version")
    return (f"`{name}`, {context.get('date', '?')}" + (f", PyTorch {torch}" if torch else "") +
            (f", load average at start {load_avg}" if load_avg else ""))


def load(paths, fastest=False):
    """The rows of every file. A row in several files (ctein's, run next to each torch) keeps the
    first file's counters and takes only the counters it lacks (that file's vs_<torch>) from the others.
    With `fastest` (files of repeated runs of the same binaries), a row keeps the counters of the
    file whose call was fastest ("seconds"), so each figure is the fastest call over every run."""
    rows = {}
    for path in paths:
        for key, counters in load_file(path).items():
            merged = rows.setdefault(key, {})
            faster = fastest and counters.get("seconds", float("inf")) < merged.get("seconds", float("inf"))
            for counter, value in counters.items():
                if faster:
                    merged[counter] = value
                else:
                    merged.setdefault(counter, value)
    return rows


def torch_names(rows):
    """The torch peers present, newest first ("torch2.15", "torch1.13")."""
    names = {entry for (_, _, entry) in rows if entry.startswith("torch")}
    return sorted(names, key=lambda n: [int(x) for x in n[len("torch"):].split(".") if x.isdigit()], reverse=True)


# The engines of engine_peers.py (ONNX Runtime and OpenVINO), in the tables' order.
ENGINES = {"onnxruntime_mha": "ORT MultiHeadAttention", "onnxruntime_attn": "ORT Attention (opset 23)",
           "onnxruntime_gqa": "ORT GroupQueryAttention", "openvino_f32": "OpenVINO f32",
           "openvino_bf16": "OpenVINO bf16"}


def engine_names(rows, section):
    """The engines that ran rows of `section`."""
    present = {entry for (s, _, entry) in rows if s == section}
    return [e for e in ENGINES if e in present]


def speedup(rows, section, config, peer, own="ctein"):
    """The peer's fastest call ÷ `own`'s (above 1: ctein is faster): the ratio `own`'s row timed
    between its calls (vs_<peer>) when it did, else that of the two rows' fastest calls, both
    from the same make bench (engine_peers.py run on its own)."""
    between = get(rows, section, config, own, "vs_" + peer)
    if between:
        return between
    mine, theirs = (get(rows, section, config, e, "seconds") for e in (own, peer))
    return theirs / mine if mine and theirs else None


HALVES = {"ctein_bf16": "bf16", "ctein_f16": "f16"}


def half_columns(rows, section):
    """ctein's 16-bit rows present in `section`."""
    present = {entry for (s, _, entry) in rows if s == section}
    return [h for h in HALVES if h in present]


def pretty(name):
    if name.startswith("torch"):
        return "PyTorch " + name[len("torch"):]
    return {"ctein_formula": "ctein formula", "naive": "naive loop", **ENGINES}.get(name, name)


def fmt(value, digits=2):
    return "–" if value is None else f"{value:.{digits}f}"


def table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


# bench_attention.cpp's torch_products: q·kᵀ and its product with v of one head on PyTorch's GEMM.
PRODUCTS_NOTE = ("\n\nThe GEMM column: attention's two products alone on PyTorch's GEMM (torch.mm, no "
                 "softmax), in blocks of 512 queries by 512 keys (q·kᵀ into a 1 MiB matrix, then that "
                 "matrix times v added to the outputs); one head timed and scaled to every head, all T² "
                 "products counted (causal rows too): what the best GEMM reaches on these products in "
                 "the same run.")


def engines_note(rows, section, configs, engines):
    """What the engine columns of `section`'s table are ratios of: figures timed between ctein's
    calls (bench_attention.cpp with an engine server), or two rows' fastest calls."""
    if not engines:
        return ""
    between = any(get(rows, section, c, own, "vs_" + e) for c in configs for e in engines
                  for own in ("ctein", *HALVES))
    if not between:
        return ("\n\nThe engine columns: ratios of the fastest calls of ctein's rows and engine_peers.py's, "
                "timed apart in the same make bench.")
    where = "in the same iterations as ctein's calls" + (
        " (a warm row: just before its calls, which the engines' would evict from the caches)"
        if section == "decode" else "")
    return (f"\n\nThe engine columns: ONNX Runtime and OpenVINO timed {where}, by engine_peers.py in a "
            "process of its own, each ratio of the fastest calls of the row that timed both" +
            (" (ctein fp32 ÷ OpenVINO bf16: the fp32 row's call and the bf16 row's OpenVINO call)."
             if section == "prefill" else "."))


def products_counter(torch):
    """The counter of a ctein prefill row that holds `torch`'s GEMM products' percent of peak."""
    return f"pct_peak_{torch}_products"


def get(rows, section, config, entry, counter):
    row = rows.get((section, config, entry))
    return None if row is None else row.get(counter)


def prefill_tables(rows, torches):
    configs = sorted({c for (s, c, _) in rows if s == "prefill"},
                     key=lambda c: (int(dict(c)["D"]), int(dict(c)["T"]), dict(c)["mask"] != "full",
                                    int(dict(c)["threads"])))
    out = []
    for head_size in sorted({int(dict(c)["D"]) for c in configs}):
        group = [c for c in configs if int(dict(c)["D"]) == head_size]
        heads = dict(group[0])["H"]
        first_calls = any(get(rows, "prefill", c, "ctein", "first_call_seconds") for c in group)
        header = ["T", "mask", "threads", "FMA peak GFLOP/s", "ctein GFLOP/s", "ctein % peak"]
        if first_calls:  # bench_attention.cpp's calls_after_first
            header += ["ctein % peak, first call after the peak loop"]
        header += ["ctein ÷ its 1-thread GFLOP/s", "formula speed ÷ attention's"]
        for t in torches:
            header += [f"{pretty(t)} % peak", f"ctein speed ÷ {pretty(t)}'s"]
        products = [t for t in torches if any(get(rows, "prefill", c, "ctein", products_counter(t)) for c in group)]
        header += [f"{pretty(t)} GEMM, the two products alone, % peak" for t in products]
        header += ["naive % peak", "ctein speed ÷ naive's"]
        engines = engine_names(rows, "prefill")
        header += [f"ctein speed ÷ {pretty(e)}'s" for e in engines]
        halves = half_columns(rows, "prefill")
        bf16_bound = any(get(rows, "prefill", c, "ctein_bf16", "pct_bf16_peak") for c in group)
        for h in halves:
            header += [f"ctein {HALVES[h]} % peak"] + [f"ctein {HALVES[h]} ÷ {pretty(e)}" for e in engines
                                                       if e.endswith("bf16")]
            if h == "ctein_bf16" and bf16_bound:
                header += ["ctein bf16 % of its products' peak (AMX, else vdpbf16ps)"]
        body = []
        for c in group:
            f = dict(c)
            peak = get(rows, "prefill", c, "ctein", "peak_GFLOPs")
            if peak is None and torches:
                peak = get(rows, "prefill", c, torches[0], "peak_GFLOPs")
            gflops = get(rows, "prefill", c, "ctein", "GFLOPs")
            one_thread = get(rows, "prefill", tuple((k, "1" if k == "threads" else v) for k, v in c), "ctein",
                             "GFLOPs")
            scaling = gflops / one_thread if f["threads"] != "1" and gflops and one_thread else None
            pct = get(rows, "prefill", c, "ctein", "pct_peak")
            line = [f["T"], f["mask"], f["threads"], fmt(peak, 0), fmt(gflops, 1), fmt(pct, 0)]
            if first_calls:
                first = get(rows, "prefill", c, "ctein", "first_call_seconds")
                seconds = get(rows, "prefill", c, "ctein", "seconds")
                line += [fmt(pct * seconds / first if pct and seconds and first else None, 0)]
            line += [fmt(scaling), fmt(get(rows, "prefill", c, "ctein_formula", "vs_ctein"))]
            for t in torches:
                line += [fmt(get(rows, "prefill", c, t, "pct_peak"), 0),
                         fmt(get(rows, "prefill", c, "ctein", "vs_" + t))]
            line += [fmt(get(rows, "prefill", c, "ctein", products_counter(t)), 0) for t in products]
            line += [fmt(get(rows, "prefill", c, "naive", "pct_peak"), 1),
                     fmt(get(rows, "prefill", c, "ctein", "vs_naive"), 0)]
            line += [fmt(speedup(rows, "prefill", c, e)) for e in engines]
            for h in halves:
                line += [fmt(get(rows, "prefill", c, h, "pct_peak"), 0)] + [
                    fmt(speedup(rows, "prefill", c, e, h)) for e in engines if e.endswith("bf16")]
                if h == "ctein_bf16" and bf16_bound:
                    line += [fmt(get(rows, "prefill", c, h, "pct_bf16_peak"), 0)]
            body.append(line)
        samples = sorted({(int(dict(c)["T"]), rows[("prefill", c, "naive")]["label"]) for c in group
                          if "label" in rows.get(("prefill", c, "naive"), {})})
        note = "; ".join(f"T = {t}: {label}" for t, label in samples)
        out.append(f"Prefill, B = 1, H = {heads}, D = {head_size} (fp32)\n\n" + table(header, body) +
                   (f"\n\nThe naive loop is timed on a sample ({note})." if note else "") +
                   (PRODUCTS_NOTE if products else "") + engines_note(rows, "prefill", group, engines))
    return out


def decode_table(rows, torches):
    configs = sorted({c for (s, c, _) in rows if s == "decode"},
                     key=lambda c: (int(dict(c)["Hq"]), int(dict(c)["Tk"]), int(dict(c)["threads"]),
                                    dict(c).get("cache", "") != "warm"))
    if not configs:
        return []
    gib = 1024.0 ** 3
    header = ["heads (q / kv) × D", "Tk", "threads", "cache", "K + V MiB", "memcpy GiB/s", "ctein GiB/s",
              "ctein ÷ memcpy", "formula ÷ memcpy"]
    engines = engine_names(rows, "decode")
    for t in torches:
        header += [f"{pretty(t)} GiB/s", f"{pretty(t)} ÷ memcpy", f"ctein speed ÷ {pretty(t)}'s"]
    header += [f"ctein speed ÷ {pretty(e)}'s" for e in engines]
    halves = half_columns(rows, "decode")
    for h in halves:
        header += [f"{HALVES[h]} cache ÷ memcpy of its bytes", f"{HALVES[h]} speed ÷ fp32's"]
        header += [f"{HALVES[h]} speed ÷ {pretty(e)}'s" for e in engines if e != "onnxruntime_attn"]
    body = []
    for c in configs:
        f = dict(c)
        kv_mib = 2 * int(f["Hkv"]) * int(f["Tk"]) * int(f["D"]) * 4 / 1024.0 ** 2

        def rate(entry):
            value = get(rows, "decode", c, entry, "bytes_per_second")
            return None if value is None else value / gib

        line = [f"{f['Hq']} / {f['Hkv']} × {f['D']}", f["Tk"], f["threads"], f.get("cache", "–"), fmt(kv_mib, 1),
                fmt(rate("memcpy"), 1),
                fmt(rate("ctein"), 1), fmt(get(rows, "decode", c, "ctein", "vs_memcpy")),
                fmt(get(rows, "decode", c, "ctein_formula", "vs_memcpy"))]
        for t in torches:
            line += [fmt(rate(t), 1), fmt(get(rows, "decode", c, t, "vs_memcpy")),
                     fmt(get(rows, "decode", c, "ctein", "vs_" + t))]
        line += [fmt(speedup(rows, "decode", c, e)) for e in engines]
        for h in halves:
            line += [fmt(get(rows, "decode", c, h, "vs_memcpy")), fmt(get(rows, "decode", c, h, "vs_ctein"))]
            line += [fmt(speedup(rows, "decode", c, e, h)) for e in engines if e != "onnxruntime_attn"]
        body.append(line)
    return ["Decode: one query against a KV cache (fp32, B = 1); bytes counted: K and V, read once\n\n" +
            table(header, body) + engines_note(rows, "decode", configs, engines)]


def memory_table(rows, torches):
    entries = ["ctein", "ctein_formula"] + torches
    found = [(c, e) for (s, c, e) in rows if s == "memory"]
    if not found:
        return []
    config = found[0][0]
    f = dict(config)
    header = ["", "MiB beyond q, k, v, out", "q + k + v + out MiB", "÷ one T × T score matrix"]
    body = []
    for e in entries:
        extra = get(rows, "memory", config, e, "extra_MiB")
        if extra is None:
            continue
        io = get(rows, "memory", config, e, "io_MiB")
        scores = get(rows, "memory", config, e, "scores_MiB")
        body.append([pretty(e), fmt(extra, 1), fmt(io, 0), fmt(extra / scores, 3)])
    return [f"Peak resident memory (VmHWM) added by one call, T = {f['T']}, H = {f['H']}, D = {f['D']}, "
            f"{f['threads']} threads\n\n" + table(header, body)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="--benchmark_out files of ctein_bench_attention*")
    parser.add_argument("--fastest", action="store_true",
                        help="the files are repeated runs: each row from the run of its fastest call")
    args = parser.parse_args()
    rows = load(args.json, args.fastest)
    if not rows:
        sys.exit("no attention rows in " + ", ".join(args.json))
    torches = torch_names(rows)
    runs = "Measured by " + "; ".join(context_line(path) for path in args.json) + "."
    machines = sorted({machine_line(context_of(path)) for path in args.json} - {None})
    runs += "".join(f"\n\nMachine: {m}." for m in machines)  # two lines: files of two machines
    import attention_goals  # here: it reads this module's helpers

    print("\n\n".join([runs] + prefill_tables(rows, torches) + decode_table(rows, torches) +
                         memory_table(rows, torches) + [attention_goals.goals_of(args.json, args.fastest)]))


if __name__ == "__main__":
    main()
