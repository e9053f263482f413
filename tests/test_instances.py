"""Objects hybrid code hands F (rules/_instances.py): `dist = Dist(mean, sigma, F=F);
dist.kl_div(...)` reaches `Dist.kl_div` as a helper with `self.F` the namespace, and only
when nothing in the class or the caller makes that uncertain."""

import pytest
from fix_support import BACKENDS, backend_module, block_source, fix_settings
from hypothesis import given
from hypothesis import strategies as st
from test_analysis import probe
from test_fix_equivalence_hl005_010 import check, values

from hybridlint.linter import fix_source, lint_source
from hybridlint.rules.analysis import NAMESPACE, TENSOR, UNKNOWN

HEAD = "import mxnet as mx\nfrom mxnet.gluon import HybridBlock\n\n\n"
DIST = """class Dist:
    def __init__(self, mean, sigma, F=mx.nd):
        self.mean = mean
        self.sigma = sigma
        self.F = F

    def kl_div(self, other):
        probe(self.F)
        probe(self.sigma)
        inv = self.F.linalg.potri(self.F.linalg.potrf(other.sigma))
        probe(inv)
        return self.trace(mx.nd.batch_dot(inv, self.sigma))

    def trace(self, m):
        probe(self.F)
        return m.sum(axis=-1).sum(axis=-1)


"""
LOSS = """class Loss(HybridBlock):
    def hybrid_forward(self, F, mean, sigma):
        dist = Dist(mean, sigma, F=F)
        return dist.kl_div(dist)
"""


def test_method_of_an_object_handed_f_is_reached_with_self_f_the_namespace():
    seen = probe(HEAD + DIST + LOSS)
    kinds = [value.kind for value, _, _ in seen]
    # kl_div: self.F, self.sigma (a tensor input stored as it is), the potri result; trace: self.F
    assert kinds == [NAMESPACE, TENSOR, TENSOR, NAMESPACE]
    assert {kind for _, kind, _ in seen} == {"helper_method"}


def test_hl006_fix_spells_the_namespace_as_the_method_holds_it():
    source = HEAD + DIST.replace("        probe(", "        print(") + LOSS
    found = [f for f in lint_source(source) if f.code == "HL006"]
    assert [(f.line, f.fix) for f in found] == [(16, "safe")], found
    fixed = fix_source(source, select=["HL006"]).source
    assert "self.trace(self.F.batch_dot(inv, self.sigma))" in fixed


@pytest.mark.parametrize(
    "change",
    [
        ("class Dist:", "class Dist(Base):"),  # a base may define __setattr__, or be a Block
        ("class Dist:", "@dataclass\nclass Dist:"),
        ("        self.F = F\n", "        self.F = F\n        self.F = mx.nd\n"),
        ("    def trace(self, m):\n", "    def trace(self, m):\n        self.F = mx.nd\n"),
        ("        self.F = F\n", "        F = mx.nd\n        self.F = F\n"),
        ("        self.F = F\n", "        if F is not None:\n            self.F = F\n"),
        # an early return before the store: an object built that way has no `self.F`
        (
            "        self.sigma = sigma\n",
            "        self.sigma = sigma\n        if sigma is None:\n            return\n",
        ),
        ("dist = Dist(mean, sigma, F=F)", "dist = Dist(mean, sigma)"),  # no F: eager by default
        ("dist = Dist(mean, sigma, F=F)", "dist = Dist(mean, sigma, F=F)\n        dist = other"),
        # F in a starred argument: which parameter it fills is not known (a keyword after a
        # star is: `Dist(*[mean, sigma], F=F)` is followed, analysis._bind_call)
        ("dist = Dist(mean, sigma, F=F)", "dist = Dist(*[mean, sigma, F])"),
        ("    def kl_div(self, other):", "    @staticmethod\n    def kl_div(self, other):"),
    ],
)
def test_not_followed_when_uncertain(change):
    old, new = change
    source = (HEAD + DIST + LOSS).replace(old, new)
    assert new in source
    seen = probe(source)
    assert all(value.kind == UNKNOWN for value, _, _ in seen[:1]), seen
    assert not [f for f in lint_source(source) if f.code == "HL006"]


def test_a_keyword_after_a_starred_argument_is_bound():
    source = (HEAD + DIST + LOSS).replace(
        "dist = Dist(mean, sigma, F=F)", "dist = Dist(*[mean, sigma], F=F)"
    )
    seen = probe(source)
    assert seen[0][0].kind == NAMESPACE  # self.F: the keyword's F, whatever the star fills
    assert seen[1][0].kind == UNKNOWN  # self.sigma: filled by the star, by position unknown


def test_hl006_fix_is_unsafe_when_the_parameter_defaults_to_another_namespace():
    source = (HEAD + DIST + LOSS).replace("F=mx.nd):", "F=None):")
    found = [f for f in lint_source(source) if f.code == "HL006"]
    assert [f.fix for f in found] == ["unsafe"], found


# -- the fix, run: the method's `self.<a>.op` equals what `nd.op` computed eagerly ------------
INSTANCE_OPS = [
    "batch_dot({0}, {0}, transpose_b=True)",
    "relu({0})",
    "sum({0}, axis=-1)",
    "broadcast_mul({0}, {0})",
    "linalg.gemm2({0}, {0}, transpose_a=True)",
]


@pytest.mark.parametrize("backend", BACKENDS)
@fix_settings(15)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4)),
    op=st.sampled_from(INSTANCE_OPS),
    spelling=st.sampled_from(["nd", "mx.nd", "mx.ndarray"]),
    attr=st.sampled_from(["F", "backend"]),
)
def test_hl006_fix_in_a_method_of_an_object_handed_f(backend, shape, op, spelling, attr):
    mx = backend_module(backend)
    head = (
        "from mxnet import nd\n\n\nclass Holder:\n"
        f"    def __init__(self, x, {attr}=mx.nd):\n"
        f"        self.x = x\n        self.{attr} = {attr}\n\n"
        "    def value(self):\n"
        f"        return {spelling}.{op.format('self.x')}\n\n\n"
    )
    source = block_source("h = Holder(x, F)\nreturn h.value()", head=head)
    fixed = check(source, [values(shape)], mx, "HL006")
    assert f"self.{attr}.{op.split('(')[0]}(" in fixed, fixed
