#!/usr/bin/env python3
"""Record supplementary einops parity cases for ctein.

Runs the real Python einops (pip ``einops``, numpy backend) on a fixed list of
cases and writes ``tests/data/einops_cases_extra.jsonl`` in exactly the record
format of ``shared/einops-parity/cases.jsonl`` (see that folder's README.md):

* line 1 is a ``_meta`` record (einops / numpy / python versions, counts, formulas);
* every other line is one case: ``id op pattern reduction input_shapes
  input_formula axes_lengths [list_input] [packed_shapes] [tags] [note] expect``
  followed by the results (``output_shape output_dtype output`` /
  ``packed_shapes_out`` / ``outputs`` / ``parse_shape_result``) or, for error
  cases, ``error_kind error_type error_message error_core error_wrapped
  [error_axes]``.

Inputs are generated from the README formulas (affine, prod_safe, bool_mod3,
int_arange) so that a C++ test can regenerate them from the shape alone.

Every case says whether it must succeed or fail (and with which error kind); the
script aborts if einops disagrees, so the file it writes is self-checked.

Deterministic: the script re-executes itself with PYTHONHASHSEED=0, so the
order inside printed Python sets ({'c', 'd'}) is the same on every run (compare
set contents through ``error_axes`` anyway). Messages that would print a set
mixing anonymous axes (hashed by id) are avoided on purpose.

Usage:  python3 tools/einops_cases.py [--out PATH] [--existing PATH]
"""

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    _env = dict(os.environ, PYTHONHASHSEED="0")
    os.execve(sys.executable, [sys.executable] + sys.argv, _env)

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

import einops  # noqa: E402
from einops import EinopsError  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "tests", "data", "einops_cases_extra.jsonl"))
DEFAULT_EXISTING = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "einops-parity", "cases.jsonl"))

FORMULAS = {
    "affine": "np.arange(n, dtype=np.float32).reshape(shape) * np.float32(0.5) - np.float32(3) + np.float32(10 * k)",
    "prod_safe": "(np.float32(1) + (np.arange(n) % 5).astype(np.float32) * np.float32(0.25)).reshape(shape)",
    "bool_mod3": "(np.arange(n) % 3 == 0).reshape(shape)",
}
INT_ARANGE = "np.arange(n, dtype=np.int64).reshape(shape)"

MAX_ELEMENTS = 2000
REDUCTIONS = ("sum", "mean", "max", "min", "prod", "any", "all", "median")


# --------------------------------------------------------------------------- inputs


def make_input(shape, formula, k):
    # np.asarray: for a 0-d shape the float formulas give a numpy scalar (np.float32), which einops
    # rejects ("Tensor type unknown to einops"); the recorded cases use a 0-d ndarray.
    return np.asarray(_formula(tuple(shape), formula, k))


def _formula(shape, formula, k):
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if n >= MAX_ELEMENTS:
        raise SystemExit(f"input of shape {shape} has {n} elements (limit {MAX_ELEMENTS})")
    if formula == "affine":
        return np.arange(n, dtype=np.float32).reshape(shape) * np.float32(0.5) - np.float32(3) + np.float32(10 * k)
    if formula == "prod_safe":
        return (np.float32(1) + (np.arange(n) % 5).astype(np.float32) * np.float32(0.25)).reshape(shape)
    if formula == "bool_mod3":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if formula == "int_arange":
        return np.arange(n, dtype=np.int64).reshape(shape)
    raise SystemExit(f"unknown formula {formula}")


# --------------------------------------------------------------------------- case table

CASES = []


def _add(op, cid, pattern, shapes, *, reduction=None, axes=None, formula="affine", tags=None, note=None,
         list_input=False, packed_shapes=None, kind=None, call=None):
    CASES.append(dict(op=op, id=cid, pattern=pattern, shapes=shapes, reduction=reduction, axes=axes or {},
                      formula=formula, tags=tags, note=note, list_input=list_input,
                      packed_shapes=packed_shapes, kind=kind, call=call))


def R(cid, pattern, shapes, axes=None, **kw):
    _add("rearrange", cid, pattern, shapes, axes=axes, **kw)


def D(cid, pattern, reduction, shapes, axes=None, **kw):
    _add("reduce", cid, pattern, shapes, reduction=reduction, axes=axes, **kw)


def P(cid, pattern, shapes, axes=None, **kw):
    _add("repeat", cid, pattern, shapes, axes=axes, **kw)


def E(cid, pattern, shapes, **kw):
    _add("einsum", cid, pattern, shapes, **kw)


def PK(cid, pattern, shapes, **kw):
    _add("pack", cid, pattern, shapes, **kw)


def UP(cid, pattern, shape, packed_shapes, **kw):
    _add("unpack", cid, pattern, [shape], packed_shapes=packed_shapes, **kw)


def PS(cid, pattern, shape, **kw):
    _add("parse_shape", cid, pattern, [shape], **kw)


ATT = ["attention"]

# ---------------------------------------------------------------- rearrange: valid
R("x_rearr_transpose2d", "a b -> b a", [[3, 4]], tags=["transpose"])
R("x_rearr_identity", "a b c -> a b c", [[2, 3, 4]], tags=["identity"])
R("x_rearr_permute_cab", "a b c -> c a b", [[2, 3, 4]], tags=["transpose"])
R("x_rearr_permute4", "a b c d -> d b a c", [[2, 3, 2, 4]], tags=["transpose"])
R("x_rearr_flatten_all", "a b c -> (a b c)", [[2, 3, 4]], tags=["flatten", "merge"])
R("x_rearr_flatten_chw", "b c h w -> b (c h w)", [[2, 3, 2, 2]], tags=["flatten", "merge"])
R("x_rearr_merge_swapped", "a b c -> (b a) c", [[2, 3, 4]], tags=["merge", "transpose"])
R("x_rearr_merge_two_groups", "a b c d -> (a c) (b d)", [[2, 3, 2, 2]], tags=["merge", "transpose"])
R("x_rearr_split_first_a", "(a b) c -> a b c", [[6, 4]], {"a": 2}, tags=["split"])
R("x_rearr_split_transpose_b", "(a b) c -> c b a", [[6, 2]], {"b": 3}, tags=["split", "transpose"])
R("x_rearr_split_both_given", "(a b) c -> a b c", [[6, 2]], {"a": 2, "b": 3}, tags=["split"],
  note="both lengths of the group given: einops checks their product")
R("x_rearr_given_plain_axis", "a b -> b a", [[3, 4]], {"a": 3}, tags=["transpose"],
  note="a length given for a plain (non-composed) axis is only checked")
R("x_rearr_split_merge", "(a b) (c d) -> (a c) (b d)", [[4, 6]], {"a": 2, "c": 3}, tags=["split", "merge"])
# attention shapes
R("x_rearr_head_split_h4", "b s (h d) -> b h s d", [[2, 3, 12]], {"h": 4}, tags=ATT + ["head_split"])
R("x_rearr_head_split_d", "b s (h d) -> b h s d", [[2, 3, 12]], {"d": 4}, tags=ATT + ["head_split"])
R("x_rearr_head_split_hd", "b s (h d) -> b h s d", [[2, 2, 6]], {"h": 2, "d": 3}, tags=ATT + ["head_split"],
  note="h and d both given: their product is checked against the last dim")
R("x_rearr_head_split_bshd", "b s (h d) -> b s h d", [[2, 3, 8]], {"h": 2}, tags=ATT + ["head_split"])
R("x_rearr_head_split_to_bh", "b s (h d) -> (b h) s d", [[2, 3, 8]], {"h": 2}, tags=ATT + ["head_split", "merge"])
R("x_rearr_head_merge", "b h s d -> b s (h d)", [[2, 3, 4, 2]], tags=ATT + ["head_merge"])
R("x_rearr_head_merge_bshd", "b s h d -> b s (h d)", [[2, 3, 2, 4]], tags=ATT + ["head_merge"])
R("x_rearr_bh_merge", "b h s d -> (b h) s d", [[2, 3, 4, 2]], tags=ATT + ["merge"])
R("x_rearr_bh_split_h", "(b h) s d -> b h s d", [[6, 4, 2]], {"h": 3}, tags=ATT + ["split"])
R("x_rearr_bh_split_b", "(b h) s d -> b h s d", [[6, 4, 2]], {"b": 2}, tags=ATT + ["split"])
R("x_rearr_bh_to_head_merge", "(b h) s d -> b s (h d)", [[4, 3, 2]], {"h": 2}, tags=ATT + ["split", "head_merge"])
R("x_rearr_k_transpose", "b h s d -> b h d s", [[1, 2, 3, 4]], tags=ATT + ["k_transpose"])
R("x_rearr_k_transpose_from_merged", "b s (h d) -> b h d s", [[2, 3, 8]], {"h": 2}, tags=ATT + ["k_transpose"])
R("x_rearr_qkv_three_h_d", "b s (three h d) -> three b h s d", [[2, 3, 24]], {"three": 3, "h": 2},
  tags=ATT + ["qkv"])
R("x_rearr_qkv_h_three_d", "b s (h three d) -> three b h s d", [[2, 3, 24]], {"three": 3, "h": 2},
  tags=ATT + ["qkv"])
R("x_rearr_qkv_all_given", "b s (three h d) -> three b h s d", [[1, 2, 12]], {"three": 3, "h": 2, "d": 2},
  tags=ATT + ["qkv"])
R("x_rearr_qkv_bshd", "b s (three h d) -> three b s h d", [[1, 2, 12]], {"three": 3, "d": 2}, tags=ATT + ["qkv"])
R("x_rearr_kv_two", "b s (two h d) -> two b h s d", [[2, 2, 16]], {"two": 2, "h": 2}, tags=ATT + ["qkv"])
R("x_rearr_gqa_group_split", "b (g r) s d -> b g r s d", [[1, 4, 3, 2]], {"g": 2}, tags=ATT + ["gqa", "split"])
R("x_rearr_gqa_flatten", "b g r s d -> b (g r) s d", [[1, 2, 2, 3, 2]], tags=ATT + ["gqa", "merge"])
R("x_rearr_rope_pairs", "... (d two) -> ... d two", [[2, 3, 8]], {"two": 2}, tags=ATT + ["rope", "ellipsis"])
R("x_rearr_rope_merge", "... d two -> ... (d two)", [[2, 3, 4, 2]], tags=ATT + ["rope", "ellipsis"])
R("x_rearr_rope_halves", "... (two d) -> ... two d", [[2, 3, 8]], {"two": 2}, tags=ATT + ["rope", "ellipsis"])
# space <-> depth, patches, windows
R("x_rearr_space_to_depth_nchw", "b c (h h1) (w w1) -> b (c h1 w1) h w", [[1, 2, 4, 4]], {"h1": 2, "w1": 2},
  tags=["space_to_depth", "split", "merge"])
R("x_rearr_depth_to_space_nchw", "b (c h1 w1) h w -> b c (h h1) (w w1)", [[1, 8, 2, 2]], {"h1": 2, "w1": 2},
  tags=["depth_to_space", "split", "merge"])
R("x_rearr_depth_to_space_nhwc", "b h w (c h1 w1) -> b (h h1) (w w1) c", [[1, 2, 2, 8]], {"h1": 2, "w1": 2},
  tags=["depth_to_space", "split", "merge"])
R("x_rearr_vit_patchify", "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", [[1, 3, 4, 4]], {"p1": 2, "p2": 2},
  tags=ATT + ["patches", "split", "merge"])
R("x_rearr_vit_unpatchify", "b (h w) (p1 p2 c) -> b c (h p1) (w p2)", [[1, 4, 12]], {"h": 2, "p1": 2, "p2": 2},
  tags=ATT + ["patches", "split", "merge"])
R("x_rearr_window_partition", "b (h wh) (w ww) c -> (b h w) wh ww c", [[1, 4, 4, 2]], {"wh": 2, "ww": 2},
  tags=ATT + ["windows", "split", "merge"])
R("x_rearr_window_reverse", "(b h w) wh ww c -> b (h wh) (w ww) c", [[4, 2, 2, 2]], {"b": 1, "h": 2},
  tags=ATT + ["windows", "split", "merge"])
# ellipsis
R("x_rearr_ellipsis_front", "... h w -> ... w h", [[2, 3, 4]], tags=["ellipsis", "transpose"])
R("x_rearr_ellipsis_middle", "b ... c -> b c ...", [[2, 3, 4, 5]], tags=["ellipsis", "transpose"])
R("x_rearr_ellipsis_end", "b c ... -> c b ...", [[2, 3, 4]], tags=["ellipsis", "transpose"])
R("x_rearr_ellipsis_identity", "... -> ...", [[2, 3]], tags=["ellipsis", "identity"])
R("x_rearr_ellipsis_group_right", "b ... c -> b (...) c", [[2, 3, 4, 5]], tags=["ellipsis", "merge"])
R("x_rearr_ellipsis_group_with_axis", "b ... c -> (b ...) c", [[2, 3, 2, 4]], tags=["ellipsis", "merge"])
R("x_rearr_ellipsis_group_after_axis", "b ... c -> b (c ...)", [[2, 3, 2, 4]], tags=["ellipsis", "merge"])
R("x_rearr_ellipsis_split_after", "... (h d) -> ... h d", [[2, 3, 8]], {"d": 2}, tags=["ellipsis", "split"])
R("x_rearr_ellipsis_zero_dims", "b ... c -> b c ...", [[3, 4]], tags=["ellipsis", "zero_dims"],
  note="the ellipsis matches zero dims")
R("x_rearr_ellipsis_zero_dims_group", "b ... c -> b (...) c", [[3, 4]], tags=["ellipsis", "zero_dims"],
  note="(...) over zero dims becomes a new axis of length 1")
R("x_rearr_ellipsis_zero_dims_front", "... a b -> b a ...", [[3, 4]], tags=["ellipsis", "zero_dims"])
R("x_rearr_ellipsis_0d", "... -> ...", [[]], tags=["ellipsis", "zero_dims", "scalar"])
R("x_rearr_ellipsis_0d_group", "... -> (...)", [[]], tags=["ellipsis", "zero_dims", "scalar"],
  note="0-d input, (...) over zero dims gives shape [1]")
R("x_rearr_ellipsis_with_unit", "1 ... -> ...", [[1, 3, 4]], tags=["ellipsis", "squeeze"])
# 1 and ()
R("x_rearr_squeeze_1", "a 1 b -> a b", [[3, 1, 4]], tags=["anonymous", "squeeze"])
R("x_rearr_squeeze_parens", "a () b -> a b", [[3, 1, 4]], tags=["anonymous", "squeeze"])
R("x_rearr_unsqueeze_1", "a b -> a 1 b", [[3, 4]], tags=["anonymous", "unsqueeze"])
R("x_rearr_unsqueeze_front_back", "a b -> 1 a b 1", [[3, 4]], tags=["anonymous", "unsqueeze"])
R("x_rearr_unsqueeze_parens_ends", "a b -> () a b ()", [[2, 3]], tags=["anonymous", "unsqueeze"])
R("x_rearr_parens_both_sides", "a () b -> b () a", [[3, 1, 4]], tags=["anonymous", "transpose"])
R("x_rearr_1_left_parens_right", "1 a b -> b a ()", [[1, 3, 4]], tags=["anonymous", "transpose"])
R("x_rearr_one_in_parens_left", "(a 1) b -> a b", [[3, 4]], tags=["anonymous"], note="1 inside parentheses is ignored")
R("x_rearr_one_in_parens_right", "a b -> (a 1) b", [[3, 4]], tags=["anonymous"], note="1 inside parentheses is ignored")
R("x_rearr_one_in_parens_both", "(1 a) (b 1) -> (b 1 a)", [[3, 4]], tags=["anonymous", "merge"])
R("x_rearr_one_alone_in_parens", "a (1) b -> b a", [[3, 1, 4]], tags=["anonymous", "squeeze"],
  note="(1) is the same as (): an axis of length 1")
R("x_rearr_squeeze_all_ones", "1 1 -> ", [[1, 1]], tags=["anonymous", "squeeze", "scalar"])
R("x_rearr_0d_identity", " -> ", [[]], tags=["scalar"])
R("x_rearr_0d_to_1", " -> 1", [[]], tags=["scalar", "unsqueeze"])
R("x_rearr_0d_to_parens", "-> ()", [[]], tags=["scalar", "unsqueeze"])
R("x_rearr_0d_to_1_parens_1", " -> 1 () 1", [[]], tags=["scalar", "unsqueeze"])
R("x_rearr_named_len1", "a b c -> c b a", [[1, 3, 1]], tags=["transpose"])
# whitespace and names
R("x_rearr_ws_extra", "  a   b  ->  b   a  ", [[3, 4]], tags=["whitespace"])
R("x_rearr_ws_nospace_arrow", "a b c->c b a", [[2, 3, 4]], tags=["whitespace"])
R("x_rearr_ws_parens_inner", "( a  b ) c -> c ( b a )", [[6, 2]], {"a": 2}, tags=["whitespace", "split"])
R("x_rearr_ws_parens_tight", "(a b)c->c(b a)", [[6, 2]], {"a": 2}, tags=["whitespace", "split"])
R("x_rearr_ws_ellipsis_tight", "...->...", [[2, 3]], tags=["whitespace", "ellipsis"])
R("x_rearr_ws_ellipsis_group_tight", "b ... c->b(...)c", [[2, 3, 2, 2]], tags=["whitespace", "ellipsis"],
  note="parentheses separate tokens: '(...)c' is (...) then c")
R("x_rearr_long_names", "batch seq_len d_model -> seq_len batch d_model", [[2, 3, 4]], tags=["names"])
R("x_rearr_digit_names", "x1 x2 -> x2 x1", [[3, 4]], tags=["names"])
R("x_rearr_uppercase_names", "B T C -> T B C", [[2, 3, 2]], tags=["names"])
R("x_rearr_keyword_names", "class def -> def class", [[3, 4]], tags=["names", "warning"])
R("x_rearr_name_axis", "axis b -> b axis", [[3, 4]], tags=["names", "warning"])
# list input
R("x_rearr_list_stack", "n a b -> a (n b)", [[2, 3], [2, 3], [2, 3]], list_input=True, tags=["list"])
R("x_rearr_list_to_last", "n h w -> h w n", [[2, 2], [2, 2]], list_input=True, tags=["list"])
R("x_rearr_list_heads_merge", "h s d -> s (h d)", [[3, 2]] * 4, list_input=True, tags=ATT + ["list", "head_merge"],
  note="list of per-head outputs merged into one tensor")

# ---------------------------------------------------------------- reduce: valid
D("x_red_sum_cols", "a b -> b", "sum", [[3, 4]])
D("x_red_sum_to_scalar", "a b -> ", "sum", [[3, 4]], tags=["scalar"])
D("x_red_mean_rows", "a b -> a", "mean", [[3, 4]])
D("x_red_mean_div3", "a b -> a", "mean", [[2, 3]], formula="prod_safe",
  note="mean over 3 values is not exact (e.g. 4.75 / 3): compare with rtol 1e-6")
D("x_red_max_middle", "a b c -> a c", "max", [[2, 3, 4]])
D("x_red_min_outer", "a b c -> b", "min", [[2, 3, 4]])
D("x_red_min_scalar", "a b c ->", "min", [[2, 3, 4]], tags=["scalar"])
D("x_red_prod_cols", "a b -> b", "prod", [[3, 4]], formula="prod_safe")
D("x_red_prod_two_axes", "a b c -> a", "prod", [[2, 2, 3]], formula="prod_safe")
D("x_red_prod_scalar", "a b -> ", "prod", [[2, 3]], formula="prod_safe", tags=["scalar"])
D("x_red_any_rows", "a b -> a", "any", [[3, 4]], formula="bool_mod3", tags=["bool"])
D("x_red_any_cols", "a b -> b", "any", [[1, 2]], formula="bool_mod3", tags=["bool"])
D("x_red_any_scalar", "a b -> ", "any", [[2, 3]], formula="bool_mod3", tags=["bool", "scalar"])
D("x_red_all_rows", "a b -> a", "all", [[4, 1]], formula="bool_mod3", tags=["bool"])
D("x_red_all_scalar", "a b -> ", "all", [[2, 3]], formula="bool_mod3", tags=["bool", "scalar"])
D("x_red_keepdim_1", "b c h w -> b c 1 1", "mean", [[2, 2, 2, 3]], tags=["keepdim", "anonymous"])
D("x_red_keepdim_1_max", "b s d -> b 1 d", "max", [[2, 3, 4]], tags=["keepdim", "anonymous"])
D("x_red_keepdim_parens", "a b -> a ()", "sum", [[3, 4]], tags=["keepdim", "anonymous"])
D("x_red_keepdim_mixed", "a b c -> 1 b ()", "sum", [[2, 3, 4]], tags=["keepdim", "anonymous"])
D("x_red_maxpool_anon", "b c (h 2) (w 2) -> b c h w", "max", [[1, 2, 4, 4]], tags=["pooling", "anonymous"])
D("x_red_avgpool_named", "b c (h h2) (w w2) -> b c h w", "mean", [[1, 2, 4, 4]], {"h2": 2, "w2": 2},
  tags=["pooling", "split"])
D("x_red_maxpool1d_anon3", "b (t 3) c -> b t c", "max", [[2, 6, 2]], tags=["pooling", "anonymous"])
D("x_red_minpool_nhwc", "b (h h2) (w w2) c -> b h w c", "min", [[1, 4, 4, 2]], {"h2": 2, "w2": 2},
  tags=["pooling", "split"])
D("x_red_adaptive_avg", "b c (h2 h) (w2 w) -> b c h2 w2", "mean", [[1, 2, 6, 4]], {"h2": 2, "w2": 2},
  tags=["pooling", "adaptive"])
D("x_red_adaptive_max", "b c (h2 h) (w2 w) -> b c h2 w2", "max", [[1, 1, 6, 6]], {"h2": 3, "w2": 2},
  tags=["pooling", "adaptive"])
D("x_red_global_avg", "b c h w -> b c", "mean", [[2, 3, 2, 2]], tags=["pooling"])
D("x_red_ellipsis_keep_first", "b ... -> b", "sum", [[2, 3, 4]], tags=["ellipsis"])
D("x_red_ellipsis_drop_last", "... c -> ...", "mean", [[2, 3, 4]], tags=["ellipsis"])
D("x_red_ellipsis_middle", "b ... c -> b c", "min", [[2, 3, 2, 4]], tags=["ellipsis"])
D("x_red_ellipsis_zero_dims", "b ... c -> b c", "sum", [[3, 4]], tags=["ellipsis", "zero_dims"],
  note="ellipsis matches zero dims: nothing is reduced")
D("x_red_ellipsis_group_right", "b ... c -> (...) b", "max", [[2, 3, 2, 4]], tags=["ellipsis", "merge"])
D("x_red_permute_only_max", "a b c -> c a b", "max", [[2, 3, 4]], note="no axis reduced: pure transpose")
D("x_red_identity_sum", "a b -> a b", "sum", [[3, 4]], note="no axis reduced: identity")
D("x_red_squeeze_anon1", "a 1 b -> a", "sum", [[3, 1, 4]], tags=["anonymous"])
D("x_red_group_left", "(a b) c -> a", "sum", [[6, 2]], {"b": 2}, tags=["split"])
D("x_red_merge_right", "a b c -> (c a)", "sum", [[2, 3, 4]], tags=["merge"])
D("x_red_attn_rowmax", "b h i j -> b h i 1", "max", [[1, 2, 3, 3]], tags=ATT + ["keepdim"],
  note="softmax row max")
D("x_red_attn_rowsum", "b h i j -> b h i", "sum", [[1, 2, 3, 3]], tags=ATT)
D("x_red_heads_mean", "b h s d -> b s d", "mean", [[2, 2, 3, 4]], tags=ATT)
D("x_red_token_mean_pool", "b s d -> b d", "mean", [[2, 4, 3]], tags=ATT + ["pooling"])
D("x_red_gqa_group_sum", "b (g r) s d -> b g s d", "sum", [[1, 4, 2, 2]], {"r": 2}, tags=ATT + ["gqa"])
D("x_red_0d_identity", " -> ", "sum", [[]], tags=["scalar"])
D("x_red_list_mean", "n a b -> a b", "mean", [[2, 3]] * 3, list_input=True, tags=["list"])

# ---------------------------------------------------------------- repeat: valid
P("x_rep_new_front", "h w -> c h w", [[2, 3]], {"c": 3}, tags=["new_axis"])
P("x_rep_new_end", "h w -> h w c", [[3, 2]], {"c": 2}, tags=["new_axis"])
P("x_rep_tile_rows", "h w -> (r h) w", [[2, 3]], {"r": 2}, tags=["tile"])
P("x_rep_interleave_rows", "h w -> (h r) w", [[2, 3]], {"r": 2}, tags=["interleave"])
P("x_rep_tile_cols", "h w -> h (r w)", [[2, 3]], {"r": 2}, tags=["tile"])
P("x_rep_interleave_cols", "h w -> h (w r)", [[2, 3]], {"r": 2}, tags=["interleave"])
P("x_rep_gqa", "b g s d -> b (g r) s d", [[1, 2, 3, 2]], {"r": 2}, tags=ATT + ["gqa", "interleave"],
  note="= repeat_interleave over the kv-head axis")
P("x_rep_gqa_bshd", "b s g d -> b s (g r) d", [[1, 2, 2, 3]], {"r": 3}, tags=ATT + ["gqa", "interleave"])
P("x_rep_gqa_expand", "b g s d -> b g r s d", [[1, 2, 2, 2]], {"r": 2}, tags=ATT + ["gqa", "new_axis"])
P("x_rep_mqa", "b 1 s d -> b h s d", [[2, 1, 3, 2]], {"h": 4}, tags=ATT + ["mqa", "anonymous"])
P("x_rep_upsample_named", "b c h w -> b c (h h2) (w w2)", [[1, 2, 2, 3]], {"h2": 2, "w2": 2}, tags=["upsample"])
P("x_rep_upsample_anon", "b c h w -> b c (h 2) (w 2)", [[1, 1, 2, 3]], tags=["upsample", "anonymous"])
P("x_rep_anon_new_3", "a b -> a 3 b", [[2, 3]], tags=["anonymous", "new_axis"])
P("x_rep_anon_tile_3", "a b -> (3 a) b", [[2, 3]], tags=["anonymous", "tile"])
P("x_rep_ellipsis_front", "... -> r ...", [[2, 3]], {"r": 2}, tags=["ellipsis", "new_axis"])
P("x_rep_ellipsis_group", "b ... -> b (r ...)", [[2, 2, 3]], {"r": 2}, tags=["ellipsis", "tile"])
P("x_rep_ellipsis_0d", "... -> ... r", [[]], {"r": 3}, tags=["ellipsis", "zero_dims", "scalar"])
P("x_rep_0d_new", " -> r", [[]], {"r": 3}, tags=["scalar", "new_axis"])
P("x_rep_given_existing", "h w -> h w c", [[3, 4]], {"h": 3, "c": 2}, tags=["new_axis"],
  note="h is given as well: only checked")
P("x_rep_mask_heads", "i j -> h i j", [[3, 3]], {"h": 2}, tags=ATT + ["mask", "broadcast"])
P("x_rep_mask_batch_1", "i j -> b 1 i j", [[3, 3]], {"b": 2}, tags=ATT + ["mask", "broadcast", "anonymous"])
P("x_rep_squeeze_then_repeat", "a 1 b -> a r b", [[2, 1, 3]], {"r": 3}, tags=["anonymous"])
P("x_rep_split_left", "(a b) c -> a (b r) c", [[4, 2]], {"a": 2, "r": 2}, tags=["split", "interleave"])
P("x_rep_permute_only", "a b -> b a", [[2, 3]], note="no new axis: pure transpose")
P("x_rep_new_inside_group", "a b -> (a r b)", [[2, 3]], {"r": 2}, tags=["merge"])
P("x_rep_list_input", "n a -> a n r", [[3], [3]], {"r": 2}, list_input=True, tags=["list", "new_axis"])

# ---------------------------------------------------------------- einsum: valid
E("x_ein_attn_v", "b h i j, b h j d -> b h i d", [[1, 2, 3, 3], [1, 2, 3, 2]], tags=ATT)
E("x_ein_qk_bshd", "b i h d, b j h d -> b h i j", [[1, 3, 2, 2], [1, 2, 2, 2]], tags=ATT)
E("x_ein_qk_gqa", "b g r i d, b g j d -> b g r i j", [[1, 2, 2, 2, 2], [1, 2, 3, 2]], tags=ATT + ["gqa"])
E("x_ein_linear_ellipsis", "... d_in, d_out d_in -> ... d_out", [[2, 3, 4], [5, 4]], tags=["linear", "ellipsis"])
E("x_ein_bmm", "b i k, b k j -> b i j", [[2, 2, 3], [2, 3, 2]])
E("x_ein_batched_ellipsis", "... i j, ... j k -> ... i k", [[2, 2, 3], [2, 3, 2]], tags=["ellipsis"])
E("x_ein_trace", "i i ->", [[3, 3]], tags=["trace", "scalar"])
E("x_ein_diag", "i i -> i", [[3, 3]], tags=["trace"])
E("x_ein_outer", "i, j -> i j", [[3], [4]])
E("x_ein_three_operands", "a b, b c, c d -> a d", [[2, 3], [3, 2], [2, 2]])
E("x_ein_sum_all", "a b ->", [[3, 4]], tags=["scalar"])
E("x_ein_transpose", "i j -> j i", [[3, 4]])
E("x_ein_parens_single_axis", "(a) b -> b a", [[2, 3]], note="a parenthesised single axis is accepted by einsum")
E("x_ein_underscore_axis", "_ b -> b", [[2, 3]], note="'_' is a valid axis name in einsum (allow_underscore)")
E("x_ein_ws_tight", "i j,j k->i k", [[2, 3], [3, 2]], tags=["whitespace"])

# ---------------------------------------------------------------- pack / unpack: valid
PK("x_pack_cls_patches", "b * d", [[2, 4], [2, 2, 2, 4]], tags=ATT + ["pack"], note="class token + 2d patch tokens")
PK("x_pack_last", "b c *", [[2, 3], [2, 3, 2], [2, 3, 2, 2]], tags=["pack"])
PK("x_pack_star_only", "*", [[2, 3], [4]], tags=["pack"], note="everything flattened and concatenated")
PK("x_pack_single", "b * c", [[2, 3, 2, 4]], tags=["pack"])
PK("x_pack_two_after", "a * b c", [[2, 2, 3], [2, 3, 2, 3]], tags=["pack"])
UP("x_unpack_cls_patches", "b * d", [2, 5, 4], [[], [2, 2]], tags=ATT + ["unpack"])
UP("x_unpack_last", "b c *", [2, 3, 7], [[], [2], [2, 2]], tags=["unpack"])
UP("x_unpack_star_only", "*", [10], [[2, 3], [4]], tags=["unpack"])
UP("x_unpack_minus1_first", "b * c", [2, 7, 2], [[-1], [2, 2]], tags=["unpack"], note="-1 is inferred (= 3)")
UP("x_unpack_minus1_last", "b * c", [2, 7, 2], [[3], [-1, 2]], tags=["unpack"], note="-1 is inferred (= 2)")
UP("x_unpack_single", "b * c", [2, 6, 4], [[2, 3]], tags=["unpack"])
UP("x_unpack_qkv", "b s *", [2, 3, 12], [[4], [4], [4]], tags=ATT + ["unpack", "qkv"],
   note="fused qkv projection split into q, k, v")

# ---------------------------------------------------------------- parse_shape: valid
PS("x_parse_shape_basic", "b c h w", [2, 3, 4, 5], tags=["parse_shape"])
PS("x_parse_shape_underscore", "_ c _ w", [2, 3, 4, 5], tags=["parse_shape"])
PS("x_parse_shape_ellipsis_front", "... h w", [2, 3, 4, 5], tags=["parse_shape", "ellipsis"])
PS("x_parse_shape_ellipsis_zero", "b ... c", [2, 3], tags=["parse_shape", "ellipsis", "zero_dims"])
PS("x_parse_shape_only_ellipsis", "...", [2, 3], tags=["parse_shape", "ellipsis"])
PS("x_parse_shape_unit", "b 1 c", [2, 1, 3], tags=["parse_shape", "anonymous"])
PS("x_parse_shape_parens_unit", "b () c", [2, 1, 3], tags=["parse_shape", "anonymous"])
PS("x_parse_shape_parens_single", "(b) c", [2, 3], tags=["parse_shape"], note="(b) is not a composite axis")
PS("x_parse_shape_0d", "", [], tags=["parse_shape", "scalar"])
PS("x_parse_shape_attention", "b h s d", [1, 2, 3, 4], tags=["parse_shape"] + ATT)

# ================================================================ errors
# rearrange_axes_one_side
R("x_err_rearr_one_side_disjoint", "a b -> c d", [[2, 3]], kind="rearrange_axes_one_side")
R("x_err_rearr_one_side_group", "a b c -> a (b d)", [[2, 3, 4]], kind="rearrange_axes_one_side")
R("x_err_rearr_one_side_head_typo", "b s (h d) -> b h s e", [[2, 3, 8]], {"h": 2}, kind="rearrange_axes_one_side",
  tags=ATT)
R("x_err_rearr_one_side_ellipsis_front", "... a -> a", [[2, 3]], kind="rearrange_axes_one_side", tags=["ellipsis"],
  note="the set printed holds the single unicode ellipsis character U+2026")
R("x_err_rearr_one_side_with_1", "a 1 -> a b", [[2, 1]], kind="rearrange_axes_one_side", tags=["anonymous"])
# duplicate_axis
R("x_err_rearr_dup_left", "a a -> a", [[3, 3]], kind="duplicate_axis")
R("x_err_rearr_dup_right", "a b -> a b a", [[2, 3]], kind="duplicate_axis")
R("x_err_rearr_dup_in_group_left", "(a a) b -> a b", [[4, 3]], kind="duplicate_axis")
R("x_err_rearr_dup_in_group_right", "a b -> (a b a)", [[2, 3]], kind="duplicate_axis")
R("x_err_rearr_dup_across_group", "a (b a) -> a b", [[2, 6]], kind="duplicate_axis")
R("x_err_rearr_dup_precedence", "a a -> b b", [[3, 3]], kind="duplicate_axis",
  note="left side is parsed first")
D("x_err_red_dup_left", "a a -> a", "sum", [[3, 3]], kind="duplicate_axis")
P("x_err_rep_dup_right", "a -> a r r", [[2]], {"r": 2}, kind="duplicate_axis")
E("x_err_ein_dup_right", "i j -> i i", [[3, 3]], kind="duplicate_axis",
  note="einsum allows duplicates on the left only")
PS("x_err_parse_shape_dup", "a a", [2, 3], kind="duplicate_axis")
# not_divisible
R("x_err_rearr_not_div_split", "(a b) c -> a b c", [[6, 2]], {"a": 4}, kind="not_divisible")
R("x_err_rearr_not_div_heads", "b s (h d) -> b h s d", [[2, 3, 8]], {"h": 3}, kind="not_divisible", tags=ATT)
R("x_err_rearr_not_div_qkv", "b s (three h d) -> three b h s d", [[1, 2, 16]], {"three": 3, "h": 2},
  kind="not_divisible", tags=ATT + ["qkv"])
D("x_err_red_not_div_pool", "b (h 2) -> b h", "max", [[2, 5]], kind="not_divisible", tags=["pooling", "anonymous"])
P("x_err_rep_not_div_gqa", "b (g r) s -> b (g r r2) s", [[1, 5, 2]], {"g": 2, "r2": 2}, kind="not_divisible",
  tags=ATT + ["gqa"])
# cannot_infer
R("x_err_rearr_cannot_infer_2", "(a b) c -> a b c", [[6, 2]], kind="cannot_infer")
R("x_err_rearr_cannot_infer_heads", "b s (h d) -> b h s d", [[2, 3, 8]], kind="cannot_infer", tags=ATT)
D("x_err_red_cannot_infer", "(a b) c -> c", "sum", [[6, 2]], kind="cannot_infer")
P("x_err_rep_cannot_infer", "(a b) -> a b r", [[6]], {"r": 2}, kind="cannot_infer")
R("x_err_rearr_infer_before_mismatch", "(a b) (c d) -> a b c d", [[6, 4]], {"a": 5}, kind="cannot_infer",
  note="'Could not infer' (recipe) is raised before the divisibility check of the first axis")
# wrong_ndim
R("x_err_rearr_ndim_0d", "a -> a", [[]], kind="wrong_ndim", tags=["scalar"])
D("x_err_red_ndim", "a b c -> a", "sum", [[3, 4]], kind="wrong_ndim")
P("x_err_rep_ndim", "h w -> h w c", [[2, 3, 4]], {"c": 2}, kind="wrong_ndim")
R("x_err_rearr_ndim_list", "a b -> b a", [[3, 4], [3, 4]], list_input=True, kind="wrong_ndim", tags=["list"],
  note="list input: the message shows the stacked shape (2, 3, 4), not 'Input is list'")
R("x_err_rearr_ndim_before_kw", "a b -> b a", [[2, 3, 4]], {"_x": 1}, kind="wrong_ndim",
  note="number of dims is checked before the names in axes_lengths")
# wrong_ndim_ellipsis
R("x_err_rearr_ndim_ellipsis", "a b c ... -> ... a b c", [[2, 3]], kind="wrong_ndim_ellipsis", tags=["ellipsis"])
D("x_err_red_ndim_ellipsis", "b ... c d -> b", "sum", [[2, 3]], kind="wrong_ndim_ellipsis", tags=["ellipsis"])
R("x_err_rearr_ndim_ellipsis_0d", "a ... -> ... a", [[]], kind="wrong_ndim_ellipsis", tags=["ellipsis", "scalar"])
# length_mismatch
R("x_err_rearr_len_plain", "a b -> b a", [[3, 4]], {"a": 5}, kind="length_mismatch")
R("x_err_rearr_len_heads_both", "b s (h d) -> b h s d", [[2, 3, 8]], {"h": 2, "d": 3}, kind="length_mismatch",
  tags=ATT)
P("x_err_rep_len_given", "h w -> h w c", [[3, 4]], {"h": 2, "c": 2}, kind="length_mismatch")
R("x_err_rearr_len_parens", "a () -> a", [[3, 2]], kind="length_mismatch", tags=["anonymous"],
  note="() must match an axis of length 1")
R("x_err_rearr_len_one", "a 1 -> a", [[3, 2]], kind="length_mismatch", tags=["anonymous"])
R("x_err_rearr_len_one_in_parens", "a (1) -> a", [[3, 2]], kind="length_mismatch", tags=["anonymous"])
R("x_err_rearr_len_first_axis_first", "a b -> a b", [[3, 4]], {"a": 5, "b": 7}, kind="length_mismatch",
  note="input axes are checked left to right")
D("x_err_red_len_pool_anon", "b (h 2) -> b", "sum", [[2, 4]], {"h": 3}, kind="length_mismatch",
  tags=["anonymous"])
# unused_axis_length
R("x_err_rearr_unused", "a b -> b a", [[2, 3]], {"c": 2}, kind="unused_axis_length")
P("x_err_rep_unused", "h w -> h w c", [[2, 3]], {"c": 2, "d": 3}, kind="unused_axis_length")
D("x_err_red_unused", "a b -> a", "sum", [[3, 4]], {"b": 4, "z": 1}, kind="unused_axis_length")
R("x_err_rearr_unused_before_infer", "(a b) c -> a b c", [[6, 2]], {"d": 2}, kind="unused_axis_length",
  note="unused axis length is reported before 'Could not infer sizes'")
R("x_err_rearr_unused_ellipsis", "... -> ...", [[2, 3]], {"a": 2}, kind="unused_axis_length", tags=["ellipsis"])
R("x_err_rearr_unused_before_invalid", "a b -> b a", [[2, 3]], {"z": 2, "_x": 3}, kind="unused_axis_length",
  note="axes_lengths are checked in the order given: z (unused) before _x (invalid)")
# ellipsis_right_only
R("x_err_rearr_ell_right_only", "a b -> a b ...", [[2, 3]], kind="ellipsis_right_only", tags=["ellipsis"])
D("x_err_red_ell_right_only", "a b -> ...", "sum", [[2, 3]], kind="ellipsis_right_only", tags=["ellipsis"])
P("x_err_rep_ell_right_only", "a -> a ... r", [[2]], {"r": 2}, kind="ellipsis_right_only", tags=["ellipsis"])
R("x_err_rearr_ell_right_only_group", "a b -> (a b ...)", [[2, 3, 4]], kind="ellipsis_right_only",
  tags=["ellipsis"], note="reported before the wrong number of dims")
# ellipsis_parenthesized_left
R("x_err_rearr_ell_paren_left_front", "(... a) b -> a b ...", [[6, 2]], kind="ellipsis_parenthesized_left",
  tags=["ellipsis"])
D("x_err_red_ell_paren_left", "(...) -> ", "sum", [[6]], kind="ellipsis_parenthesized_left", tags=["ellipsis"])
P("x_err_rep_ell_paren_left", "(a ...) -> a ... r", [[6]], {"r": 2}, kind="ellipsis_parenthesized_left",
  tags=["ellipsis"])
# ellipsis_multiple
R("x_err_rearr_ell_multiple_left", "... a ... -> a", [[2, 3, 4]], kind="ellipsis_multiple", tags=["ellipsis"])
R("x_err_rearr_ell_multiple_right", "... a -> ... a ...", [[2, 3]], kind="ellipsis_multiple", tags=["ellipsis"])
R("x_err_rearr_ell_six_dots", "...... -> ...", [[2, 3]], kind="ellipsis_multiple", tags=["ellipsis"])
R("x_err_rearr_ell_multiple_before_char", "a! ... ... -> a", [[2, 3]], kind="ellipsis_multiple",
  tags=["ellipsis"], note="the dots check runs before the character scan")
PS("x_err_parse_shape_ell_multiple", "... a ...", [2, 3], kind="ellipsis_multiple", tags=["ellipsis"])
# bad_dots
R("x_err_rearr_single_dot", "a . b -> a b", [[2, 3]], kind="bad_dots")
R("x_err_rearr_two_dots", "a .. -> a", [[2, 3]], kind="bad_dots")
R("x_err_rearr_four_dots", "a .... -> a ....", [[2, 3]], kind="bad_dots",
  note="one '...' plus a stray dot: gives the 'only one ellipsis for tensor' message")
R("x_err_rearr_dot_in_name", "a.b c -> c a.b", [[2, 3]], kind="bad_dots")
E("x_err_ein_bad_dots", "a.b -> a", [[2, 3]], kind="bad_dots")
# nested_parens
R("x_err_rearr_nested_left", "((a b) c) -> a b c", [[12]], kind="nested_parens")
R("x_err_rearr_nested_right", "a b c -> ((a b) c)", [[2, 3, 2]], kind="nested_parens")
D("x_err_red_nested", "(a (b)) -> a", "sum", [[6]], kind="nested_parens")
E("x_err_ein_nested", "((a)) b -> a", [[2, 3]], kind="nested_parens")
# unbalanced_parens
R("x_err_rearr_close_unopened", "a b) -> a b", [[2, 3]], kind="unbalanced_parens")
R("x_err_rearr_close_unopened_right", "a b -> a b)", [[2, 3]], kind="unbalanced_parens")
R("x_err_rearr_unclosed_left", "(a b -> a b", [[6]], kind="unbalanced_parens",
  note="the message quotes the left side only, with its trailing space")
R("x_err_rearr_unclosed_right", "a b -> (a b", [[2, 3]], kind="unbalanced_parens",
  note="the message quotes the right side only, with its leading space")
R("x_err_rearr_unclosed_ellipsis", "(... a -> a", [[6]], kind="unbalanced_parens", tags=["ellipsis"],
  note="the quoted expression shows '...' already replaced by the unicode ellipsis U+2026")
D("x_err_red_unbalanced", ")a( -> a", "sum", [[2]], kind="unbalanced_parens")
PS("x_err_parse_shape_unclosed", "(a b", [2, 3], kind="unbalanced_parens")
# invalid_axis_name: pattern form
R("x_err_rearr_name_digit_first", "1a b -> b 1a", [[2, 3]], kind="invalid_axis_name",
  note="reason: not a valid python identifier")
R("x_err_rearr_name_leading_underscore", "_a b -> b _a", [[2, 3]], kind="invalid_axis_name",
  note="reason: underscore (einops's message says 'should should')")
R("x_err_rearr_name_trailing_underscore", "a_ b -> b a_", [[2, 3]], kind="invalid_axis_name")
R("x_err_rearr_name_lone_underscore", "_ b -> b _", [[2, 3]], kind="invalid_axis_name",
  note="'_' is only allowed in parse_shape and einsum")
R("x_err_rearr_name_ellipsis_glued", "...h w -> ...w h", [[2, 3, 4]], kind="invalid_axis_name",
  tags=["ellipsis"], note="'...h' becomes the identifier '\u2026h', not ellipsis + h")
R("x_err_rearr_name_ellipsis_glued_both", "b...c -> b c ...", [[2, 3, 4]], kind="invalid_axis_name",
  tags=["ellipsis", "whitespace"], note="'b...c' is one identifier 'b\u2026c', not b + ellipsis + c")
D("x_err_red_name_dunder", "a __b -> a", "sum", [[2, 3]], kind="invalid_axis_name")
E("x_err_ein_name_leading_underscore", "_a b -> b", [[2, 3]], kind="invalid_axis_name")
PS("x_err_parse_shape_name", "_a b", [2, 3], kind="invalid_axis_name")
# invalid_axis_name: axes_lengths form
R("x_err_rearr_kw_leading_underscore", "a (b c) -> a b c", [[2, 6]], {"_b": 2}, kind="invalid_axis_name",
  note="EinopsError raised with two arguments: its text is a tuple repr")
R("x_err_rearr_kw_not_identifier", "a b -> b a", [[2, 3]], {"1x": 2}, kind="invalid_axis_name")
P("x_err_rep_kw_trailing_underscore", "h w -> h w c", [[2, 3]], {"c": 2, "c_": 2}, kind="invalid_axis_name")
R("x_err_rearr_kw_lone_underscore", "a b -> b a", [[2, 3]], {"_": 2}, kind="invalid_axis_name")
# unknown_character
R("x_err_rearr_char_tab", "a\tb -> b a", [[2, 3]], kind="unknown_character", tags=["whitespace"],
  note="only the space counts as whitespace; the message holds a raw tab")
R("x_err_rearr_char_comma", "a, b -> b a", [[2, 3]], kind="unknown_character")
R("x_err_rearr_char_minus", "a -1 -> a", [[2, 3]], kind="unknown_character",
  note="negative anonymous axes cannot be written: '-' is unknown")
R("x_err_rearr_char_star", "a * -> a", [[2, 3]], kind="unknown_character")
R("x_err_rearr_char_newline", "a\nb -> b a", [[2, 3]], kind="unknown_character", tags=["whitespace"])
D("x_err_red_char_semicolon", "a b -> a;", "sum", [[2, 3]], kind="unknown_character")
P("x_err_rep_char_bracket", "a -> [a r]", [[2]], {"r": 2}, kind="unknown_character")
PS("x_err_parse_shape_arrow", "a -> a", [2], kind="unknown_character")
# anonymous_axis_nonpositive
D("x_err_red_anon_zero", "a 0 -> a", "sum", [[2, 3]], kind="anonymous_axis_nonpositive")
P("x_err_rep_anon_zero", "a -> a 0", [[2]], kind="anonymous_axis_nonpositive")
R("x_err_rearr_anon_zero_group", "(a 0) -> a", [[2]], kind="anonymous_axis_nonpositive")
R("x_err_rearr_anon_double_zero", "a 00 -> a", [[2, 3]], kind="anonymous_axis_nonpositive")
E("x_err_ein_anon_zero", "a 0 -> a", [[2, 3]], kind="anonymous_axis_nonpositive")
PS("x_err_parse_shape_anon_zero", "a 0", [2, 3], kind="anonymous_axis_nonpositive")
# rearrange_anonymous_axis
R("x_err_rearr_anon_right", "a b -> a 2 b", [[2, 3]], kind="rearrange_anonymous_axis")
R("x_err_rearr_anon_right_group", "a b -> (a 2) b", [[2, 3]], kind="rearrange_anonymous_axis")
R("x_err_rearr_anon_precedence", "a 2 -> b", [[3, 2]], kind="rearrange_anonymous_axis",
  note="reported before the identifiers on one side")
R("x_err_rearr_anon_both_same", "a 3 -> a 3", [[2, 3]], kind="rearrange_anonymous_axis",
  note="looks like an identity, still rejected")
# repeat_missing_size
P("x_err_rep_missing", "h w -> h w c", [[2, 3]], kind="repeat_missing_size")
P("x_err_rep_missing_two", "h -> b h c", [[2]], kind="repeat_missing_size")
P("x_err_rep_missing_before_unused", "a -> a b", [[2]], {"z": 2}, kind="repeat_missing_size",
  note="missing size reported before the unused z")
P("x_err_rep_missing_gqa", "b g s d -> b (g r) s d", [[1, 2, 3, 2]], kind="repeat_missing_size",
  tags=ATT + ["gqa"])
# repeat_left_axis_missing
P("x_err_rep_left_missing", "h w -> h", [[2, 3]], kind="repeat_left_axis_missing")
P("x_err_rep_left_missing_two", "a b c -> a", [[2, 3, 4]], kind="repeat_left_axis_missing")
P("x_err_rep_left_ellipsis", "... h -> h", [[2, 3]], kind="repeat_left_axis_missing", tags=["ellipsis"])
P("x_err_rep_left_anon_same", "a 2 -> a 2", [[3, 2]], kind="repeat_left_axis_missing", tags=["anonymous"],
  note="anonymous axes never match each other: the left 2 counts as missing on the right")
# reduce_unknown_right
D("x_err_red_unknown_right", "a b -> a c", "sum", [[2, 3]], kind="reduce_unknown_right")
D("x_err_red_unknown_right_two", "a -> a b c", "max", [[2]], kind="reduce_unknown_right")
D("x_err_red_unknown_right_ellipsis", "... a -> ... a b", "mean", [[2, 3]], kind="reduce_unknown_right",
  tags=["ellipsis"])
D("x_err_red_anon_same", "a 2 -> a 2", "sum", [[3, 2]], kind="reduce_unknown_right", tags=["anonymous"],
  note="anonymous axes never match each other")
# unknown_reduction
D("x_err_red_median", "a b -> a", "median", [[2, 3]], kind="unknown_reduction")
D("x_err_red_median_precedence", "a b c -> a", "median", [[3, 4]], kind="unknown_reduction",
  note="unknown reduction is reported before the wrong number of dims")
# no_arrow
R("x_err_rearr_no_arrow", "a b c", [[2, 3, 4]], kind="no_arrow", note="NOT an EinopsError: raw ValueError")
R("x_err_rearr_empty_pattern", "", [[2, 3]], kind="no_arrow", note="NOT an EinopsError: raw ValueError")
R("x_err_rearr_fat_arrow", "a b => b a", [[2, 3]], kind="no_arrow", note="NOT an EinopsError: raw ValueError")
D("x_err_red_no_arrow", "a b", "sum", [[2, 3]], kind="no_arrow", note="NOT an EinopsError: raw ValueError")
D("x_err_red_two_arrows", "a b -> a -> ", "sum", [[2, 3]], kind="no_arrow",
  note="NOT an EinopsError: raw ValueError")
P("x_err_rep_two_arrows", "a -> a -> a", [[2]], kind="no_arrow", note="NOT an EinopsError: raw ValueError")
E("x_err_ein_two_arrows", "a -> a -> a", [[2]], kind="no_arrow", note="NOT an EinopsError: raw ValueError")
# pack_*
PK("x_err_pack_duplicate", "b b *", [[2, 2, 3]], kind="pack_duplicate_axis")
PK("x_err_pack_two_stars", "* *", [[2, 3]], kind="pack_duplicate_axis", note="two stars count as duplicates")
PK("x_err_pack_no_star", "b c", [[2, 3]], kind="pack_no_star")
PK("x_err_pack_name_digit", "1b *", [[2, 3]], kind="pack_invalid_name")
PK("x_err_pack_name_parens", "(b) *", [[2, 3]], kind="pack_invalid_name", note="pack patterns take no parentheses")
PK("x_err_pack_name_ellipsis", "b ... *", [[2, 3]], kind="pack_invalid_name", note="pack patterns take no ellipsis")
PK("x_err_pack_too_few_dims", "b * c", [[2, 3], [2]], kind="pack_too_few_dims")
PK("x_err_pack_shape_mismatch", "b * c", [[2, 3], [2, 2, 4]], kind="pack_shape_mismatch",
   note="raised by numpy.concatenate: the message is numpy's, compare the kind only")
PK("x_err_pack_empty", "b *", [], kind="pack_empty", note="raw IndexError from tensors[0]")
# unpack_*
UP("x_err_unpack_wrong_ndim", "b * c", [2, 10], [[3], [7]], kind="unpack_wrong_ndim",
   note="this message prints the pattern without quotes")
UP("x_err_unpack_wrong_ndim_star", "*", [2, 3], [[2], [4]], kind="unpack_wrong_ndim")
UP("x_err_unpack_two_unknown", "b * c", [2, 10, 4], [[-1], [-1]], kind="unpack_multiple_unknown")
UP("x_err_unpack_cannot_split", "b * c", [2, 10, 4], [[3], [2, 2]], kind="unpack_cannot_split")
UP("x_err_unpack_minus1_not_divisible", "b * c", [2, 10, 4], [[3], [-1, 2]], kind="unpack_cannot_split")
UP("x_err_unpack_too_long", "* c", [6, 3], [[4], [4]], kind="unpack_cannot_split")
UP("x_err_unpack_no_star", "b c", [2, 3], [[3]], kind="unpack_no_star")
UP("x_err_unpack_duplicate", "b * b", [2, 3, 2], [[3]], kind="unpack_duplicate_axis")
UP("x_err_unpack_name", "_b * c", [2, 3, 2], [[3]], kind="unpack_invalid_name")
# einsum_*
E("x_err_ein_no_arrow_two_inputs", "a b, b c", [[2, 3], [3, 2]], kind="einsum_no_arrow")
E("x_err_ein_singleton_parens", "a () -> a", [[2, 1]], kind="einsum_singleton")
E("x_err_ein_singleton_one", "a 1 -> a", [[2, 1]], kind="einsum_singleton", note="'1' is parsed as ()")
E("x_err_ein_anonymous", "a 2 -> a", [[3, 2]], kind="einsum_anonymous")
E("x_err_ein_composition_right", "a b -> (a b)", [[2, 3]], kind="einsum_composition")
E("x_err_ein_unknown_right", "a b -> c", [[2, 3]], kind="einsum_unknown_right_axis")
E("x_err_ein_pattern_only", "a -> a", [], kind="einsum_too_few_args", call="pattern_only",
  note="einsum(pattern) with no tensor")
E("x_err_ein_pattern_first", "a b -> b", [[2, 3]], kind="einsum_pattern_not_last", call="pattern_first",
  tags=["pattern_first"], note="called as einsum(pattern, x): the pattern must come last")
E("x_err_ein_operand_count", "a b, b c -> a c", [[2, 3]], kind="einsum_operand_count",
  note="raised by numpy.einsum: the message is numpy's, compare the kind only")
# parse_shape_*
PS("x_err_parse_shape_composite", "a (b c)", [2, 12], kind="parse_shape_composite")
PS("x_err_parse_shape_ndim_more", "a b c", [2, 3], kind="parse_shape_ndim")
PS("x_err_parse_shape_ellipsis_ndim", "a b ... c", [2, 3], kind="parse_shape_ellipsis_ndim", tags=["ellipsis"])
PS("x_err_parse_shape_unit", "a 1", [2, 3], kind="parse_shape_unit_axis")
PS("x_err_parse_shape_unit_parens", "() a", [2, 3], kind="parse_shape_unit_axis")
PS("x_err_parse_shape_anon_mismatch", "a 2", [2, 3], kind="parse_shape_anonymous_mismatch")
# mean_non_float
D("x_err_red_mean_int", "a b c -> a c", "mean", [[2, 3, 2]], formula="int_arange", kind="mean_non_float",
  note="NotImplementedError, not wrapped")
D("x_err_red_mean_bool", "a b -> b", "mean", [[2, 3]], formula="bool_mod3", kind="mean_non_float",
  note="bool counts as non-float")
# a surprising valid one next to them: nothing is reduced, so mean of an int tensor works
D("x_red_mean_int_no_reduction", "a b -> b a", "mean", [[2, 3]], formula="int_arange", tags=["int_dtype"],
  note="mean of an int tensor is accepted when no axis is reduced (pure transpose); output stays int64")


# --------------------------------------------------------------------------- running


def run_op(c, inputs):
    op, pattern, axes = c["op"], c["pattern"], c["axes"]
    x = inputs if c["list_input"] else (inputs[0] if inputs else None)
    if op == "rearrange":
        return einops.rearrange(x, pattern, **axes)
    if op == "reduce":
        return einops.reduce(x, pattern, c["reduction"], **axes)
    if op == "repeat":
        return einops.repeat(x, pattern, **axes)
    if op == "einsum":
        if c["call"] == "pattern_only":
            return einops.einsum(pattern)
        if c["call"] == "pattern_first":
            return einops.einsum(pattern, *inputs)
        return einops.einsum(*inputs, pattern)
    if op == "pack":
        return einops.pack(inputs, pattern)
    if op == "unpack":
        return einops.unpack(x, c["packed_shapes"], pattern)
    if op == "parse_shape":
        return einops.parse_shape(x, pattern)
    raise SystemExit(f"unknown op {op}")


def dtype_name(a):
    if a.dtype == np.bool_:
        return "bool"
    return str(a.dtype)


def values_of(a):
    a = np.ascontiguousarray(a)
    out = []
    for v in a.ravel().tolist():  # tolist: float32 -> exact python float, bool -> bool, int64 -> int
        out.append(float(v) if isinstance(v, float) else v)
    return out


SET_AT_END = re.compile(r"\{([^{}]*)\}$")
QUOTED = re.compile(r"^'([^']*)'$")


def set_axes(core):
    m = SET_AT_END.search(core)
    if not m:
        return None
    names = []
    for part in m.group(1).split(", "):
        q = QUOTED.match(part)
        if not q:
            return None  # e.g. {2-axis}: anonymous axes are printed without quotes
        names.append(q.group(1))
    return sorted(names)


def record_error(c, rec, e, inputs):
    msg = str(e)
    wrapped = False
    core = msg
    if isinstance(e, EinopsError) and c["op"] in ("rearrange", "reduce", "repeat") and \
            msg.startswith(" Error while processing "):
        red = c["reduction"] if c["op"] == "reduce" else c["op"]
        x = np.stack(inputs) if c["list_input"] else inputs[0]
        prefix = (f' Error while processing {red}-reduction pattern "{c["pattern"]}".\n'
                  f" Input tensor shape: {tuple(x.shape)}. Additional info: {c['axes']}.\n ")
        if not msg.startswith(prefix):
            raise SystemExit(f"{c['id']}: wrapped message does not follow the README form:\n{msg!r}\n{prefix!r}")
        wrapped = True
        core = msg[len(prefix):]
    rec["error_kind"] = c["kind"]
    rec["error_type"] = type(e).__name__
    rec["error_message"] = msg
    rec["error_core"] = core
    rec["error_wrapped"] = wrapped
    axes = set_axes(core)
    if axes is not None:
        rec["error_axes"] = axes


def record_ok(c, rec, result):
    op = c["op"]
    if op == "pack":
        packed, ps = result
        packed = np.asarray(packed)
        rec["output_shape"] = list(packed.shape)
        rec["output_dtype"] = dtype_name(packed)
        rec["output"] = values_of(packed)
        rec["packed_shapes_out"] = [list(s) for s in ps]
    elif op == "unpack":
        rec["outputs"] = [{"shape": list(np.asarray(t).shape), "dtype": dtype_name(np.asarray(t)),
                           "values": values_of(np.asarray(t))} for t in result]
    elif op == "parse_shape":
        rec["parse_shape_result"] = {k: int(v) for k, v in result.items()}
    else:
        out = np.asarray(result)
        rec["output_shape"] = list(out.shape)
        rec["output_dtype"] = dtype_name(out)
        rec["output"] = values_of(out)


def build(c):
    shapes = [list(s) for s in c["shapes"]]
    inputs = [make_input(s, c["formula"], k) for k, s in enumerate(shapes)]
    rec = {
        "id": c["id"],
        "op": c["op"],
        "pattern": c["pattern"],
        "reduction": c["reduction"],
        "input_shapes": shapes,
        "input_formula": c["formula"],
        "axes_lengths": dict(c["axes"]),
    }
    if c["list_input"]:
        rec["list_input"] = True
    if c["packed_shapes"] is not None:
        rec["packed_shapes"] = c["packed_shapes"]
    if c["tags"]:
        rec["tags"] = list(c["tags"])
    note = c["note"]

    result, error = None, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = run_op(c, inputs)
        except Exception as e:  # noqa: BLE001 - we record whatever einops raises
            error = e
    warned = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    if warned:
        extra = "einops warns " + "; ".join(warned)
        note = f"{note}; {extra}" if note else extra
    if note:
        rec["note"] = note

    if c["kind"] is None:
        if error is not None:
            raise SystemExit(f"{c['id']}: expected success, einops raised {type(error).__name__}: {error}")
        rec["expect"] = "ok"
        record_ok(c, rec, result)
    else:
        if error is None:
            raise SystemExit(f"{c['id']}: expected an error of kind {c['kind']}, einops succeeded")
        rec["expect"] = "error"
        record_error(c, rec, error, inputs)
    return rec


def case_key(r):
    return json.dumps([r["op"], r["pattern"], r.get("reduction"), r["input_shapes"], r["input_formula"],
                       r.get("axes_lengths", {}), bool(r.get("list_input")), r.get("packed_shapes")],
                      sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--existing", default=DEFAULT_EXISTING,
                    help="recorded cases whose ids and cases must not be repeated (skipped if missing)")
    args = ap.parse_args()
    if einops.__version__ != "0.8.2":
        print(f"warning: recording with einops {einops.__version__}; this file is meant to be made with 0.8.2",
              file=sys.stderr)

    ids = [c["id"] for c in CASES]
    dup_ids = [i for i, n in collections.Counter(ids).items() if n > 1]
    if dup_ids:
        raise SystemExit(f"duplicate ids: {dup_ids}")
    bad = [i for i in ids if not i.startswith("x_")]
    if bad:
        raise SystemExit(f"ids without the x_ prefix: {bad}")
    for c in CASES:
        if c["op"] == "reduce" and c["reduction"] not in REDUCTIONS:
            raise SystemExit(f"{c['id']}: reduction {c['reduction']} not in the README's list")

    records = [build(c) for c in CASES]

    seen = {}
    for r in records:
        k = case_key(r)
        if k in seen:
            raise SystemExit(f"{r['id']} repeats {seen[k]}")
        seen[k] = r["id"]
    if os.path.exists(args.existing):
        with open(args.existing, encoding="utf-8") as f:
            old = [json.loads(line) for line in f if line.strip()]
        old_ids = {r["id"] for r in old}
        clash = sorted(old_ids & set(ids))
        if clash:
            raise SystemExit(f"ids already used in {args.existing}: {clash}")
        for r in old:
            if r["op"] == "_meta":
                continue
            if case_key(r) in seen:
                raise SystemExit(f"{seen[case_key(r)]} repeats the existing case {r['id']}")
    else:
        print(f"note: {args.existing} not found, collision check skipped", file=sys.stderr)

    n_valid = sum(r["expect"] == "ok" for r in records)
    n_error = sum(r["expect"] == "error" for r in records)
    meta = {
        "id": "_meta",
        "op": "_meta",
        "einops_version": einops.__version__,
        "einops_commit": None,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "n_valid": n_valid,
        "n_error": n_error,
        "formulas": dict(FORMULAS),
        "int_arange": INT_ARANGE,
    }

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        for r in [meta] + records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, args.out)

    by_op = collections.Counter((r["op"], r["expect"]) for r in records)
    by_kind = collections.Counter(r["error_kind"] for r in records if r["expect"] == "error")
    print(f"wrote {len(records)} cases ({n_valid} ok, {n_error} error) to {args.out}")
    print(f"einops {einops.__version__}, numpy {np.__version__}, python {platform.python_version()}")
    print("by (op, expect):")
    for (op, ex), n in sorted(by_op.items()):
        print(f"  {op:12s} {ex:6s} {n:4d}")
    print("by error_kind:")
    for kind, n in sorted(by_kind.items()):
        print(f"  {kind:32s} {n:4d}")


if __name__ == "__main__":
    main()
