#!/usr/bin/env python3
"""Writes the fuzz targets' seed inputs (tests/fuzz/seeds/), committed as small files:
`ctein explain` command lines from every recorded einops case (tests/data/*.jsonl) and a few
attention calls; .npy files numpy writes, of each element type the readers take; .safetensors
files laid out as safetensors writes them. Run with Debian's python3 (numpy)."""
import hashlib
import json
import pathlib
import struct

import numpy as np

here = pathlib.Path(__file__).resolve().parent
seeds = here / "seeds"


def write(kind, content):
    folder = seeds / kind
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha1(content).hexdigest()[:16]
    (folder / name).write_bytes(content)


def explain_words(case):
    """The case as `ctein explain` words, as tests/parity/parity_test.cpp builds them."""
    op = case["op"]
    words = [case["pattern"], "--op", "reduce:" + case["reduction"] if op == "reduce" else op]
    shapes = case["input_shapes"] if op in ("einsum", "pack") else case["input_shapes"][:1]
    for shape in shapes:
        words += ["--shape", ",".join(str(n) for n in shape) or "()"]
    for name, value in case.get("axes_lengths", {}).items():
        words += ["-a", f"{name}={value}"]
    if "packed_shapes" in case:
        words += ["--packed", json.dumps(case["packed_shapes"])]
    return words


for source in sorted((here.parent / "data").glob("einops_cases*.jsonl")):
    for line in source.read_text().splitlines():
        case = json.loads(line)
        if case["op"] == "_meta" or "pattern" not in case:
            continue
        write("explain", "\n".join(explain_words(case)).encode())
for words in (
    ["b h s d", "--op", "attention", "--shape", "2,8,5,64", "--shape", "2,2,7,64", "--shape", "2,2,7,64"],
    ["b h q d", "--op", "attention", "--shape", "1,4,3,16", "--names", "b h q d", "--shape", "1,4,9,16",
     "--names", "b h k d", "--shape", "1,4,9,16", "--names", "b h k d", "--shape", "1,9", "--names", "b k",
     "--key-padding-mask"],
    ["b s (h d) -> b h s d", "--shape", "2,5,512", "--names", "b s c", "-a", "h=8"],
    ["a b -> b a", "--op", "reduce:sum", "--shape", "3,4184467440737551615"],
):
    write("explain", "\n".join(words).encode())

for array in (np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(5, dtype=np.float32),
              np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4), np.arange(4, dtype=np.int64).reshape(2, 2),
              (np.arange(8) % 3 == 0).reshape(2, 2, 2), np.zeros((2, 3), dtype=np.float64),
              np.zeros((0, 3), dtype=np.float32), np.asfortranarray(np.ones((2, 3), dtype=np.float32))):
    path = seeds / "tmp.npy"
    seeds.mkdir(parents=True, exist_ok=True)
    np.save(path, array)
    write("npy", path.read_bytes())
    path.unlink()


def safetensors(tensors):
    header, data = {}, b""
    for name, array in tensors.items():
        dtype = {np.float32: "F32", np.int64: "I64", np.bool_: "BOOL", np.float64: "F64"}[array.dtype.type]
        raw = array.tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


write("safetensors", safetensors({"weight": np.arange(6, dtype=np.float32).reshape(2, 3),
                                  "bias": np.arange(2, dtype=np.float32)}))
write("safetensors", safetensors({"ids": np.arange(3, dtype=np.int64),
                                  "mask": np.array([[True, False]]),
                                  "x": np.zeros((2, 2, 3), dtype=np.float32)}))
write("safetensors", safetensors({}))
