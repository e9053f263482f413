"""Issue 12: every helper hybrid_forward reaches gets the facts hybrid_forward has (which names
are tensors, F is the namespace): class-qualified static helpers, lambdas and comprehensions in
hybrid_forward, and module functions imported from a sibling file of the project.

Observed through the real linter: a probe rule (what the analysis says an expression is, and in
which kind of function), HL003 (`t[0]` on a tensor: reported and fixed with F only when the
analysis proves both) and HL001 (`.shape`).
"""

import os
from typing import List, Tuple

from hybridlint.linter import fix_source, lint_source, may_contain_hybrid_code
from hybridlint.rules.analysis import NAMESPACE, SCALAR, TENSOR, UNKNOWN, Value
from hybridlint.rules.base import Rule
from hybridlint.rules.hl001 import SymbolAttribute
from hybridlint.rules.hl003_tensor_indexing import TensorIndexing


class Probe(Rule):
    code = "HL998"
    name = "probe"
    seen: List[Tuple[Value, str, str]] = []

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "probe":
            Probe.seen.append((self.value(node.args[0].value), self.facts.kind, self.namespace))


def probe(source: str, path: str = "<string>") -> List[Tuple[str, str, str]]:
    Probe.seen = []
    lint_source(source, path, rules=[Probe])
    return [(value.kind, kind, namespace) for value, kind, namespace in Probe.seen]


def block(body: str, helpers: str = "", head: str = "") -> str:
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return (
        f"{head}from mxnet import gluon\n\n\nclass Net(gluon.HybridBlock):\n{helpers}"
        f"    def hybrid_forward(self, F, x):\n{lines}"
    )


def codes(source: str, rules, path: str = "<string>") -> List[Tuple[int, str, object]]:
    return [(f.line, f.code, f.fix) for f in lint_source(source, path, rules=rules)]


# -- class-qualified static helpers -------------------------------------------------------------
STATIC = (
    "    @staticmethod\n    def _first(F, t, n):\n        probe(F)\n        probe(t)\n"
    "        probe(n)\n        return t[0]\n\n"
)


def test_static_helper_through_the_class_name_gets_namespace_and_tensors():
    source = block("return Net._first(F, F.relu(x), 3)", helpers=STATIC)
    assert probe(source) == [
        (NAMESPACE, "helper_method", "F"),
        (TENSOR, "helper_method", "F"),
        (SCALAR, "helper_method", "F"),
    ]
    fixed = fix_source(source, rules=[TensorIndexing]).source
    assert "t[0]" not in fixed and "slice_axis" in fixed


def test_static_helper_called_with_numbers_only_is_not_analysed():
    source = block("return x + Net._first(None, (1, 2), 3)", helpers=STATIC)
    assert probe(source) == []


# -- lambdas --------------------------------------------------------------------------------------
def test_lambda_bound_to_a_name_is_analysed_as_a_helper():
    source = block("flat = lambda t: probe(t)\nreturn flat(F.relu(x))")
    assert probe(source) == [(TENSOR, "helper_function", None)]


def test_lambda_sees_the_enclosing_namespace_and_is_fixed_in_place():
    source = block("first = lambda t: t[0]  # noqa: E731\nreturn first(F.relu(x)) + 1")
    assert codes(source, [TensorIndexing]) == [(6, "HL003", "safe")]
    fixed = fix_source(source, rules=[TensorIndexing]).source
    assert "first = lambda t: t.slice_axis(" in fixed and "t[0]" not in fixed


def test_lambda_finding_positions_and_suppression():
    source = block("flat = lambda t: t.reshape((t.shape[0], -1))\nreturn flat(F.relu(x))")
    findings = lint_source(source, rules=[SymbolAttribute])
    line = source.splitlines()[5]
    assert [(f.line, f.col) for f in findings] == [(6, line.index("t.shape") + 1)]
    suppressed = source.replace("-1))\n", "-1))  # hybridlint: ignore[HL001]\n")
    assert lint_source(suppressed, rules=[SymbolAttribute]) == []


def test_lambda_called_with_numbers_is_not_reported():
    source = block("pick = lambda s: s[0]\nreturn x * pick((2, 3))")
    assert codes(source, [TensorIndexing]) == []


def test_lambda_never_called_is_not_analysed():
    source = block("flat = lambda t: t.reshape((t.shape[0], -1))\nreturn F.relu(x)")
    assert codes(source, [SymbolAttribute]) == []


# -- comprehensions -------------------------------------------------------------------------------
def test_comprehension_targets_are_bound_like_a_for():
    source = block(
        "y = F.relu(x)\nz = F.sigmoid(x)\n"
        "outs = [probe(f) for p, f in zip(self.preds, (y, z))]\n"
        "pairs = [probe(i) for i, t in enumerate((y, z))]\n"
        "rows = [probe(r) for r in self.sizes]\n"
        "return F.concat(*outs, dim=1)"
    )
    assert [kind for kind, _, _ in probe(source)] == [TENSOR, SCALAR, UNKNOWN]


def test_comprehension_over_children_and_feature_maps_reports_shape_inside():
    source = block(
        "outs = [F.transpose(p(f), axes=(0, 2, 3, 1)).reshape((f.shape[0], -1, 4))\n"
        "        for p, f in zip(self.preds, (F.relu(x), F.sigmoid(x)))]\n"
        "return F.concat(*outs, dim=1)"
    )
    assert [(line, code) for line, code, _ in codes(source, [SymbolAttribute])] == [(6, "HL001")]


def test_comprehension_over_numbers_reports_nothing():
    source = block("scales = [s[0] for s in self.sizes]\nreturn x * scales[0]")
    assert codes(source, [TensorIndexing]) == []


def test_helper_called_inside_a_comprehension_is_reached():
    helpers = "    def _head(self, F, t):\n        return t[0]\n\n"
    source = block(
        "parts = F.split(x, num_outputs=2, axis=1)\n"
        "return F.concat(*[self._head(F, p) for p in parts], dim=0)",
        helpers=helpers,
    )
    assert codes(source, [TensorIndexing]) == [(6, "HL003", "safe")]


# -- helpers imported from a sibling module -------------------------------------------------------
UTILS = (
    "import math\n\n\ndef first_row(F, t):\n    return t[0]\n\n\n"
    "def scale(F, q):\n    return q / math.sqrt(q.shape[-1])\n\n\n"
    "def unused(F, t):\n    return t[0]\n"
)


def _project(tmp_path, block_source: str, utils: str = UTILS, name: str = "_utils.py"):
    package = tmp_path / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / name).write_text(utils)
    (package / "net.py").write_text(block_source)
    return str(package / name)


IMPORTING = block(
    "return first_row(F, F.relu(x)) + scale(F, F.relu(x))",
    head="from ._utils import first_row, scale\n",
)


def test_imported_helper_is_analysed_when_its_own_file_is_linted(tmp_path):
    path = _project(tmp_path, IMPORTING)
    assert may_contain_hybrid_code(UTILS, path)
    found = codes(UTILS, [TensorIndexing, SymbolAttribute], path)
    assert [(line, code) for line, code, _ in found] == [(5, "HL003"), (9, "HL001")]
    fixed = fix_source(UTILS, path, rules=[TensorIndexing]).source
    assert "return t[0]\n\n\ndef scale" not in fixed and fixed.endswith(
        "def unused(F, t):\n    return t[0]\n"
    )


def test_imported_helper_with_alias_and_absolute_import(tmp_path):
    source = block("return head(F, F.relu(x))", head="from pkg._utils import first_row as head\n")
    path = _project(tmp_path, source)
    assert [(line, code) for line, code, _ in codes(UTILS, [TensorIndexing], path)] == [
        (5, "HL003")
    ]


def test_imported_helper_with_a_continued_import_line(tmp_path):
    source = block(
        "return first_row(F, F.relu(x))", head="from ._utils import scale, \\\n    first_row\n"
    )
    path = _project(tmp_path, source)
    assert [(line, code) for line, code, _ in codes(UTILS, [TensorIndexing], path)] == [
        (5, "HL003")
    ]


def test_imported_builder_called_in_the_constructor_is_no_helper(tmp_path):
    utils = "def make(F, t):\n    return t[0]\n"
    source = (
        "from mxnet import gluon\nfrom ._utils import make\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def __init__(self):\n        super().__init__()\n        self.k = make(None, (1, 2))\n\n"
        "    def hybrid_forward(self, F, x):\n        return F.relu(x)\n"
    )
    path = _project(tmp_path, source, utils)
    assert codes(utils, [TensorIndexing], path) == []


def test_imported_helper_called_without_tensors_is_not_analysed(tmp_path):
    source = block("return x * first_row(None, (1, 2))", head="from ._utils import first_row\n")
    path = _project(tmp_path, source)
    assert codes(UTILS, [TensorIndexing], path) == []


def test_helper_module_without_importers_is_not_linted(tmp_path):
    path = _project(tmp_path, "x = 1\n")
    assert not may_contain_hybrid_code(UTILS, path)
    assert codes(UTILS, [TensorIndexing], path) == []
    # without a path (stdin, a string) the module is not a helper of anything known
    assert codes(UTILS, [TensorIndexing]) == []


def test_same_name_in_another_directory_is_not_a_helper(tmp_path):
    _project(tmp_path, IMPORTING)
    other = tmp_path / "other"
    other.mkdir()
    (other / "_utils.py").write_text(UTILS)
    assert codes(UTILS, [TensorIndexing], str(other / "_utils.py")) == []


def test_importer_changes_are_seen(tmp_path):
    path = _project(tmp_path, block("return F.relu(x)", head="from ._utils import first_row\n"))
    assert codes(UTILS, [TensorIndexing], path) == []
    net = os.path.join(os.path.dirname(path), "net.py")
    with open(net, "w") as handle:
        handle.write(IMPORTING + "\n")
    assert [code for _, code, _ in codes(UTILS, [TensorIndexing], path)] == ["HL003"]


def test_pre_filter_without_path_keeps_namespace_helpers():
    assert may_contain_hybrid_code("def split_heads(F, x, n):\n    return x\n")
    assert not may_contain_hybrid_code("def f(x):\n    return x[0]\n")


class StatementProbe(Rule):
    """Reads values as a statement-level planner does: with the statement's env."""

    code = "HL997"
    name = "statement-probe"
    seen: List[str] = []

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "probe":
            env = self.facts.env_at.get(self.statement, {})
            StatementProbe.seen.append(self.facts.value(node.args[0].value, env).kind)


def test_values_inside_a_comprehension_read_with_the_statement_env():
    source = block(
        "outs = [probe(f) for f in (F.relu(x), F.sigmoid(x))]\nreturn F.concat(*outs, dim=1)"
    )
    StatementProbe.seen = []
    lint_source(source, rules=[StatementProbe])
    assert StatementProbe.seen == [TENSOR]


def test_helper_imported_from_another_package_of_the_project(tmp_path):
    """GluonTS style: `gluonts/mx/util.py` helpers used by `gluonts/mx/model/x/_network.py`
    through a parent-relative and an absolute import."""
    top = tmp_path / "proj"
    (top / "mx" / "model").mkdir(parents=True)
    for package in (top, top / "mx", top / "mx" / "model"):
        (package / "__init__.py").write_text("")
    (top / "mx" / "util.py").write_text(UTILS)
    (top / "mx" / "model" / "a.py").write_text(
        block("return first_row(F, F.relu(x))", head="from ..util import first_row\n")
    )
    (top / "mx" / "model" / "b.py").write_text(
        block("return scale(F, F.relu(x))", head="from proj.mx.util import scale\n")
    )
    found = codes(UTILS, [TensorIndexing, SymbolAttribute], str(top / "mx" / "util.py"))
    assert [(line, code) for line, code, _ in found] == [(5, "HL003"), (9, "HL001")]


def test_imported_helper_called_without_the_namespace_is_not_followed(tmp_path):
    """The documented limit: an importer is analysed only when the call's arguments mention F
    (`f(F, x)`, `f(x, F=F)`, `f(F.relu(x))`)."""
    utils = "def flatten(t, F=None):\n    return t[0]\n"
    source = block("y = F.relu(x)\nreturn flatten(y)", head="from ._utils import flatten\n")
    path = _project(tmp_path, source, utils)
    assert codes(utils, [TensorIndexing], path) == []
    for call in ("flatten(y, F=F)", "flatten(F.relu(y))"):
        source = block(f"y = F.relu(x)\nreturn {call}", head="from ._utils import flatten\n")
        path = _project(tmp_path, source, utils)
        assert [code for _, code, _ in codes(utils, [TensorIndexing], path)] == ["HL003"], call


# -- a name rebound on one branch by a helper of another module (blind round 16's HPHN loss) ----
AUGMENTED = (
    "from mxnet import gluon\nfrom {module} import aug\n\n\n"
    "def dist(F, x):\n    m = x.shape[0]\n    return F.dot(x, x.T) / m\n\n\n"
    "class Net(gluon.HybridBlock):\n    def __init__(self, k=0):\n        super().__init__()\n"
    "        self.k = k\n\n"
    "    def hybrid_forward(self, F, e, labels):\n"
    "        if self.k != 0:\n            e, labels = aug(F, e, labels)\n"
    "        return dist(F, e)\n"
)


def test_imported_helper_given_F_returns_arrays_on_its_branch():
    """Unknown on one path used to make `e` unknown on every path: the input's `.shape` and `.T`
    in `dist` went unreported (a silent pass); a helper given F and arrays returns arrays."""
    for module in ("helper", ".helper"):
        found = codes(AUGMENTED.format(module=module), [SymbolAttribute])
        assert [(line, code) for line, code, _ in found] == [(6, "HL001"), (7, "HL001")], module


def test_imported_helper_without_F_stays_unknown():
    source = AUGMENTED.format(module="helper").replace("aug(F, e, labels)", "aug(e, labels)")
    assert codes(source, [SymbolAttribute]) == []
