"""Fused attention contrib ops GluonNLP's transformers call when hybridized:
interleaved_matmul_selfatt_qk / _selfatt_valatt / _encdec_qk / _encdec_valatt.

The projections arrive interleaved per head: self-attention input is (seq, batch,
heads * 3 * head_dim) laid out as (heads, [q, k, v], head_dim); encoder-decoder keys/values are
(seq, batch, heads * 2 * head_dim). Scores are (batch * heads, query_len, key_len) with the
queries scaled by 1/sqrt(head_dim), exactly as MXNet's kernels (checked against them).
"""

import math

import numpy as np

from ..registry import Param, ShapeError, p_int, register
from ._util import fmt_shape


def _heads_split(x, heads, parts, what):
    """(seq, batch, heads*parts*d) -> (parts, batch*heads, seq, d)."""
    if x.ndim != 3 or x.shape[2] % (heads * parts):
        raise ShapeError(
            "{}: input {} must be 3-D (seq, batch, heads*{}*head_dim) with heads={}".format(
                what, fmt_shape(x.shape), parts, heads
            )
        )
    seq, batch, width = x.shape
    d = width // (heads * parts)
    t = x.reshape(seq, batch, heads, parts, d)
    return t.transpose(3, 1, 2, 0, 4).reshape(parts, batch * heads, seq, d)


def _merge_heads(o, heads):
    """(batch*heads, seq, d) -> (seq, batch, heads*d)."""
    bh, seq, d = o.shape
    return np.ascontiguousarray(
        o.reshape(bh // heads, heads, seq, d)
        .transpose(2, 0, 1, 3)
        .reshape(seq, bh // heads, heads * d)
    )


def selfatt_qk(attrs, qkv):
    """Scores q.k^T / sqrt(head_dim) of interleaved self-attention projections."""
    q, k, _ = _heads_split(qkv, attrs.heads, 3, "interleaved_matmul_selfatt_qk")
    scale = qkv.dtype.type(1.0 / math.sqrt(q.shape[-1]))
    return np.matmul(q * scale, np.swapaxes(k, -1, -2))


def selfatt_valatt(attrs, qkv, att):
    """attention @ v, heads merged back to (seq, batch, heads*head_dim)."""
    _, _, v = _heads_split(qkv, attrs.heads, 3, "interleaved_matmul_selfatt_valatt")
    if att.shape != (v.shape[0], v.shape[1], v.shape[1]):
        raise ShapeError(
            "interleaved_matmul_selfatt_valatt: attention {} must be {}".format(
                fmt_shape(att.shape), fmt_shape((v.shape[0], v.shape[1], v.shape[1]))
            )
        )
    return _merge_heads(np.matmul(att, v), attrs.heads)


def encdec_qk(attrs, queries, kv):
    """Scores of decoder queries (seq_q, batch, heads*d) against interleaved encoder keys."""
    (q,) = _heads_split(queries, attrs.heads, 1, "interleaved_matmul_encdec_qk")
    k, _ = _heads_split(kv, attrs.heads, 2, "interleaved_matmul_encdec_qk")
    if k.shape[0] != q.shape[0] or k.shape[-1] != q.shape[-1]:
        raise ShapeError(
            "interleaved_matmul_encdec_qk: queries {} and keys_values {} do not match".format(
                fmt_shape(queries.shape), fmt_shape(kv.shape)
            )
        )
    scale = queries.dtype.type(1.0 / math.sqrt(q.shape[-1]))
    return np.matmul(q * scale, np.swapaxes(k, -1, -2))


def encdec_valatt(attrs, kv, att):
    """attention @ encoder values, heads merged back to (seq_q, batch, heads*head_dim)."""
    _, v = _heads_split(kv, attrs.heads, 2, "interleaved_matmul_encdec_valatt")
    if att.ndim != 3 or att.shape[0] != v.shape[0] or att.shape[2] != v.shape[1]:
        raise ShapeError(
            "interleaved_matmul_encdec_valatt: attention {} does not match keys_values {}".format(
                fmt_shape(att.shape), fmt_shape(kv.shape)
            )
        )
    return _merge_heads(np.matmul(att, v), attrs.heads)


def _split_shape(s, heads, parts):
    if s is None:
        return None
    if len(s) != 3 or (s[2] and s[2] % (heads * parts)):
        raise ShapeError(
            "input {} must be 3-D (seq, batch, heads*{}*head_dim) with heads={}".format(
                fmt_shape(s), parts, heads
            )
        )
    return s[0], s[1], s[2] // (heads * parts)


def _qk_shape(attrs, in_shapes):
    g = _split_shape(in_shapes[0], attrs.heads, 3)
    return in_shapes, [None if g is None else (g[1] * attrs.heads, g[0], g[0])]


def _valatt_shape(attrs, in_shapes):
    g = _split_shape(in_shapes[0], attrs.heads, 3)
    return in_shapes, [None if g is None else (g[0], g[1], attrs.heads * g[2])]


def _encdec_qk_shape(attrs, in_shapes):
    q = _split_shape(in_shapes[0], attrs.heads, 1)
    k = _split_shape(in_shapes[1], attrs.heads, 2)
    if q is None or k is None:
        return in_shapes, [None]
    return in_shapes, [(q[1] * attrs.heads, q[0], k[0])]


def _encdec_valatt_shape(attrs, in_shapes):
    k = _split_shape(in_shapes[0], attrs.heads, 2)
    att = in_shapes[1]
    if k is None or att is None:
        return in_shapes, [None]
    return in_shapes, [(att[1], k[1], attrs.heads * k[2])]


_HEADS = {"heads": Param(p_int)}
register(
    "_contrib_interleaved_matmul_selfatt_qk",
    inputs=("queries_keys_values",),
    params=dict(_HEADS),
    infer_shape=_qk_shape,
)(selfatt_qk)
register(
    "_contrib_interleaved_matmul_selfatt_valatt",
    inputs=("queries_keys_values", "attention"),
    params=dict(_HEADS),
    infer_shape=_valatt_shape,
)(selfatt_valatt)
register(
    "_contrib_interleaved_matmul_encdec_qk",
    inputs=("queries", "keys_values"),
    params=dict(_HEADS),
    infer_shape=_encdec_qk_shape,
)(encdec_qk)
register(
    "_contrib_interleaved_matmul_encdec_valatt",
    inputs=("keys_values", "attention"),
    params=dict(_HEADS),
    infer_shape=_encdec_valatt_shape,
)(encdec_valatt)
