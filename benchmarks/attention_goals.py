"""The engines goals, judged from one make bench: a Markdown table with one row per goal, the run's
figures for it (the range, and the rows that fall short) and its verdict.

    python3 benchmarks/attention_table.py build-bench/results/*.json   # prints it after the tables

Every figure is a ratio measured in the run itself (ctein against a peer timed beside it, against
the FMA loop or memcpy of the same process), as attention_table.py's columns. A goal with no rows
in the run (engines skipped, a CPU without a bf16 peer) says "not measured" and why, never "met".
"""

from attention_table import context_of, get, load, pretty, products_counter, speedup, table, torch_names


# Rows short of a goal named in its row, the farthest first.
SHOWN = 4


def span(values, digits=2):
    low, high = (f"{v:.{digits}f}" for v in (min(values), max(values)))
    return low if low == high else f"{low}–{high}"


def verdict(passed, total):
    return "met" if passed == total else f"**not met** ({passed} of {total})"


def judged(goal, figures, holds, unit="×", digits=2, why_missing="no rows in this run", extra=""):
    """A goal's row from (label, value) figures and the test each value must pass."""
    if not figures:
        return [goal, why_missing, "not measured"]
    values = [v for _, v in figures]
    short = sorted((value, label) for label, value in figures if not holds(value))
    measured = f"{span(values, digits)} {unit} over {len(values)} rows"
    if short:  # the farthest first, a few of them
        named = ", ".join(f"{label} {value:.{digits}f}" for value, label in short[:SHOWN])
        measured += f"; short: {named}" + (f" and {len(short) - SHOWN} more" if len(short) > SHOWN else "")
    else:
        value, label = min((value, label) for label, value in figures)
        measured += f"; closest: {label} {value:.{digits}f}"
    return [goal, measured + extra, verdict(len(values) - len(short), len(values))]


def prefill_label(config, peer=None):
    f = dict(config)
    text = f"D {f['D']} T {f['T']} {f['mask']} {f['threads']}t"
    return text if peer is None else f"{text} ÷ {peer}"


def decode_label(config, peer=None):
    f = dict(config)
    text = f"{f['Hq']}/{f['Hkv']}×{f['D']} Tk {f['Tk']} {f['threads']}t {f.get('cache', '')}".rstrip()
    return text if peer is None else f"{text} ÷ {peer}"


def products_beside(rows, torches, configs):
    """The same rows' two products alone on PyTorch's GEMM (no softmax), when the run timed them:
    the percent of peak the best GEMM reaches on them, beside the goal's floor."""
    for torch in torches:
        values = [v for c in configs if (v := get(rows, "prefill", c, "ctein", products_counter(torch)))]
        if values:
            return f"; the same rows' q·kᵀ and P·V alone on {pretty(torch)}'s GEMM: {span(values, 1)} %"
    return ""


def goals_table(rows, torches, left_out, caches):
    """The goals' table from attention_table's rows; `left_out` is {engine: reason} from the
    contexts (goals_of), `caches` Google Benchmark's list of the machine's caches."""

    def configs(section, entry, keep=lambda f: True):
        found = {c for (s, c, e) in rows if s == section and e == entry and keep(dict(c))}
        return sorted(found, key=lambda c: [(k, int(v) if v.isdigit() else v) for k, v in c])

    def present(section, entry):
        return any(s == section and e == entry for (s, _, e) in rows)

    def missing(engine, default):
        return f"no {pretty(engine)} rows: {left_out[engine]}" if engine in left_out else default

    def pairs(section, own, peers, keep, label):
        """(label, own's speed ÷ the peer's) for every row of `section` both ran."""
        found = []
        for c in configs(section, own, keep):
            for peer in peers:
                ratio = (get(rows, section, c, own, "vs_" + peer) if peer.startswith("torch")
                         else speedup(rows, section, c, peer, own))
                if ratio is not None:
                    found.append((label(c, pretty(peer)), ratio))
        return found

    out = []
    for goal, at, floor in (("fp32 prefill, 1 thread, ≥ 90 % of the FMA peak at T ≥ 2048", lambda t: t >= 2048, 90),
                            ("fp32 prefill, 1 thread, ≥ 85 % of the FMA peak at T = 512", lambda t: t == 512, 85)):
        one_thread = configs("prefill", "ctein", lambda f, at=at: f["threads"] == "1" and at(int(f["T"])))
        figures = [(prefill_label(c), get(rows, "prefill", c, "ctein", "pct_peak")) for c in one_thread]
        out.append(judged(goal, figures, lambda v, floor=floor: v >= floor, unit="%", digits=1,
                          extra=products_beside(rows, torches, one_thread)))

    engines_f32 = [e for e in ("onnxruntime_mha", "onnxruntime_attn", "openvino_f32") if present("prefill", e)]
    out.append(judged("fp32 prefill faster than ONNX Runtime and OpenVINO f32 on every row",
                      pairs("prefill", "ctein", engines_f32, lambda f: True, prefill_label), lambda v: v > 1.0,
                      why_missing="no ONNX Runtime or OpenVINO rows (no engine server: CTEIN_ENGINE_PEERS)"))

    scaling = []
    for c in configs("prefill", "ctein", lambda f: f["threads"] == "2"):
        one = tuple((k, "1" if k == "threads" else v) for k, v in c)
        two_rate, one_rate = (get(rows, "prefill", x, "ctein", "GFLOPs") for x in (c, one))
        if two_rate and one_rate:
            scaling.append((prefill_label(c), two_rate / one_rate))
    out.append(judged("fp32 prefill, 2 threads ≥ 1.9 × the 1-thread figure", scaling, lambda v: v >= 1.9))

    decode_peers = [e for e in (*torches[:1], "onnxruntime_gqa", "onnxruntime_attn", "openvino_f32")
                    if e.startswith("torch") or present("decode", e)]
    out.append(judged("fp32 decode faster than PyTorch, ONNX Runtime and OpenVINO, warm and cold",
                      pairs("decode", "ctein", decode_peers, lambda f: True, decode_label), lambda v: v > 1.0))
    cold = [(decode_label(c), get(rows, "decode", c, "ctein", "vs_memcpy"))
            for c in configs("decode", "ctein", lambda f: f.get("cache") == "cold")]
    out.append(judged("fp32 decode, cold caches, ≥ 0.8 × the memcpy of its K and V", cold, lambda v: v >= 0.8))

    out.append(judged("bf16 prefill ≥ 1.3 × OpenVINO bf16 on every row",
                      pairs("prefill", "ctein_bf16", ["openvino_bf16"], lambda f: True, prefill_label),
                      lambda v: v >= 1.3, why_missing=missing("openvino_bf16", "no OpenVINO bf16 rows")))

    for half, name in (("ctein_bf16", "bf16"), ("ctein_f16", "f16")):
        figures = [(decode_label(c), get(rows, "decode", c, half, "vs_memcpy")) for c in configs("decode", half)]
        long = [get(rows, "decode", c, half, "vs_ctein")
                for c in configs("decode", half, lambda f: int(f["Tk"]) >= 4096)]
        extra = f"; at Tk ≥ 4096 {span(long)} × the fp32 cache's speed" if long else ""
        out.append(judged(f"{name} KV cache decode ≥ 0.8 × the memcpy of its bytes", figures, lambda v: v >= 0.8,
                          extra=extra))
        gqa_peers = [e for e in ("onnxruntime_gqa", "openvino_f32", "openvino_bf16") if present("decode", e)]
        out.append(judged(f"{name} GQA decode (Hq 32, Hkv 8, D 128) faster than ONNX Runtime's "
                          "GroupQueryAttention and OpenVINO",
                          pairs("decode", half, gqa_peers, lambda f: f["Hq"] == "32" and f["Hkv"] == "8",
                                decode_label), lambda v: v > 1.0))

    # The head split's source and output together beyond the last-level cache.
    last_level = max(caches, key=lambda c: c["level"], default={"size": 0})["size"]
    split = [(f"B {dict(c)['B']}", get(rows, "head_split", c, "ctein", "vs_memcpy"))
             for c in configs("head_split", "ctein")
             if last_level and (get(rows, "head_split", c, "ctein", "bytes") or 0) > last_level]
    out.append(judged("rearrange: head split beyond the last-level cache ≥ 0.9 × memcpy", split, lambda v: v >= 0.9,
                      why_missing="no head_split rows beyond the last-level cache (ctein_bench_rearrange's JSON)"))

    return "Goals against this run\n\n" + table(["goal", "measured (ratios of this run)", ""], out)


def goals_of(paths, fastest=False):
    """The goals' table of the JSON files of one make bench (attention, engines, rearrange)."""
    rows = load(paths, fastest)
    contexts = [context_of(path) for path in paths]
    # engine_peers.py's own JSON says {"left_out": {engine: why}}; ctein_bench_attention, which
    # asked its server, says left_out_<engine>: why
    left_out = {engine: why for c in contexts for engine, why in c.get("left_out", {}).items()}
    left_out.update({key[len("left_out_"):]: why for c in contexts for key, why in c.items()
                     if key.startswith("left_out_")})
    caches = next((c["caches"] for c in contexts if c.get("caches")), [])
    return goals_table(rows, torch_names(rows), left_out, caches)
