#!/usr/bin/env python3
"""ONNX Runtime and OpenVINO as peers of ctein's attention rows, timed in the same `make bench`.

    python3 benchmarks/engine_peers.py --out build-bench/results/engines.json [--quick]
    CTEIN_ENGINE_PEERS="python3 benchmarks/engine_peers.py --serve" build-bench/benchmarks/ctein_bench_attention

The second form is what `make bench` runs: ctein_bench_attention starts this script as a server
and asks it, between its own calls, to time the engines on the same shapes (--serve below), so
that every ratio to an engine is of two figures from the same seconds of the machine.

Runs the shapes of bench_attention.cpp (prefill: B 1, H 12 × D 64 and H 8 × D 128, T 512..4096,
full and causal, 1 and 2 threads; decode: one query over 512 and 4096 cached tokens, H 12:12 × 64
and 32:8 × 128, warm and cold) through:

  onnxruntime_mha   com.microsoft MultiHeadAttention (prefill)
  onnxruntime_gqa   com.microsoft GroupQueryAttention (decode, past and present sharing one buffer)
  onnxruntime_attn  the opset-23 Attention op (prefill and decode)
  openvino_f32      opset-13 scaled_dot_product_attention, INFERENCE_PRECISION_HINT f32
  openvino_bf16     the same with INFERENCE_PRECISION_HINT bf16, where OpenVINO runs bf16 natively

Each engine gets intra-op threads equal to the row's count. Before timing, every output is checked
against PyTorch's attention in fp64 on the same inputs; the largest error is kept
in the row (`max_abs_error`), and an fp32 path further than 1e-4·max|ref| + 1e-5 fails the run.
Rows are written in Google Benchmark's JSON layout under the names ctein's binary uses
("prefill/D:64/H:12/T:512/full/threads:1/openvino_f32"), with `seconds` (fastest call), so that
attention_table.py can put them beside ctein's. An engine that is not installed is skipped with a
message.

--serve reads one request a line on stdin and answers one line on stdout (anything the engines
print goes to stderr): "ok", then tab-separated name=value fields; "error <why>" (the row is
skipped) or "mismatch <why>" (an fp32 engine differs from PyTorch: the run stops).

  hello                                       ok onnxruntime_version=<v> ... left_out_<engine>=<why>
  open SECTION HQ HKV D TQ TK CAUSAL THREADS CACHE ENGINES
                                              builds the row's inputs, PyTorch's reference and each
                                              of the comma-separated ENGINES that runs here, checks
                                              each: ok <engine>=<max |error|> for each
  burst ENGINE AFTER                          one call, then AFTER calls back to back:
                                              ok first=<s> back_to_back=<s> (the fastest of AFTER)
  fastest ENGINE                              ok seconds=<s>, as fastest() below

CACHE is warm or cold (cold rotates through copies of K and V worth COLD_BYTES); the last row's
inputs and engines are kept until a row of another shape is opened.
"""

import argparse
import datetime
import functools
import itertools
import json
import os
import platform
import sys
import time

import numpy as np

# Cold decode rows rotate through copies of K and V worth at least this: three times the 32 MiB L3
# of each of two core complexes (a 2-thread call whose threads ran on two complexes found part of a
# 96 MiB rotation in their caches: 44 GiB/s in one run, 28 in the next). ctein's binary rotates
# through at least as much (bench_attention.cpp, cold_bytes); every copy here is a session or a
# compiled model of its own, so this one stays at the floor.
COLD_BYTES = 192 << 20

# Engines left out of this run, with the reason: written into the JSON's context, where
# attention_goals.py reads why a goal has no peer.
LEFT_OUT = {}


def fastest(call, budget=0.5, least=3, most=21):
    """The fastest of a few calls after a first one, as bench_attention.cpp's fastest_seconds."""
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    runs = int(min(max(budget / max(first, 1e-9), least), most))
    best = first
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def uniform(rng, shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def reference(q, k, v, causal_offset):
    """softmax(q·kᵀ/√D + causal)·v in fp64 by PyTorch (matmul, softmax, matmul: any version);
    q [B, Hq, Tq, D], k, v [B, Hkv, Tk, D]. One query head at a time: at T = 4096 all twelve
    heads' fp64 scores together would hold 1.6 GB while ctein's benchmark runs beside this."""
    import torch
    qt, kt, vt = (torch.from_numpy(x).double() for x in (q, k, v))
    group = q.shape[1] // k.shape[1]
    tq, tk = q.shape[2], k.shape[2]
    hidden = None
    if causal_offset is not None:
        hidden = torch.arange(tk)[None, :] > torch.arange(tq)[:, None] + causal_offset
    out = torch.empty_like(qt)
    for h in range(q.shape[1]):
        scores = qt[:, h] @ kt[:, h // group].transpose(-2, -1) / q.shape[3] ** 0.5
        if hidden is not None:
            scores = scores.masked_fill(hidden, float("-inf"))
        out[:, h] = torch.softmax(scores, -1) @ vt[:, h // group]
    return out.numpy()


class Mismatch(Exception):
    """An fp32 engine whose output differs from PyTorch's beyond the fp32 bound."""


def check(name, out, ref, tolerance):
    error = float(np.max(np.abs(out.astype(np.float64) - ref)))
    bound = 1e-4 * float(np.max(np.abs(ref))) + 1e-5 if tolerance == "fp32" else None
    if bound is not None and not error <= bound:
        raise Mismatch(f"engine_peers: {name} differs from PyTorch by {error:.3g} (bound {bound:.3g})")
    return error


# ONNX Runtime ----------------------------------------------------------------------------------

def ort_session(model, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.add_session_config_entry("session.intra_op.allow_spinning", "1")
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def onnx_model(node, inputs, outputs, opset=23, ms_opset=1):
    from onnx import helper
    graph = helper.make_graph([node], "attention", inputs, outputs)
    imports = [helper.make_opsetid("", opset), helper.make_opsetid("com.microsoft", ms_opset)]
    return helper.make_model(graph, opset_imports=imports)


def tensor_info(name, shape, dtype=None):
    from onnx import TensorProto, helper
    return helper.make_tensor_value_info(name, dtype or TensorProto.FLOAT, shape)


def ort_mha(q, k, v, causal, threads):
    """MultiHeadAttention over [B, T, H·D] inputs (its layout); returns (call, output as BHTD)."""
    from onnx import helper
    b, h, t, d = q.shape
    node = helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["out"], domain="com.microsoft",
                            num_heads=h, unidirectional=int(causal))
    model = onnx_model(node, [tensor_info(n, [b, t, h * d]) for n in "qkv"], [tensor_info("out", [b, t, h * d])])
    session = ort_session(model, threads)
    feeds = {n: np.ascontiguousarray(x.transpose(0, 2, 1, 3).reshape(b, t, h * d)) for n, x in zip("qkv", (q, k, v))}
    out = session.run(None, feeds)[0].reshape(b, t, h, d).transpose(0, 2, 1, 3)
    return (lambda: session.run(None, feeds)), out


def ort_attention(q, k, v, causal, threads):
    """The opset-23 Attention op over [B, H, T, D] inputs, grouped-query when k has fewer heads."""
    from onnx import helper
    b, hq, tq, d = q.shape
    hkv, tk = k.shape[1], k.shape[2]
    node = helper.make_node("Attention", ["q", "k", "v"], ["out"], is_causal=int(causal))
    inputs = [tensor_info("q", list(q.shape)), tensor_info("k", list(k.shape)), tensor_info("v", list(v.shape))]
    model = onnx_model(node, inputs, [tensor_info("out", [b, hq, tq, d])])
    session = ort_session(model, threads)
    feeds = {"q": q, "k": k, "v": v}
    out = session.run(None, feeds)[0]
    return (lambda: session.run(None, feeds)), out


def ort_gqa_decode(q, k, v, threads):
    """GroupQueryAttention for one new token: the cache holds keys [0, Tk - 1), the new key is the
    last one; past and present are bound to the same buffers (its in-place decode mode)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper
    b, hq, _, d = q.shape
    hkv, tk = k.shape[1], k.shape[2]
    node = helper.make_node("GroupQueryAttention",
                            ["q", "k_new", "v_new", "past_k", "past_v", "seqlens_k", "total_len"],
                            ["out", "present_k", "present_v"], domain="com.microsoft",
                            num_heads=hq, kv_num_heads=hkv)
    cache = [b, hkv, tk, d]
    model = onnx_model(node,
                       [tensor_info("q", [b, 1, hq * d]), tensor_info("k_new", [b, 1, hkv * d]),
                        tensor_info("v_new", [b, 1, hkv * d]), tensor_info("past_k", cache),
                        tensor_info("past_v", cache), tensor_info("seqlens_k", [b], TensorProto.INT32),
                        tensor_info("total_len", [], TensorProto.INT32)],
                       [tensor_info("out", [b, 1, hq * d]), tensor_info("present_k", cache),
                        tensor_info("present_v", cache)])
    session = ort_session(model, threads)
    past_k, past_v = k.copy(), v.copy()  # the op writes the new key into row Tk - 1
    k_new = np.ascontiguousarray(k[:, :, tk - 1, :].reshape(b, 1, hkv * d))
    v_new = np.ascontiguousarray(v[:, :, tk - 1, :].reshape(b, 1, hkv * d))
    binding = session.io_binding()
    past_k_value = ort.OrtValue.ortvalue_from_numpy(past_k)
    past_v_value = ort.OrtValue.ortvalue_from_numpy(past_v)
    binding.bind_cpu_input("q", np.ascontiguousarray(q.reshape(b, 1, hq * d)))
    binding.bind_cpu_input("k_new", k_new)
    binding.bind_cpu_input("v_new", v_new)
    binding.bind_ortvalue_input("past_k", past_k_value)
    binding.bind_ortvalue_input("past_v", past_v_value)
    binding.bind_cpu_input("seqlens_k", np.full([b], tk - 1, np.int32))
    binding.bind_cpu_input("total_len", np.array(tk, np.int32))
    binding.bind_output("out", "cpu")
    binding.bind_ortvalue_output("present_k", past_k_value)
    binding.bind_ortvalue_output("present_v", past_v_value)

    def call():
        session.run_with_iobinding(binding)
        return binding.get_outputs()[0]

    out = call().numpy().reshape(b, 1, hq, d).transpose(0, 2, 1, 3)
    return call, out


# OpenVINO --------------------------------------------------------------------------------------

def openvino_sdpa(q, k, v, causal, threads, precision):
    """opset-13 scaled_dot_product_attention; grouped-query heads are repeated in the graph (the
    pattern OpenVINO's CPU plugin fuses into its SDPA node)."""
    import openvino as ov
    from openvino import opset13 as ops
    b, hq, tq, d = q.shape
    hkv, tk = k.shape[1], k.shape[2]
    params = [ops.parameter(list(x.shape), ov.Type.f32, name=n) for n, x in zip("qkv", (q, k, v))]
    keys, values = params[1], params[2]
    if hkv != hq:
        group = hq // hkv

        def repeat(x):
            grown = ops.broadcast(ops.unsqueeze(x, [2]), ops.constant(np.array([b, hkv, group, tk, d], np.int64)))
            return ops.reshape(grown, ops.constant(np.array([b, hq, tk, d], np.int64)), False)

        keys, values = repeat(keys), repeat(values)
    if causal and tq == 1:
        causal = False  # one query over the whole cache: nothing to mask
    sdpa = ops.scaled_dot_product_attention(params[0], keys, values, causal=causal)
    model = ov.Model([sdpa], params, "attention")
    config = {"INFERENCE_NUM_THREADS": threads, "INFERENCE_PRECISION_HINT": precision,
              "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1}
    compiled = ov.Core().compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    feeds = {0: q, 1: k, 2: v}
    out = np.array(request.infer(feeds)[0])
    return (lambda: request.infer(feeds, share_inputs=True, share_outputs=True)), out


# Rows ------------------------------------------------------------------------------------------

def prefill_shapes(quick):
    for heads, d in ((12, 64), (8, 128)):
        for t in (512,) if quick else (512, 2048, 4096):
            for causal in (False, True):
                for threads in (1, 2):
                    yield heads, d, t, causal, threads


def decode_shapes(quick):
    for hq, hkv, d in ((12, 12, 64), (32, 8, 128)):
        for tk in (512,) if quick else (512, 4096):
            for threads in (1, 2):
                for cache in ("warm", "cold"):
                    yield hq, hkv, d, tk, threads, cache


@functools.cache
def openvino_has_bf16():
    """Whether OpenVINO runs bf16 natively here (AVX512-BF16 or AMX). Elsewhere it accepts the
    bf16 hint and emulates it, about 50 x slower than its f32 (10.2 s against 0.20 s a call,
    causal D = 128, T = 2048, on a Cascade Lake core): no peer for ctein's bf16, and hours of
    make bench, so it is left out."""
    import openvino
    has = "BF16" in openvino.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    if not has:
        LEFT_OUT["openvino_bf16"] = "this CPU has no native bf16 in OpenVINO's OPTIMIZATION_CAPABILITIES"
        print("openvino_bf16 left out: " + LEFT_OUT["openvino_bf16"], file=sys.stderr)
    return has


def engines(section, hq, hkv):
    found = []
    try:
        import onnxruntime  # noqa: F401
        import onnx  # noqa: F401
        found += ["onnxruntime_mha", "onnxruntime_attn"] if section == "prefill" else ["onnxruntime_gqa",
                                                                                         "onnxruntime_attn"]
    except ImportError:
        pass
    try:
        import openvino  # noqa: F401
        found += ["openvino_f32"] + (["openvino_bf16"] if openvino_has_bf16() else [])
    except ImportError:
        pass
    return [e for e in found if not (e == "onnxruntime_mha" and hq != hkv)]


def build(engine, q, k, v, causal, threads):
    if engine == "onnxruntime_mha":
        return ort_mha(q, k, v, causal, threads)
    if engine == "onnxruntime_attn":
        return ort_attention(q, k, v, causal and q.shape[2] > 1, threads)
    if engine == "onnxruntime_gqa":
        return ort_gqa_decode(q, k, v, threads)
    return openvino_sdpa(q, k, v, causal, threads, "bf16" if engine.endswith("bf16") else "f32")


def row(name, seconds, error, flops=None, kv_bytes=None):
    counters = {"name": name, "run_name": name, "run_type": "iteration", "iterations": 1,
                "real_time": seconds * 1e3, "time_unit": "ms", "seconds": seconds, "max_abs_error": error}
    if flops is not None:
        counters["GFLOPs"] = flops / seconds * 1e-9
    if kv_bytes is not None:
        counters["bytes_per_second"] = kv_bytes / seconds
    return counters


class Case:
    """One row's inputs, PyTorch's fp64 reference and the engines built on them, each checked
    against it. A prefill row: q, k, v [1, H, T, D]; a decode row: one query over Tk cached
    tokens that it all sees, through copies of K and V worth COLD_BYTES when `cache` is cold."""

    def __init__(self, rng, section, hq, hkv, d, tq, tk, causal, threads, cache):
        self.section, self.hkv, self.threads = section, hkv, threads
        self.kv_bytes = 2 * hkv * tk * d * 4
        copies = max(2, -(-COLD_BYTES // self.kv_bytes)) if cache == "cold" else 1
        self.q = uniform(rng, (1, hq, tq, d))
        self.kvs = [(uniform(rng, (1, hkv, tk, d)), uniform(rng, (1, hkv, tk, d))) for _ in range(copies)]
        self.causal = causal
        offset = (0 if causal else None) if section == "prefill" else tk - 1
        self.reference = reference(self.q, *self.kvs[0], offset)
        self.flops = 4.0 * hq * tq * tk * d / (2 if section == "prefill" and causal else 1)
        self.built = {}

    def engines(self):
        return engines(self.section, self.q.shape[1], self.hkv)

    def engine(self, name):
        """(call, max |error|) of `name` on this row: a call rotates through the copies of K and V."""
        if name not in self.engines():
            raise KeyError(f"{name} does not run {self.section} rows of this shape here")
        if name not in self.built:
            calls = []
            for i, (k, v) in enumerate(self.kvs):
                call, out = build(name, self.q, k, v, self.causal, self.threads)
                if i == 0:
                    error = check(name, out, self.reference, "bf16" if name.endswith("bf16") else "fp32")
                calls.append(call)
            if len(calls) == 1:
                self.built[name] = calls[0], error
            else:
                turn = itertools.count()
                self.built[name] = (lambda: calls[next(turn) % len(calls)]()), error
        return self.built[name]


def run(quick, only, sections):
    rng = np.random.default_rng(1)
    rows = []
    shapes = [("prefill", heads, heads, d, t, t, causal, threads, "warm")
              for heads, d, t, causal, threads in (prefill_shapes(quick) if "prefill" in sections else ())]
    shapes += [("decode", hq, hkv, d, 1, tk, True, threads, cache)
               for hq, hkv, d, tk, threads, cache in (decode_shapes(quick) if "decode" in sections else ())]
    for section, hq, hkv, d, tq, tk, causal, threads, cache in shapes:
        case = Case(rng, section, hq, hkv, d, tq, tk, causal, threads, cache)
        for engine in case.engines():
            if only and engine not in only:
                continue
            if section == "prefill":
                name = f"prefill/D:{d}/H:{hq}/T:{tq}/{'causal' if causal else 'full'}/threads:{threads}/{engine}"
            else:
                name = f"decode/Hq:{hq}/Hkv:{hkv}/D:{d}/Tk:{tk}/threads:{threads}/cache:{cache}/{engine}"
            try:
                call, error = case.engine(engine)
            except Mismatch as mismatch:
                sys.exit(str(mismatch))
            if section == "prefill":
                rows.append(row(name, fastest(call), error, flops=case.flops))
                print(f"{name:<60} {rows[-1]['seconds'] * 1e3:9.3f} ms  {rows[-1]['GFLOPs']:7.1f} GFLOP/s  "
                      f"max|Δ| {error:.2g}", flush=True)
            else:
                rows.append(row(name, fastest(call, least=2 * len(case.kvs)), error, kv_bytes=case.kv_bytes))
                print(f"{name:<66} {rows[-1]['seconds'] * 1e3:9.3f} ms  "
                      f"{rows[-1]['bytes_per_second'] / 2**30:7.1f} GiB/s  max|Δ| {error:.2g}", flush=True)
        del case
    return rows


def seconds_of(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def serve(requests, replies):
    """Answers ctein_bench_attention's requests (the module's docstring) until stdin closes."""
    rng = np.random.default_rng(1)
    opened, case = None, None
    for line in iter(requests.readline, ""):
        words = line.split()
        try:
            if words[0] == "hello":
                engines("decode", 2, 1)  # finds what is left out, and why
                answer = {**versions(), **{f"left_out_{e}": why for e, why in LEFT_OUT.items()}}
            elif words[0] == "open":
                shape, wanted = words[1:10], words[10].split(",") if len(words) > 10 else []
                if shape != opened:
                    opened, case = None, None  # the last row's inputs and engines go first
                    section, cache = shape[0], shape[8]
                    hq, hkv, d, tq, tk, causal, threads = (int(x) for x in shape[1:8])
                    case, opened = Case(rng, section, hq, hkv, d, tq, tk, bool(causal), threads, cache), shape
                answer = {e: case.engine(e)[1] for e in wanted if e in case.engines()}
            elif words[0] == "burst":
                call, after = case.engine(words[1])[0], int(words[2])
                first = seconds_of(call)
                answer = {"first": first,
                          "back_to_back": min((seconds_of(call) for _ in range(after)), default=first)}
            elif words[0] == "fastest":
                answer = {"seconds": fastest(case.engine(words[1])[0])}
            else:
                raise ValueError(f"unknown request {words[0]!r}")
            reply = "\t".join(["ok"] + [f"{k}={v!r}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in answer.items()])
        except Mismatch as mismatch:
            reply = f"mismatch {mismatch}"
        except Exception as error:  # the row that asked is skipped with this message
            reply = f"error {type(error).__name__}: {error}"
        replies.write(reply.replace("\n", " ") + "\n")  # one line each
        replies.flush()


def versions():
    found = {}
    for module in ("onnxruntime", "openvino", "torch"):
        try:
            found[module + "_version"] = __import__(module).__version__
        except ImportError:
            pass
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="the JSON file of a run of every row")
    parser.add_argument("--serve", action="store_true", help="answer ctein_bench_attention's requests")
    parser.add_argument("--quick", action="store_true", help="T = 512 only (a smoke run)")
    parser.add_argument("--only", default="", help="comma-separated engines to run")
    parser.add_argument("--sections", default="prefill,decode", help="prefill, decode or both")
    args = parser.parse_args()
    if args.serve:
        # Replies on a copy of stdout; stdout itself becomes stderr, so that whatever an engine
        # prints cannot be taken for a reply.
        replies = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        serve(sys.stdin, replies)
        return
    if not args.out:
        parser.error("--out or --serve is needed")
    context = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
               "executable": "engine_peers.py", "load_avg": list(os.getloadavg()),
               "host_name": platform.node(), **versions()}
    rows = run(args.quick, [e for e in args.only.split(",") if e], args.sections.split(","))
    if LEFT_OUT:
        context["left_out"] = LEFT_OUT
    with open(args.out, "w") as f:
        json.dump({"context": context, "benchmarks": rows}, f, indent=1)


if __name__ == "__main__":
    main()
