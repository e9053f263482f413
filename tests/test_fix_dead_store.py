"""HL001's removal of a tensor attribute stored where nothing reads it (rules/_dead_store.py):
which reads can follow the store, form by form, and the fixed SyncBatchNorm-like block on the
engine and (marked) on MXNet 1.9.1."""

import textwrap

import numpy as np
import pytest

from fix_support import BACKENDS, backend_module, build, engine_gaps_skipped
from fix_support import fix_source, lint_source


def _block(body: str) -> str:
    return (
        "from mxnet import autograd\n\n\nclass Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n" + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


# body -> whether the store on the line holding `ctx = x.context  # here` is removed
CASES = {
    "never read": ("ctx = x.context  # here\nreturn F.relu(x)\n", True),
    "read later": ("ctx = x.context  # here\ny = F.relu(x)\nreturn y, ctx\n", False),
    "read in the other branch only": (
        """\
        if autograd.is_training():
            ctx = x.context
            y = F.relu(x) if ctx else x
        else:
            ctx = x.context  # here
            y = F.relu(x)
        return y
        """,
        True,
    ),
    "read after the if": (
        """\
        if autograd.is_training():
            ctx = x.context  # here
        else:
            ctx = None
        return F.relu(x) if ctx else x
        """,
        False,
    ),
    "read in an elif after": (
        """\
        if autograd.is_training():
            ctx = x.context  # here
            y = x
        elif autograd.is_recording():
            y = x if ctx else x
        else:
            y = x
        return y
        """,
        True,
    ),
    "read earlier in the loop": (
        """\
        y = x
        for i in range(2):
            if i:
                y = F.relu(y) if ctx else y
            ctx = x.context  # here
        return y
        """,
        False,
    ),
    "read in a while test": (
        """\
        ctx = None
        while ctx is None:
            ctx = x.context  # here
        return x
        """,
        False,
    ),
    "read by a handler": (
        """\
        try:
            ctx = x.context  # here
            y = F.relu(x)
        except ValueError:
            y = x if ctx else x
        return y
        """,
        False,
    ),
    "read by a nested function": (
        """\
        ctx = x.context  # here
        def f():
            return ctx
        return x
        """,
        False,
    ),
    "read by a comprehension": (
        "ctx = x.context  # here\nys = [x for _ in range(2) if ctx]\nreturn x\n",
        False,
    ),
    "deleted": ("ctx = x.context  # here\ndel ctx\nreturn x\n", False),
    # `n += 1` reads n first: without the store it raises UnboundLocalError
    "augmented": ("n = x.shape[0]  # here\nn += 1\nreturn x\n", False),
    "augmented in a later loop": (
        "n = x.shape[0]  # here\nfor i in range(2):\n    n -= 1\nreturn x\n",
        False,
    ),
    "locals()": ("ctx = x.context  # here\nnames = locals()\nreturn x\n", False),
    "global": ("global ctx\nctx = x.context  # here\nreturn x\n", False),
    "rebound before a read": ("ctx = x.context  # here\nctx = 1\nreturn x * ctx\n", False),
    "a dim unpacked, unread": ("b, c = x.shape  # here\nreturn F.relu(x)\n", True),
    "an attribute target": ("self.ctx = x.context  # here\nreturn x\n", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_which_stores_are_dead(name):
    body, removed = CASES[name]
    source = _block(body)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# here" in text)
    findings = [f for f in lint_source(source) if f.code == "HL001" and f.line == line]
    assert findings, source
    assert (findings[0].fix == "safe") is removed, (source, findings)
    fixed = fix_source(source, select=["HL001"]).source
    assert ("# here" not in fixed) is removed, fixed


SYNC_BN = _block(CASES["read in the other branch only"][0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_fixed_block_hybridizes_and_equals_the_original(backend):
    mx = backend_module(backend)
    fixed = fix_source(SYNC_BN, select=["HL001"]).source
    assert fixed.count("ctx = x.context") == 1, fixed
    x = np.random.RandomState(0).randn(2, 3).astype("float32")
    expected = build(SYNC_BN, mx)()(mx.nd.array(x)).asnumpy()
    with engine_gaps_skipped(mx):
        net = build(fixed, mx)()
        net.hybridize()
        np.testing.assert_array_equal(net(mx.nd.array(x)).asnumpy(), expected)
        broken = build(SYNC_BN, mx)()
        broken.hybridize()
        with pytest.raises(AttributeError):
            broken(mx.nd.array(x))
