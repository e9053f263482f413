"""HL016: a Python branch on autograd.is_training() / is_recording() in hybrid_forward is decided
once, while tracing. Checked against MXNet 1.9.1: the CachedOp is built at the first hybridized
call and not rebuilt per mode, so the branch keeps the first call's mode, while F.Dropout in the
same cached graph reads the mode at every call; hybridize() again retraces."""

import numpy as np
import pytest

from hybridlint.linter import lint_source
from hybridlint.rules.hl016_autograd_mode_branch import AutogradModeBranch

_SOURCE = """\
import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn


class Halve(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if autograd.is_training():
            x = x * 0.5
        return x


class Recorded(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * 0.5 if mx.autograd.is_recording() else x


class Dropped(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Dropout(x, p=0.999)
"""


def _blocks(mx):
    namespace: dict = {}
    exec(compile(_SOURCE, "<hl016>", "exec"), namespace)
    return namespace


def _call(mx, block, mode):
    x = mx.nd.ones((1, 4))
    if mode == "train":
        with mx.autograd.record(train_mode=True):
            return block(x).asnumpy()
    if mode == "record-predict":
        with mx.autograd.record(train_mode=False):
            return block(x).asnumpy()
    return block(x).asnumpy()


def _run(mx, klass, modes, hybrid=True, rehybridize=False):
    mx.random.seed(0)
    block = _blocks(mx)[klass]()
    block.initialize()
    if hybrid:
        block.hybridize()
    outs = []
    for mode in modes:
        if rehybridize:
            block.hybridize()  # clears the cached graph
        outs.append(_call(mx, block, mode))
    return outs


def test_hl016_reports_the_mode_branches():
    findings = lint_source(_SOURCE, rules=[AutogradModeBranch])
    assert [(f.code, f.line) for f in findings] == [("HL016", 8), ("HL016", 15)]


@pytest.mark.mxnet
@pytest.mark.parametrize("first, second", [("train", "predict"), ("predict", "train")])
def test_branch_keeps_the_first_calls_mode_when_hybridized(first, second):
    mx = pytest.importorskip("mxnet")
    eager = _run(mx, "Halve", [first, second], hybrid=False)
    assert not np.array_equal(eager[0], eager[1])  # eagerly the modes differ
    hybrid = _run(mx, "Halve", [first, second])
    assert np.array_equal(hybrid[0], eager[0])  # the traced call is right
    assert np.array_equal(hybrid[1], eager[0])  # the second mode is silently the first's
    again = _run(mx, "Halve", [first, second], rehybridize=True)
    assert np.array_equal(again[1], eager[1])  # hybridize() again retraces in the new mode


@pytest.mark.mxnet
def test_is_recording_branch_is_frozen_too():
    mx = pytest.importorskip("mxnet")
    hybrid = _run(mx, "Recorded", ["record-predict", "predict"])
    assert np.array_equal(hybrid[0], hybrid[1]) and (hybrid[1] == 0.5).all()


@pytest.mark.mxnet
def test_dropout_in_the_cached_graph_reads_the_mode_at_every_call():
    """The alternative the message offers: an operator reads the mode when the graph runs."""
    mx = pytest.importorskip("mxnet")
    train_first = _run(mx, "Dropped", ["train", "predict"])
    assert (train_first[0] != 1).any() and (train_first[1] == 1).all()
    predict_first = _run(mx, "Dropped", ["predict", "train"])
    assert (predict_first[0] == 1).all() and (predict_first[1] != 1).any()


@pytest.mark.mxnet
def test_gluoncv_dropblock_drops_in_prediction_after_training_when_hybridized():
    """gluoncv 0.10.5's DropBlock (its hybrid_forward as published, reported at its `if`)."""
    mx = pytest.importorskip("mxnet")
    source = """\
import mxnet as mx
from mxnet.gluon.nn import HybridBlock


class DropBlock(HybridBlock):
    def __init__(self, drop_prob, block_size, c, h, w):
        super(DropBlock, self).__init__()
        self.drop_prob = drop_prob
        self.block_size = block_size
        self.c, self.h, self.w = c, h, w
        self.numel = c * h * w
        pad_h = max((block_size - 1), 0)
        pad_w = max((block_size - 1), 0)
        self.padding = (pad_h//2, pad_h-pad_h//2, pad_w//2, pad_w-pad_w//2)
        self.dtype = 'float32'

    def hybrid_forward(self, F, x):
        if not mx.autograd.is_training() or self.drop_prob <= 0:
            return x
        gamma = self.drop_prob * (self.h * self.w) / (self.block_size ** 2) / \\
            ((self.w - self.block_size + 1) * (self.h - self.block_size + 1))
        mask = F.random.uniform(0, 1, shape=(1, self.c, self.h, self.w), dtype=self.dtype) < gamma
        mask = F.Pooling(mask, pool_type='max',
                         kernel=(self.block_size, self.block_size), pad=self.padding)
        mask = 1 - mask
        y = F.broadcast_mul(F.broadcast_mul(x, mask),
                            (1.0 * self.numel / mask.sum(axis=0, exclude=True)
                             .expand_dims(1).expand_dims(1).expand_dims(1)))
        return y
"""
    findings = lint_source(source, rules=[AutogradModeBranch])
    assert [f.line for f in findings] == [18]
    namespace: dict = {}
    exec(compile(source, "<dropblock>", "exec"), namespace)
    x = mx.nd.ones((2, 2, 8, 8))

    def untouched(hybrid, modes):
        mx.random.seed(0)
        block = namespace["DropBlock"](0.5, 3, 2, 8, 8)
        block.initialize()
        if hybrid:
            block.hybridize()
        result = []
        for mode in modes:
            if mode == "train":
                with mx.autograd.record():
                    y = block(x)
            else:
                y = block(x)
            result.append(bool((y.asnumpy() == 1).all()))
        return result

    assert untouched(False, ["train", "predict"]) == [False, True]
    assert untouched(True, ["train", "predict"]) == [False, False]  # drops in prediction
    assert untouched(True, ["predict", "train"]) == [True, True]  # never drops in training


# A block whose training calls pass inputs its prediction calls do not (YOLOV3's `*args`
# targets, the R-CNN family's `gt_box=None`): a mode switch changes the argument structure, which
# MXNet 1.9.1 checks against the cached graph's before running it.
_TRAINING_INPUTS = """\
from mxnet import autograd
from mxnet.gluon import nn


class Targets(nn.HybridBlock):
    def hybrid_forward(self, F, x, *args):
        if len(args) != 0 and not autograd.is_training():
            raise TypeError('inference only needs x')
        y = x * 2
        if autograd.is_training():
            return F.broadcast_sub(y, args[0]).square().sum()
        return y


class GroundTruth(nn.HybridBlock):
    def hybrid_forward(self, F, x, gt_box=None):
        n = 4 if autograd.is_training() else 2
        y = F.slice_axis(x, axis=1, begin=0, end=n)
        if autograd.is_training():
            return F.broadcast_sub(y, gt_box)
        return y
"""

# the same blocks when the optional input is read in prediction too (or outside the branches):
# nothing says the calls differ per mode, so each branch is reported
_BOTH_MODES = """\
from mxnet import autograd
from mxnet.gluon import nn


class Features(nn.HybridBlock):
    def hybrid_forward(self, F, img, *x):
        n = 4 if autograd.is_training() else 2
        return F.slice_axis(img, axis=1, begin=0, end=n) + x[0]


class Optional(nn.HybridBlock):
    def hybrid_forward(self, F, x, gt_box=None):
        if autograd.is_training():
            return x - gt_box
        return x if gt_box is None else x + gt_box
"""


def test_hl016_skips_blocks_whose_training_calls_pass_other_inputs():
    assert lint_source(_TRAINING_INPUTS, rules=[AutogradModeBranch]) == []
    findings = lint_source(_BOTH_MODES, rules=[AutogradModeBranch])
    assert [f.line for f in findings] == [7, 13]


@pytest.mark.mxnet
@pytest.mark.parametrize("klass", ["Targets", "GroundTruth"])
@pytest.mark.parametrize("train_first", [True, False])
def test_a_mode_switch_with_other_inputs_is_refused_not_silent(klass, train_first):
    """Hybridized, the call of the other mode raises instead of reusing the traced graph; the
    block keeps working in the mode it was traced in, and eagerly in both."""
    mx = pytest.importorskip("mxnet")
    namespace: dict = {}
    exec(compile(_TRAINING_INPUTS, "<hl016-inputs>", "exec"), namespace)
    x, target = mx.nd.ones((1, 4)), mx.nd.ones((1, 4))

    def train(block):
        with mx.autograd.record():
            return block(x, target).asnumpy()

    def predict(block):
        return block(x).asnumpy()

    eager = namespace[klass]()
    eager.initialize()
    expected = {"train": train(eager), "predict": predict(eager)}
    block = namespace[klass]()
    block.initialize()
    block.hybridize()
    first, second = (train, predict) if train_first else (predict, train)
    first_name = "train" if train_first else "predict"
    assert np.array_equal(first(block), expected[first_name])
    with pytest.raises(ValueError, match="argument structure of HybridBlock does not match"):
        second(block)
    assert np.array_equal(first(block), expected[first_name])
