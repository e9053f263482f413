"""visit_only (issue 22 item 4) must show a collecting visitor exactly the nodes LibCST's own
visit shows it, without rebuilding the tree: checked on the repository's test data."""

import pathlib

import libcst as cst

from hybridlint.cstwalk import visit_only

TESTDATA = pathlib.Path(__file__).resolve().parent.parent / "testdata"


class Recorder(cst.CSTVisitor):
    """Records every node it is shown; does not enter function bodies (a False visit)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.seen.append(id(node))
        return not isinstance(node, cst.FunctionDef)


def test_the_same_nodes_as_libcst_visit_and_skipped_children_stay_skipped():
    checked = 0
    for path in sorted(TESTDATA.rglob("*.py"))[:40]:
        try:
            module = cst.parse_module(path.read_text(encoding="utf-8"))
        except (cst.ParserSyntaxError, UnicodeDecodeError):
            continue
        ours, theirs = Recorder(), Recorder()
        visit_only(module, ours)
        module.visit(theirs)
        assert sorted(ours.seen) == sorted(theirs.seen), path
        checked += 1
    assert checked > 20


def test_deep_nesting_does_not_recurse():
    expression = cst.parse_expression("x" + " + x" * 1500)
    found = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.append(node.value)

    visit_only(expression, Names())
    assert len(found) == 1501
