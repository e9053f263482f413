"""Branches a block's configuration decides (issue 11): what the module's own constructions
pass for a constructor argument, and flags every caller chooses.

A ternary's fallback to a static value the constructor stores (`self.in_size if
self.in_size is not None else x.shape[2:]`) that no construction in the module takes (every
`Unit(...)` gets a tuple through its parents' defaults) runs only when the block is built
elsewhere, differently: not a certain hazard. Plain `if` branches are not decided so: the
other value of an option is one callers pick (PoissonNLLLoss(compute_full=True)).
"""

import textwrap

from hybridlint.linter import lint_source


def codes(source):
    return sorted((f.code, f.line) for f in lint_source(textwrap.dedent(source)))


HEADER = """
from mxnet.gluon import nn, HybridBlock
"""

UNIT_TERNARY = (
    HEADER
    + """
class Unit(HybridBlock):
    def __init__(self, channels, in_size=None, **kwargs):
        super(Unit, self).__init__(**kwargs)
        self.in_size = in_size
        self.conv = nn.Conv2D(channels, 3, padding=1)

    def hybrid_forward(self, F, x):
        in_size = self.in_size if self.in_size is not None else x.shape[2:]
        x = self.conv(x)
        return F.contrib.BilinearResize2D(x, height=in_size[0], width=in_size[1])


class Net(HybridBlock):
    def __init__(self, channels, fixed_size=FIXED, in_size=(224, 224), **kwargs):
        super(Net, self).__init__(**kwargs)
        self.features = nn.HybridSequential()
        in_size = (in_size[0] // 4, in_size[1] // 4)
        for i, c in enumerate(channels):
            self.features.add(Unit(c, in_size=in_size if fixed_size else None))
            if i > 0:
                in_size = (in_size[0] // 2, in_size[1] // 2)

    def hybrid_forward(self, F, x):
        return self.features(x)
"""
)


def test_fallback_no_construction_in_the_module_takes_is_not_reported():
    # Unit's own default (in_size=None) takes x.shape, but the module builds it only through
    # Net(fixed_size=True), passing a tuple (a local reassigned in the loop stays a tuple)
    assert codes(UNIT_TERNARY.replace("FIXED", "True")) == []


def test_fallback_the_module_builds_is_still_reported():
    assert codes(UNIT_TERNARY.replace("FIXED", "False")) == [("HL001", 11)]


def test_a_local_rebound_by_unpacking_is_not_decided():
    source = UNIT_TERNARY.replace("FIXED", "True").replace(
        "in_size = (in_size[0] // 2, in_size[1] // 2)", "in_size, _ = get_sizes(in_size)"
    )
    assert codes(source) == [("HL001", 11)]


def test_a_construction_passing_kwargs_is_not_decided():
    source = (
        UNIT_TERNARY.replace("FIXED", "True")
        + """

class Head(HybridBlock):
    def __init__(self, **kwargs):
        super(Head, self).__init__()
        self.unit = Unit(8, **kwargs)

    def hybrid_forward(self, F, x):
        return self.unit(x)
"""
    )
    assert codes(source) == [("HL001", 11)]


BRANCH = (
    HEADER
    + """
class Branch(HybridBlock):
    def __init__(self, channels, fixed_size, **kwargs):
        super(Branch, self).__init__(**kwargs)
        self.fixed_size = fixed_size
        self.conv = nn.Conv2D(channels, 3, padding=1)

    def hybrid_forward(self, F, x):
        if not self.fixed_size:
            height, width = x.shape[2:]
            x = F.contrib.BilinearResize2D(x, height=height * 2, width=width * 2)
        return self.conv(x)


class Wide(HybridBlock):
    def __init__(self, channels, fixed_size, **kwargs):
        super(Wide, self).__init__(**kwargs)
        self.branch = Branch(channels, fixed_size=fixed_size)

    def hybrid_forward(self, F, x):
        return self.branch(x)


class Narrow(Wide):
    pass


class Net(HybridBlock):
    def __init__(self, channels, fixed_size=FIXED, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.features = nn.HybridSequential()
        for j, c in enumerate(channels):
            unit_class = Wide if j == 0 else Narrow
            self.features.add(unit_class(c, fixed_size=fixed_size))

    def hybrid_forward(self, F, x):
        return self.features(x)
"""
)


def test_plain_if_no_construction_in_the_module_takes_is_still_reported():
    # a plain branch is not a fallback to a static value: LEDNet's `if
    # self.correct_size_mismatch:` (every construction passes False) is a true finding on the
    # pinned zoo, so the module's constructions decide only ternary fallbacks
    assert codes(BRANCH.replace("FIXED", "True")) == [("HL001", 12)]


def test_plain_if_the_module_builds_is_reported():
    assert codes(BRANCH.replace("FIXED", "False")) == [("HL001", 12)]


def test_constructions_through_a_class_alias_decide_a_fallback():
    # `unit_class = Wide if j == 0 else Narrow; unit_class(...)` constructs both
    source = (
        BRANCH.replace("FIXED", "True")
        .replace(
            """        if not self.fixed_size:
            height, width = x.shape[2:]
            x = F.contrib.BilinearResize2D(x, height=height * 2, width=width * 2)
        return self.conv(x)""",
            """        size = self.size if self.fixed_size else x.shape[2:]
        x = F.contrib.BilinearResize2D(x, height=size[0] * 2, width=size[1] * 2)
        return self.conv(x)""",
        )
        .replace(
            "        self.fixed_size = fixed_size\n",
            "        self.fixed_size = fixed_size\n        self.size = (8, 8)\n",
        )
    )
    assert codes(source) == []
    assert codes(source.replace("fixed_size=True", "fixed_size=False")) == [("HL001", 12)]


def test_plain_if_on_a_literal_default_is_still_reported():
    # the other value of a literal default is an option callers pick (PoissonNLLLoss's
    # compute_full=True): the hazard stays reported when the module never builds the block
    source = (
        HEADER
        + """
class Loss(HybridBlock):
    def __init__(self, compute_full=False, **kwargs):
        super(Loss, self).__init__(**kwargs)
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target):
        loss = F.exp(pred) - target * pred
        if self._compute_full:
            loss += target * F.log(target)
        return F.mean(loss)
"""
    )
    assert codes(source) == [("HL004", 12)]


def test_plain_if_on_a_flag_every_caller_chooses_is_still_reported():
    # a required flag the module never passes decides only a ternary's fallback to a static
    # value; a plain branch on it stays reported
    source = BRANCH.split("class Wide")[0]
    assert codes(source) == [("HL001", 12)]


HEATMAP = (
    HEADER
    + """
class Heatmap(HybridBlock):
    def __init__(self, in_size, fixed_size, **kwargs):
        super(Heatmap, self).__init__(**kwargs)
        self.in_size = in_size
        self.fixed_size = fixed_size

    def hybrid_forward(self, F, x):
        in_size = self.in_size if self.fixed_size else x.shape[2:]
        return F.contrib.BilinearResize2D(x, height=in_size[0], width=in_size[1])
"""
)


def test_fallback_on_a_flag_every_caller_chooses_is_not_reported():
    # fixed_size has no default and this module never builds Heatmap (the pose models of
    # other modules do): the static value is as likely as the fallback
    assert codes(HEATMAP) == []


def test_fallback_on_a_flag_the_module_passes_false_is_reported():
    source = (
        HEATMAP
        + """

class Pose(HybridBlock):
    def __init__(self, **kwargs):
        super(Pose, self).__init__(**kwargs)
        self.head = Heatmap((64, 48), fixed_size=False)

    def hybrid_forward(self, F, x):
        return self.head(x)
"""
    )
    assert codes(source) == [("HL001", 11)]


NUMPY_HELPER = (
    HEADER
    + """
import numpy as np


class Block(HybridBlock):
    def __init__(self, **kwargs):
        super(Block, self).__init__(**kwargs)
        self.conv = nn.Conv2D(8, 3, padding=1)

    @staticmethod
    def drop_mask(columns, n):
        batch = columns.shape[0]
        mask = np.zeros((n, batch), dtype=np.float32)
        kept = columns - 1
        mask[kept[kept >= 0], np.where(kept >= 0)[0]] = 1.0
        return mask

    def hybrid_forward(self, F, x, columns):
        x = self.conv(x)
        if INPUT:
            mask = Block.drop_mask(columns, 4)
        return x
"""
)


def test_input_of_a_numpy_helper_without_f_may_be_a_numpy_array():
    # gluon hands a child's non-array inputs to hybrid_forward unchanged: `columns` may be the
    # numpy array a parent made (gluoncv2's CIFARFractalNet), and the helper computes with numpy
    assert codes(NUMPY_HELPER.replace("INPUT", "True")) == []


def test_a_proven_tensor_into_a_numpy_helper_is_still_reported():
    source = NUMPY_HELPER.replace("INPUT", "True").replace(
        "Block.drop_mask(columns, 4)", "Block.drop_mask(F.relu(columns), 4)"
    )
    assert ("HL001", 14) in codes(source)


def test_helper_without_numpy_still_reports_the_shape_of_an_input():
    source = (
        NUMPY_HELPER.replace("INPUT", "True")
        .replace("mask = np.zeros((n, batch), dtype=np.float32)", "mask = None")
        .replace("mask[kept[kept >= 0], np.where(kept >= 0)[0]] = 1.0", "")
    )
    assert ("HL001", 14) in codes(source)


def test_a_helper_that_also_runs_mxnet_operators_is_array_code():
    # yolov4-mxnet's yolo_forward_dynamic: numpy grids from the input's shape beside `nd`
    # operators on its slices; an input it hands `nd.concat` is an NDArray, numpy or not
    source = (
        NUMPY_HELPER.replace("INPUT", "True")
        .replace("import numpy as np\n", "import numpy as np\nfrom mxnet import nd\n")
        .replace("        return mask\n", "        return nd.concat(columns, columns, dim=1)\n")
    )
    assert [c for c, _ in codes(source)].count("HL001") == 1
    # making its result with nd.array (host code's way out) proves nothing
    host = source.replace("nd.concat(columns, columns, dim=1)", "nd.array(mask)")
    assert "HL001" not in [c for c, _ in codes(host)]


def test_walk_nodes_finds_what_a_visitor_finds():
    # walk_nodes skips layout fields (whitespace, brackets, commas, operator tokens) for speed:
    # it must still reach every call, name and statement a LibCST visitor reaches
    from pathlib import Path

    import libcst as cst

    from hybridlint.rules.values import walk_nodes

    class Count(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.seen = []

        def on_visit(self, node):
            if isinstance(
                node,
                (
                    cst.Call,
                    cst.Name,
                    cst.BaseSmallStatement,
                    cst.BaseCompoundStatement,
                    cst.Lambda,
                    cst.CompFor,
                    cst.WithItem,
                    cst.ExceptHandler,
                ),
            ):
                self.seen.append(node)
            return True

    root = Path(__file__).resolve().parent.parent
    for path in (
        "rules/analysis.py",
        "engine/gluon/rnn/rnn_cell.py",
        "testdata/hazards/ssd_head.py",
    ):
        if not (root / path).exists():
            continue
        module = cst.parse_module((root / path).read_text())
        counter = Count()
        module.visit(counter)
        walked = {id(n) for n in walk_nodes(module)}
        assert all(id(n) in walked for n in counter.seen), path


def test_every_other_binding_of_a_local_leaves_it_undecided():
    base = UNIT_TERNARY.replace("FIXED", "True")
    rebind = "in_size = (in_size[0] // 2, in_size[1] // 2)"
    for other in (
        "for in_size in sizes:\n                    pass",
        "in_size += (1,)",
        "with open_sizes() as in_size:\n                    pass",
    ):
        assert codes(base.replace(rebind, other)) == [("HL001", 11)], other
