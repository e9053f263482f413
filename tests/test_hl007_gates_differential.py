"""HL007's pooled gates and optional masks (issue 20/21), checked by running them.

For random shapes (hypothesis) a block with the pattern the real packages use (GluonCV2's
BiSeNet FeatureFusion gate, GluonNLP's ELMo mask) is linted and fixed with the real linter:
the original must fail hybridized (the finding is real), and the fixed block, eager and
hybridized, must equal the original's eager output with the same parameters (the safe fix
keeps what working code computes). Runs on the bundled engine and, marked `mxnet`, on MXNet
1.9.1.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fix_support import BACKENDS, backend_module, fix_settings
from fix_support import assert_fix_works_where_the_original_fails, fix_source, lint_source

SETTINGS = fix_settings(8)

GATE = """\
def conv1x1(in_channels, out_channels, strides=1):
    return nn.Conv2D(out_channels, 1, strides=strides, in_channels=in_channels)


class Net(HybridBlock):
    def __init__(self, channels):
        super(Net, self).__init__()
        self.conv = conv1x1(channels, channels)
        self.pool = nn.GlobalAvgPool2D()
        self.act = nn.Activation("sigmoid")

    def hybrid_forward(self, F, x):
        x = F.relu(x)
        w = {pool}
        w = self.act(self.conv(w))
        return x {op} w
"""

MASK = """\
class Net(HybridBlock):
    def __init__(self, channels):
        super(Net, self).__init__()
        self.proj = nn.Dense(channels, flatten=False, in_units=channels)

    def hybrid_forward(self, F, x, mask=None):
        out = self.proj(x)
        if mask is not None:
            out = out {op} mask.expand_dims(axis=-1)
        return out
"""


def differential(source: str, arrays_np, backend: str, attrs) -> None:
    findings = [f for f in lint_source(source) if f.code == "HL007"]
    assert findings and findings[0].fix == "safe", (source, findings)
    fixed = fix_source(source).source  # safe fixes only
    assert "F.broadcast_" in fixed, fixed
    assert_fix_works_where_the_original_fails(
        source, fixed, backend_module(backend), arrays_np, attrs
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    b=st.integers(1, 2),
    c=st.integers(2, 4),
    h=st.integers(2, 4),
    w=st.integers(2, 4),
    op=st.sampled_from(["*", "+"]),
    pool=st.sampled_from(["self.pool(x)", "F.contrib.AdaptiveAvgPooling2D(x, output_size=1)"]),
)
def test_pooled_gate_times_map_fails_hybridized_and_its_fix_works(backend, b, c, h, w, op, pool):
    """(B, C, H, W) op (B, C, 1, 1): the gate of a 1x1 convolution of a global pooling."""
    x = np.random.RandomState(b * 100 + h * 10 + w).uniform(-2, 2, (b, c, h, w)).astype("float32")
    differential(GATE.format(op=op, pool=pool), [x], backend, {"channels": c})


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    b=st.integers(1, 3), t=st.integers(2, 5), c=st.integers(2, 4), op=st.sampled_from(["*", "-"])
)
def test_optional_mask_expanded_fails_hybridized_and_its_fix_works(backend, b, t, c, op):
    """(B, T, C) op mask.expand_dims(-1) (B, T, 1), the mask an input defaulting to None."""
    rng = np.random.RandomState(b * 10 + t)
    x = rng.uniform(-2, 2, (b, t, c)).astype("float32")
    mask = (rng.uniform(0, 1, (b, t)) > 0.3).astype("float32")
    differential(MASK.format(op=op), [x, mask], backend, {"channels": c})
