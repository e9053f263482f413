"""HL003 on gluon inputs proven arrays by slice arithmetic (`s[1:] - s[:-1]`, rules/_sliced_arrays.py).

The claims: a list or tuple raises on that arithmetic (so working code holds an array there);
hybridized, the sliced item of `*states` is a Symbol and the block fails; the unsafe fix equals
the original eagerly and works hybridized; and the fix is unsafe because a numpy array passes
the arithmetic and reaches an eager hybrid_forward beside an NDArray input, where `F.slice`
raises. Checked on the bundled engine and on MXNet 1.9.1 (numpy: MXNet only)."""

import numpy as np
import pytest

from hybridlint.linter import fix_source, lint_source

from ground_truth_support import BACKENDS, backend

_SOURCE = """\
class Tar(HybridBlock):
    def hybrid_forward(self, F, x, *states):
        means = [(state[1:] - state[:-1]).sum() for state in states[-1:]]
        return x.sum() + sum(means)
"""


def _findings(source: str):
    return [f for f in lint_source(source) if f.code == "HL003"]


def _block(source: str, mx):
    namespace: dict = {"HybridBlock": mx.gluon.HybridBlock}
    exec(compile(source, "<hl003-sliced>", "exec"), namespace)
    return namespace["Tar"]()


def _fixed() -> str:
    return fix_source(_SOURCE, select=["HL003"], unsafe=True).source


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "**", "@"])
def test_slices_are_reported_exactly_where_a_list_or_tuple_input_would_raise(op):
    """The rule's premise, operator by operator: `x[1:] <op> x[:-1]` is reported only where a
    list or tuple input raises (working code holds an array there); `+` concatenates them, so
    a block whose list input's slices are only joined is silent."""
    source = f"class Tar(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x[1:] {op} x[:-1]\n"
    raises = []
    for seq in ([1.0, 2.0, 3.0], (1.0, 2.0, 3.0)):
        try:
            eval(f"seq[1:] {op} seq[:-1]", {"seq": seq})  # noqa: S307 - a fixed operator
            raises.append(False)
        except TypeError:
            raises.append(True)
    assert len(set(raises)) == 1, (op, raises)
    assert bool(_findings(source)) == raises[0], (op, raises[0])


def test_both_slices_are_reported_with_an_unsafe_fix_only():
    findings = _findings(_SOURCE)
    assert [(f.line, f.fix) for f in findings] == [(3, "unsafe"), (3, "unsafe")]
    assert not _findings(_fixed())
    assert fix_source(_SOURCE, select=["HL003"]).source == _SOURCE  # nothing safe to apply


@pytest.mark.parametrize(
    "body",
    [
        "return x[1:] + x[:-1]",  # a list concatenates
        "return x[0] - x[1]",  # a list's items may be arrays
        "a = np.arange(4.0)\n        return x * float((a[1:] - a[:-1]).sum())",  # no input
        "y = x\n        y = [y]\n        return y[1:] - y[:-1]",  # not an input
        "for s in x:\n            s = self.f(s)\n            x = s[1:] - s[:-1]\n        return x",
        "x = self.f(x)\n        return x[1:] - x[:-1]",  # rebound: unknown
    ],
)
def test_not_an_input_or_not_proven(body):
    source = f"class Tar(HybridBlock):\n    def hybrid_forward(self, F, x):\n        {body}\n"
    assert not _findings(source), body


@pytest.mark.parametrize("name", BACKENDS)
def test_the_original_fails_hybridized_and_the_fix_equals_it(name):
    mx = backend(name)
    x, state = mx.nd.ones((2,)), mx.nd.array(np.arange(12.0).reshape(4, 3))
    reference = _block(_SOURCE, mx)(x, state).asnumpy()
    original = _block(_SOURCE, mx)
    original.hybridize()
    with pytest.raises(Exception):  # noqa: B017 - any failure is the hazard shown
        original(x, state)
    for hybridize in (False, True):
        fixed = _block(_fixed(), mx)
        if hybridize:
            fixed.hybridize()
        assert np.allclose(fixed(x, state).asnumpy(), reference)


@pytest.mark.mxnet
def test_a_numpy_state_works_eagerly_in_the_original_and_not_in_the_fix():
    mx = backend("mxnet")
    x, state = mx.nd.ones((2,)), np.arange(12.0).reshape(4, 3)
    _block(_SOURCE, mx)(x, state)  # numpy's slices subtract, an NDArray adds their sum
    with pytest.raises(Exception):  # noqa: B017 - F.slice refuses a numpy array
        _block(_fixed(), mx)(x, state)
