"""A fix that deletes a statement keeps the comment lines above it (blind round 13: the HL001
fix of an UpsampleConvLayer deleted `h = x.shape[2] * 2` and the three comment lines the
author had written above it). The comments move to the next statement kept, or stay at the end
of the block when the deleted statement was its last."""

import libcst as cst

from hybridlint.linter import _Replacer, fix_source

UPSAMPLE = """\
from mxnet.gluon import nn


class Up(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        # upsample by two
        # (bilinear)
        h = x.shape[2] * 2
        w = x.shape[3] * 2
        x = F.contrib.BilinearResize2D(x, height=h, width=w)
        return x
"""


def test_the_comments_above_a_deleted_binding_stay():
    fixed = fix_source(UPSAMPLE).source
    assert "x.shape" not in fixed
    assert (
        "        # upsample by two\n        # (bilinear)\n"
        "        x = F.contrib.BilinearResize2D(x, scale_height=2, scale_width=2)\n"
    ) in fixed


def test_deleted_statements_comments_move_down_or_to_the_block_end():
    source = (
        "def f(x):\n    a = 1\n    # about b\n    b = 2\n\n\n"
        "def g():\n\n    # c\n    c = 3\n    return c\n\n\n# top\nz = 1\n"
    )
    module = cst.parse_module(source)
    f, g, z = module.body
    gone = [f.body.body[1], g.body.body[0], z]
    out = module.visit(_Replacer({node: cst.RemovalSentinel.REMOVE for node in gone})).code
    assert out == (
        "def f(x):\n    a = 1\n    # about b\n\n\ndef g():\n    # c\n    return c\n\n\n# top\n"
    )
    # without comments, a deletion takes its blank lines along when it opened the body
    plain = cst.parse_module("def g():\n\n    c = 3\n    return c\n")
    first = plain.body[0].body.body[0]
    out = plain.visit(_Replacer({first: cst.RemovalSentinel.REMOVE})).code
    assert out == "def g():\n    return c\n"
