"""visit_only (issue 22 item 4) must show a collecting visitor exactly the nodes LibCST's own
visit shows it, without rebuilding the tree: checked on the repository's test data."""

import pathlib

import libcst as cst

from hybridlint import cstwalk
from hybridlint.cstwalk import visit_only

TESTDATA = pathlib.Path(__file__).resolve().parent.parent / "testdata"


def _testdata_modules():
    """(path, parsed module) for the first 40 test data files LibCST can parse."""
    for path in sorted(TESTDATA.rglob("*.py"))[:40]:
        try:
            yield path, cst.parse_module(path.read_text(encoding="utf-8"))
        except (cst.ParserSyntaxError, UnicodeDecodeError):
            continue


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
    for path, module in _testdata_modules():
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


class Hooked(cst.CSTVisitor):
    """A visitor with hooks for a few node types and none for trivia: the walks may skip trivia
    and dispatch from a table, so this checks that every non-trivia node still gets its hook."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = []

    def visit_Call(self, node: cst.Call) -> None:
        self.seen.append(id(node))

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.append(id(node))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.seen.append(id(node))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.seen.append(id(node))
        return False  # children skipped


class Stack(cst.CSTVisitor):
    """Records (node, depth) on visit and checks leaves pair with visits, as _InputUses does."""

    def __init__(self) -> None:
        super().__init__()
        self.stack, self.seen = [], []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cstwalk._TRIVIA_BASES):
            self.seen.append((id(node), len(self.stack)))
        self.stack.append(node)
        return not isinstance(node, cst.Lambda)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        assert self.stack.pop() is original_node


def test_hooks_and_stacks_see_every_node_that_is_not_trivia():
    checked = 0
    for path, module in _testdata_modules():
        ours, theirs = Hooked(), Hooked()
        visit_only(module, ours)
        module.visit(theirs)
        assert sorted(ours.seen) == sorted(theirs.seen), path
        ours, theirs = Stack(), Stack()
        cstwalk.walk(module, ours, trivia=False)
        module.visit(theirs)
        assert sorted(ours.seen) == sorted(theirs.seen) and not ours.stack, path
        checked += bool(ours.seen)
    assert checked > 20
