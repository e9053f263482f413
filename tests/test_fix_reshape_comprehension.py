"""HL001's reshape targets inside comprehensions (rules/hl001/reshape/flow.py, issue 12).

The flow plans the element of a list/set/dict comprehension with the names its targets bind,
as the shared analysis bound them (`FunctionFacts.comp_envs`), and follows an element of a
sequential container whose layers are all added in `__init__`
(`for p, f in zip(self.preds, feats)`: `p(f)` is a Conv2D of f). The property draws feature
maps and container layers, fixes the SSD-style block with the real linter and checks the
original eager output against the fixed block eager and hybridized, on the bundled engine and,
marked `mxnet`, on real MXNet 1.9.1. The other tests pin what must stay unfixed: an element of
unknown layout (a custom block, a layout-given conv, a plain list, a container changed
elsewhere), a comprehension target shadowing an unpacked dim, a generator, and the one-walk
name bookkeeping against a walk per statement.
"""

import glob
import os

import libcst as cst
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fix_support import BACKENDS, backend_module, block_source, fix_settings
from fix_support import run_with_fixed_params as run
from fix_support import fix_source, lint_source  # memoized: each backend reuses the result
from hybridlint.rules.hl001.reshape.flow import _Names

FEATURES = "feat1, feat2"
SSD = (
    "outs = [F.transpose(p(f), axes=(0, 2, 3, 1)).reshape((f.shape[0], -1, 4))\n"
    "        for p, f in zip(self.preds, (feat1, feat2))]\n"
    "return F.concat(*outs, dim=1)"
)


def data(shape):
    return (np.arange(int(np.prod(shape)), dtype="float32").reshape(shape) % 11) - 5


def hl001(source: str):
    return [f for f in lint_source(source) if f.code == "HL001"]


def fixed_of(source: str) -> str:
    return fix_source(source, select=["HL001"], unsafe=True).source


@st.composite
def ssd_blocks(draw):
    """(init, two input shapes, anchors): a container of Conv2D layers, 4 * anchors channels
    each (added in a loop or one by one, in a name scope or not), and two NCHW feature maps
    with the same batch."""
    anchors = draw(st.integers(1, 2))
    kernel = draw(st.sampled_from([(1, 0), (3, 1)]))
    conv = f"nn.Conv2D({anchors} * 4, {kernel[0]}, padding={kernel[1]})"
    style = draw(st.sampled_from(["loop", "each", "scope"]))
    if style == "loop":
        adds = f"for _ in range(2):\n    self.preds.add({conv})"
    elif style == "each":
        adds = f"self.preds.add({conv})\nself.preds.add({conv})"
    else:
        adds = f"with self.preds.name_scope():\n    self.preds.add({conv}, {conv})"
    init = "self.preds = nn.HybridSequential()\n" + adds
    batch = draw(st.integers(1, 3))
    shapes = [
        (batch, draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4)))
        for _ in range(2)
    ]
    return init, shapes


@pytest.mark.parametrize("backend", BACKENDS)
@fix_settings(12)
@given(problem=ssd_blocks())
def test_ssd_predictions_in_a_comprehension(backend, problem):
    """`f.shape[0]` of a feature map in the comprehension is the batch of the conv output the
    transpose keeps first: code 0, a safe fix, equal eager and hybridized."""
    mx = backend_module(backend)
    init, shapes = problem
    source = block_source(SSD, inputs=FEATURES, init=init)
    findings = hl001(source)
    assert findings and all(f.fix == "safe" for f in findings), (source, findings)
    fixed = fixed_of(source)
    # (0, -1, 4); (0, -3, 0) when the channels are 4: the last dim is the data's own
    assert ".reshape((0, -" in fixed and "f.shape" not in fixed, fixed
    assert not hl001(fixed), fixed
    arrays = [mx.nd.array(data(s)) for s in shapes]
    expected = run(source, mx, arrays, False)
    for hybridize in (False, True):
        got = run(fixed, mx, arrays, hybridize)
        assert got.shape == expected.shape, (fixed, hybridize)
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


_SWAP = (
    "class Swap(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n"
    "        return F.transpose(x, axes=(1, 0, 2, 3))\n\n\n"
)
UNKNOWN_LAYOUTS = {
    # an element that moves the batch: code 0 would read the channels
    "custom block": ("self.preds = nn.HybridSequential()\nself.preds.add(Swap(), Swap())", _SWAP),
    # a layout given: not followed (code 0 would be right here, but it is not certain)
    "layout": (
        "self.preds = nn.HybridSequential()\n"
        "self.preds.add(nn.Conv2D(4, 1, layout='NCHW'), nn.Conv2D(4, 1, layout='NCHW'))",
        "",
    ),
    # one known layer and one of unknown kind
    "mixed": ("self.preds = nn.HybridSequential()\nself.preds.add(nn.Conv2D(4, 1), Swap())", _SWAP),
    # a plain list is no container the flow follows
    "list": ("self.preds = [nn.Conv2D(4, 1), nn.Conv2D(4, 1)]", ""),
    # an element added through a name
    "named": ("self.preds = nn.HybridSequential()\nc = Swap()\nself.preds.add(c, c)", _SWAP),
    # the container changed after the layers were added
    "changed": (
        "self.preds = nn.HybridSequential()\nself.preds.add(nn.Conv2D(4, 1), nn.Conv2D(4, 1))\n"
        "self.preds[0] = Swap()",
        _SWAP,
    ),
}


@pytest.mark.parametrize("case", sorted(UNKNOWN_LAYOUTS))
def test_elements_of_unknown_layout_are_not_rewritten(case):
    """The comprehension variable `p(f)` is no tensor of known layout: `f.shape[0]` is still
    reported and stays."""
    init, extra = UNKNOWN_LAYOUTS[case]
    source = block_source(SSD, inputs=FEATURES, init=init, head=extra)
    assert hl001(source), source
    fixed = fixed_of(source)
    assert "(f.shape[0], -1, 4)" in fixed, fixed


def test_a_swapping_element_would_break_code_zero():
    """The custom-block case above is no formality: on the engine, code 0 there changes the
    output (the batch of the data is the input's channels)."""
    mx = backend_module("engine")
    init, extra = UNKNOWN_LAYOUTS["custom block"]
    source = block_source(SSD, inputs=FEATURES, init=init, head=extra)
    wrong = source.replace("(f.shape[0], -1, 4)", "(0, -1, 4)")
    arrays = [mx.nd.array(data((2, 4, 2, 2))), mx.nd.array(data((2, 4, 1, 2)))]
    assert run(source, mx, arrays, False).shape != run(wrong, mx, arrays, False).shape


def test_the_comprehension_target_hides_an_outer_dim():
    """`n` unpacked outside is another `n` inside the comprehension: the target's own n is read
    there, so neither the reshape nor the unpacking is touched."""
    body = (
        "n = x.shape[0]\ny = F.relu(x)\n"
        "outs = [y.reshape((n, -1)) for n in (2, 4)]\nreturn F.concat(*outs, dim=0) * n"
    )
    source = block_source(body)
    fixed = fixed_of(source)
    assert "y.reshape((n, -1)) for n in (2, 4)" in fixed, fixed


def test_an_outer_dim_read_inside_a_comprehension():
    """A dim unpacked outside and read in the element is the outer tensor's: the reshape of a
    tensor of that batch gets code 0 and the unpacking goes; equal on the engine."""
    mx = backend_module("engine")
    body = (
        "b = x.shape[0]\ny = F.relu(x)\n"
        "outs = [(y * k).reshape((b, -1)) for k in (1, 2)]\nreturn F.concat(*outs, dim=1)"
    )
    source = block_source(body)
    fixed = fixed_of(source)
    assert "(y * k).reshape((0, -1))" in fixed and "x.shape" not in fixed, fixed
    arrays = [mx.nd.array(data((3, 2, 2)))]
    expected = run(source, mx, arrays, False)
    for hybridize in (False, True):
        got = run(fixed, mx, arrays, hybridize)
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


def test_a_generator_is_not_planned():
    """A generator runs when consumed: the names it reads may be rebound by then."""
    body = (
        "b = x.shape[0]\ny = F.relu(x)\n"
        "outs = ((y * k).reshape((b, -1)) for k in (1, 2))\nreturn F.concat(*outs, dim=1)"
    )
    source = block_source(body)
    assert "(y * k).reshape((b, -1))" in fixed_of(source)


def _statements(node: cst.CSTNode):
    found = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, inner: cst.CSTNode) -> bool:
            if isinstance(inner, (cst.BaseStatement, cst.BaseSmallStatement)):
                found.append(inner)
            return True

    node.visit(Collect())
    return found


def test_one_walk_gives_each_statement_its_stores():
    """`_Names.stored_in(stmt)` (one walk per function) names what a walk of that statement
    alone stores, for every statement of the corpus's functions."""
    paths = sorted(
        glob.glob(
            os.path.join(os.path.dirname(__file__), "..", "testdata", "**", "*.py"), recursive=True
        )
    )
    checked = 0
    for path in paths:
        try:
            module = cst.parse_module(open(path, encoding="utf-8").read())
        except cst.ParserSyntaxError:
            continue
        functions = [n for n in _statements(module) if isinstance(n, cst.FunctionDef)]
        for function in functions:
            names = _Names()
            function.body.visit(names)
            for stmt in _statements(function.body):
                alone = _Names()
                stmt.visit(alone)
                assert sorted(set(names.stored_in(stmt))) == sorted(alone.stores), (path, stmt)
                checked += 1
    assert checked > 1000
