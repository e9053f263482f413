"""Issue 11: call sites in the same module (how a parent block calls the child) as evidence for
the child's hybrid_forward inputs (rules/analysis.py, `_call_site_evidence`).

Alone, an input that is only iterated, unpacked or counted is taken for a list of arrays (gluon
passes those the same way) and nothing about it is reported. When every `self.<a>(...)` call
of the block in the module passes a value the caller knows as one tensor (an operator's result,
a layer's output) the input is a tensor and its iteration is reported; when any call passes a
list or tuple it is a sequence; otherwise (no call, a bare input passed on, mixed calls, a block
also built elsewhere) nothing changes.
"""

import libcst as cst
import pytest

from hybridlint.linter import lint_source
from hybridlint.rules.analysis import SEQUENCE, TENSOR, analyze
from hybridlint.rules.hl008_tensor_control_flow import TensorControlFlow
from hybridlint.rules.hl014_tensor_unpacking import TensorUnpacking

CHILD = """
class Fusion(HybridBlock):
    def __init__(self, **kwargs):
        super(Fusion, self).__init__(**kwargs)
        self._weights = [0.5, 0.3, 0.2]

    def hybrid_forward(self, F, stacked):
        fused = [w * level for w, level in zip(self._weights, stacked)]
        return F.add_n(*fused)
"""
CHILD_LINE = 8  # the comprehension's line in CHILD (source starts with a newline)


def parent(body: str, name: str = "Neck", init: str = "self.fusion = Fusion()", helper=""):
    """A block building the child in __init__ and calling it as `body` says."""
    return (
        f"\n\nclass {name}(HybridBlock):\n    def __init__(self, **kwargs):\n"
        f"        super({name}, self).__init__(**kwargs)\n"
        "        self.conv0 = nn.Conv2D(2, 1)\n        self.conv1 = nn.Conv2D(2, 1)\n"
        f"        {init}\n{helper}\n    def hybrid_forward(self, F, x):\n"
        + "".join(f"        {line}\n" for line in body.splitlines())
    )


def hl008_lines(source: str):
    return [f.line for f in lint_source(source, rules=[TensorControlFlow])]


STACKED = "return self.fusion(F.stack(self.conv0(x), self.conv1(x)))"


@pytest.mark.parametrize(
    "body",
    [
        STACKED,
        "levels = [self.conv0(x), self.conv1(x)]\nreturn self.fusion(F.stack(*levels))",
        "return self.fusion(self.conv0(x))",  # a layer's output
        "return self.fusion(stacked=F.stack(self.conv0(x), self.conv1(x)))",  # by keyword
    ],
    ids=["stack", "stack-starred", "layer-output", "keyword"],
)
def test_a_parent_passing_one_tensor_makes_the_iteration_reported(body):
    assert hl008_lines(CHILD + parent(body)) == [CHILD_LINE]


def test_the_parent_may_come_first_in_the_module():
    source = parent(STACKED).lstrip("\n") + "\n" + CHILD
    lines = source.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "zip(self._weights" in text)
    assert hl008_lines(source) == [line]


def test_a_call_from_a_parent_helper_counts():
    helper = "\n    def fuse(self, F, a, b):\n        return self.fusion(F.stack(a, b))\n"
    body = "return self.fuse(F, self.conv0(x), self.conv1(x))"
    assert hl008_lines(CHILD + parent(body, helper=helper)) == [CHILD_LINE]


@pytest.mark.parametrize(
    "source",
    [
        CHILD,  # no parent
        CHILD + parent("return self.fusion([self.conv0(x), self.conv1(x)])"),  # a list
        CHILD + parent("return self.fusion((self.conv0(x), self.conv1(x)))"),  # a tuple
        CHILD + parent("return self.fusion(x)"),  # the parent's own input: only assumed
        # two parents, one passing its bare input: mixed
        CHILD + parent(STACKED) + parent("return self.fusion(x)", name="Other"),
        # one call passes a tensor, the other a list: a sequence
        CHILD
        + parent(
            "a = self.fusion(F.stack(self.conv0(x), self.conv1(x)))\n"
            "return a + self.fusion([self.conv0(x), self.conv1(x)])"
        ),
        # the block is also built into a container: called in ways not seen here
        CHILD
        + parent(STACKED)
        + parent(
            "return self.blocks(F.stack(x, x))",
            name="Other",
            init="self.blocks = nn.HybridSequential()\n        self.blocks.add(Fusion())",
        ),
        # self.fusion is bound to something else too
        CHILD
        + parent(
            STACKED,
            init="self.fusion = Fusion() if kwargs else nn.Dense(2)",
        ),
    ],
    ids=[
        "no-parent",
        "list",
        "tuple",
        "bare-input",
        "mixed-parents",
        "tensor-and-list",
        "built-elsewhere",
        "other-binding",
    ],
)
def test_no_positive_evidence_keeps_it_silent(source):
    assert hl008_lines(source) == []


def _child_input(source: str, name: str = "stacked"):
    module = cst.parse_module(source)
    classes = [n for n in module.body if isinstance(n, cst.ClassDef)]
    facts = analyze(classes, [])
    return facts.classes["Fusion"].functions[0].params[name]


def test_a_list_at_a_call_site_makes_an_input_a_sequence():
    """Also where the position alone would assume a tensor (an input used beyond iteration)."""
    child = CHILD.replace("return F.add_n(*fused)", "return F.add_n(*fused), stacked")
    alone = _child_input(child)
    assert alone.kind == TENSOR and alone.assumed
    listed = _child_input(child + parent("return self.fusion([self.conv0(x), self.conv1(x)])"))
    assert listed.kind == SEQUENCE
    stacked = _child_input(child + parent(STACKED))
    assert stacked.kind == TENSOR and stacked.assumed  # assumed inputs are not promoted


def test_unpacking_is_reported_with_a_stacked_pair():
    child = (
        "\nclass Pair(HybridBlock):\n    def hybrid_forward(self, F, pair):\n"
        "        a, b = pair\n        return F.concat(a, a * b, dim=-1)\n"
    )
    source = child + parent("return self.fusion(F.stack(self.conv0(x), self.conv1(x)))")
    source = source.replace("Fusion()", "Pair()")
    assert [(f.line, f.code) for f in lint_source(source, rules=[TensorUnpacking])] == [
        (4, "HL014")
    ]
    alone = [f.line for f in lint_source(child, rules=[TensorUnpacking])]
    assert alone == []


def test_a_slice_of_an_input_used_as_an_array_reaches_a_numpy_helper_as_an_array():
    # cnstd's DiceLoss: `C_pred = score_pred[:, 0]; batch_pix_accuracy(C_pred, score_gt)`,
    # the helper numpy code without F: the sliced argument is as certain as the direct one
    source = (
        "import numpy as np\nfrom mxnet import gluon\n\n\n"
        "def acc(output, target):\n"
        "    output = output.asnumpy().reshape((-1,))\n"
        "    target = target.asnumpy().reshape((-1,))\n"
        "    return np.sum(output == target)\n\n\n"
        "class Loss(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, score_gt, score_pred):\n"
        "        c_pred = score_pred[:, 0, :, :]\n"
        "        self.acc = acc(c_pred, score_gt)\n"
        "        return F.sum(score_gt * c_pred)\n"
    )
    found = {(f.code, f.line) for f in lint_source(source)}
    assert {("HL002", 6), ("HL002", 7)} <= found


@pytest.mark.parametrize(
    "body, helper",
    [
        ("top = self.top(F, feats)\nfeats = F.relu(top)", "return F.relu(xs[-1])"),
        ("outs = self.top(F, feats)\nfeats = F.stack(*outs)", "return [F.relu(t) for t in xs]"),
    ],
)
def test_an_input_rebound_to_an_array_stays_unsettled_for_its_helpers(body, helper):
    # `feats` may be a list of arrays: the array uses are of its later value
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    source = (
        "from mxnet import gluon\n\n\nclass Net(gluon.HybridBlock):\n"
        f"    def hybrid_forward(self, F, feats):\n{lines}"
        "        return feats.reshape((0, -1))\n\n"
        f"    def top(self, F, xs):\n        {helper}\n"
    )
    assert lint_source(source) == []
