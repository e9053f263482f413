"""HL007's pooled gate is reported only against a feature map by positive evidence (issue 20/21).

A (B, C, 1, 1) gate broadcast against a (B, C, H, W) map fails hybridized; against anything of
the gate's own shape it works. The review's false positives were operands of unknown making
taken for maps: values computed from the gate (`F.where(w > 0, w, -w)`, a padded 3x3
convolution of it, a map sliced like it), a module class's gate, and a "1x1" factory whose
`**kwargs` carried `padding=1`. The map must be the array the gate was pooled from (also a
child's result, as in GluonCV2's BiSeNet FeatureFusion) or an input, as it is or through
shape-keeping ops. Lint checks here; the differential harness (`test_hl007_gates_differential`)
and the rule's VALID examples run such blocks on the engine and MXNet 1.9.1.
"""

import numpy as np
import pytest

from fix_support import BACKENDS, backend_module
from fix_support import assert_fix_works_where_the_original_fails, fix_source, lint_source

FACTORIES = """\
def conv1x1(channels, **kwargs):
    return nn.Conv2D(channels, 1, **kwargs)


def conv1x1_plain(channels, strides=1):
    return nn.Conv2D(channels, 1, strides=strides)


OPTS = {"padding": 1}
PLAIN = {"channels": 4}


class Merge(HybridBlock):
    def __init__(self, channels):
        super(Merge, self).__init__()
        self.conv = nn.Conv2D(channels, 1)

    def hybrid_forward(self, F, x):
        return self.conv(x)


class Se(HybridBlock):
    def __init__(self):
        super(Se, self).__init__()
        self.pool = nn.GlobalAvgPool2D()

    def hybrid_forward(self, F, x):
        return F.sigmoid(self.pool(x))


"""

BLOCK = """\
class Net(HybridBlock):
    def __init__(self, channels=4):
        super(Net, self).__init__()
        self.pool = nn.GlobalAvgPool2D()
        self.merge = Merge(channels)
        self.se = Se()
        self.c3 = nn.Conv2D(channels, 3, padding=1)
        self.kw = conv1x1(channels)
        self.kw_padded = conv1x1(channels, padding=1)
        self.cfg = conv1x1(channels, **OPTS)
        self.plain_cfg = conv1x1_plain(**PLAIN)
        self.opts = nn.Conv2D(channels, 1, **OPTS)
        self.plain = conv1x1_plain(channels)

    def hybrid_forward(self, F, x, y):
{body}"""


def source(body: str) -> str:
    lines = "".join("        " + line + "\n" for line in body.splitlines())
    return FACTORIES + BLOCK.format(body=lines)


def hl007_lines(body: str):
    src = source(body)
    first = src.splitlines().index("    def hybrid_forward(self, F, x, y):") + 2
    return [f.line - first + 1 for f in lint_source(src) if f.code == "HL007"]


@pytest.mark.parametrize(
    "body",
    [
        # the map the gate was pooled from, a child's result of unknown shape (BiSeNet)
        "x = self.merge(x)\nw = self.plain(self.pool(x))\nreturn x * w",
        # the same map through a shape-keeping op
        "x = self.merge(x)\nw = self.pool(x)\nreturn F.relu(x) + w",
        # an input map, as it is and through a shape-keeping op
        "w = self.pool(x)\nreturn y * w",
        "w = F.contrib.AdaptiveAvgPooling2D(x, output_size=1)\nreturn F.sigmoid(y) * w",
        # a factory forwarding **kwargs called with nothing for them: still a 1x1 convolution
        "w = self.kw(self.pool(x))\nreturn x * w",
        # a dict into a factory without **kwargs cannot pass padding: its kernel is 1
        "w = self.plain_cfg(self.pool(x))\nreturn x * w",
    ],
)
def test_a_gate_against_a_map_by_evidence_is_reported(body):
    assert hl007_lines(body) == [len(body.splitlines())], source(body)


@pytest.mark.parametrize(
    "body",
    [
        # made from the gate: its own shape
        "w = self.pool(x)\nreturn w * F.where(w > 0, w, -w)",
        "w = self.pool(x)\nreturn w * self.c3(w)",
        "w = self.pool(x)\nreturn w + F.zeros_like(x).slice_like(w)",
        # another gate (a module class's)
        "return self.pool(x) + self.se(x)",
        # a child's result of unknown making: not the map the gate was pooled from
        "w = self.pool(x)\nreturn self.merge(y) * w",
        # padding forwarded through **kwargs (a literal, a dict) or a module dict: not 1x1
        "w = self.kw_padded(self.pool(x))\nreturn x * w",
        "w = self.cfg(self.pool(x))\nreturn x * w",
        "w = self.opts(self.pool(x))\nreturn x * w",
        # the map's own pooled statistics: the gate's shape
        "w = self.pool(x)\nreturn w - x.mean(axis=(2, 3), keepdims=True)",
    ],
)
def test_a_gate_against_no_evidence_of_a_map_is_silent(body):
    assert hl007_lines(body) == [], source(body)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_child_map_times_its_gate_fails_hybridized_and_the_fix_works(backend):
    """The reported BiSeNet shape: (B, C, H, W) * (B, C, 1, 1) of a child's result."""
    src = source("x = self.merge(x)\nw = self.plain(self.pool(x))\nreturn x * w")
    fixed = fix_source(src).source
    assert "F.broadcast_mul(x, w)" in fixed, fixed
    rng = np.random.RandomState(3)
    arrays_np = [rng.uniform(-1, 1, (2, 4, 3, 5)).astype("float32") for _ in range(2)]
    mx = backend_module(backend)
    assert_fix_works_where_the_original_fails(src, fixed, mx, arrays_np, {"channels": 4})


# gluoncv2's building blocks (common.py): a module class chaining a convolution, a batch norm
# subclass and an activation a factory builds from a callable; `conv1x1_block` builds it 1x1.
CONV_BLOCKS = """\
from inspect import isfunction


def get_activation_layer(activation):
    assert activation is not None
    if isfunction(activation):
        return activation()
    elif isinstance(activation, str):
        return nn.Activation(activation)
    else:
        return activation


class BatchNormExtra(nn.BatchNorm):
    def __init__(self, cudnn_off=False, **kwargs):
        super(BatchNormExtra, self).__init__(**kwargs)


class ConvBlock(HybridBlock):
    def __init__(self, in_channels, out_channels, kernel_size, strides, padding, use_bn=True,
                 activation=(lambda: nn.Activation("relu")), **kwargs):
        super(ConvBlock, self).__init__(**kwargs)
        self.activate = activation is not None
        self.use_bn = use_bn
        with self.name_scope():
            self.conv = nn.Conv2D(channels=out_channels, kernel_size=kernel_size,
                                  strides=strides, padding=padding, in_channels=in_channels)
            if self.use_bn:
                self.bn = BatchNormExtra(in_channels=out_channels)
            if self.activate:
                self.activ = get_activation_layer(activation)

    def hybrid_forward(self, F, x):
        x = self.conv(x)
        if self.use_bn:
            x = self.bn(x)
        if self.activate:
            x = self.activ(x)
        return x


class Resized(ConvBlock):
    def hybrid_forward(self, F, x):
        x = self.conv(x)
        return F.contrib.BilinearResize2D(x, height=4, width=4)


def conv1x1_block(in_channels, out_channels, strides=1, padding=0, use_bn=True,
                  activation=(lambda: nn.Activation("relu")), **kwargs):
    return ConvBlock(in_channels=in_channels, out_channels=out_channels, kernel_size=1,
                     strides=strides, padding=padding, use_bn=use_bn, activation=activation,
                     **kwargs)


def conv3x3_block(in_channels, out_channels, strides=1, padding=1, **kwargs):
    return ConvBlock(in_channels=in_channels, out_channels=out_channels, kernel_size=3,
                     strides=strides, padding=padding, **kwargs)


class Gate(HybridBlock):
    def __init__(self, channels=4, act=None):
        super(Gate, self).__init__()
        with self.name_scope():
            self.conv1 = conv3x3_block(in_channels=channels, out_channels=channels)
            self.sig = conv1x1_block(channels, channels, activation=(lambda: nn.Activation("sigmoid")))
            self.named = conv1x1_block(channels, channels, activation="sigmoid")
            self.plain = conv1x1_block(channels, channels, use_bn=False, activation=None)
            self.padded = conv1x1_block(channels, channels, padding=1)
            self.wide = conv3x3_block(channels, channels)
            self.given = conv1x1_block(channels, channels, activation=act)
            self.resized = Resized(channels, channels, 1, 1, 0)

    def hybrid_forward(self, F, x):
        x = self.conv1(x)
        w = F.contrib.AdaptiveAvgPooling2D(x, output_size=1)
{body}"""


def gate_lines(body: str):
    lines = "".join("        " + line + "\n" for line in body.splitlines())
    src = CONV_BLOCKS.format(body=lines)
    first = src.splitlines().index("    def hybrid_forward(self, F, x):", 60) + 4
    return [f.line - first + 1 for f in lint_source(src) if f.code == "HL007"], src


@pytest.mark.parametrize("child", ["sig", "named"])
def test_a_gate_through_a_module_class_chain_of_1x1_children_is_reported(child):
    """gluoncv2's BiSeNet AttentionRefinementBlock: `w = self.conv2(pool(x))`, conv2 a
    `conv1x1_block` (ConvBlock: 1x1 conv, BatchNormExtra, the activation its callable builds)."""
    lines, src = gate_lines(f"w = self.{child}(w)\nreturn x * w")
    assert lines == [2], src


@pytest.mark.parametrize("child", ["padded", "wide", "given", "resized"])
def test_a_gate_through_a_class_that_may_resize_it_is_silent(child):
    """Padding 1, a 3x3 kernel, an activation of unknown making, a forward that resizes."""
    lines, src = gate_lines(f"w = self.{child}(w)\nreturn x * w")
    assert lines == [], src


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_class_gate_fails_hybridized_and_the_fix_works(backend):
    _, src = gate_lines("w = self.sig(w)\nreturn x * w")
    src = src.replace("Gate", "Net")
    fixed = fix_source(src).source
    assert "F.broadcast_mul(x, w)" in fixed, fixed
    rng = np.random.RandomState(5)
    arrays_np = [rng.uniform(-1, 1, (2, 4, 3, 5)).astype("float32")]
    assert_fix_works_where_the_original_fails(src, fixed, backend_module(backend), arrays_np)
