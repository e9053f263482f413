"""The linter's own tree walks (no LibCST visitor, which rebuilds every node it passes) see the
nodes LibCST's visitor sees, in its order, layout aside: the rules' visit_<Type> calls and the
environments they read depend on that order."""

from __future__ import annotations

import libcst as cst
import pytest

from hybridlint import linter
from hybridlint.rules.values import LAYOUT_TYPES, parent_map, syntax_children, walk_nodes

SOURCE = '''
import os, sys as system
from .. import a, b as c
from .pkg.mod import (d, e)
from x import *


@decorator(arg=1)
class Net(Base, metaclass=Meta):
    """Doc."""

    scale: float = 1.0

    def hybrid_forward(self, F, x, *args, y=None, **kwargs):
        global counter
        first = x if y is None else y
        out = F.relu(x, axis=-1, name=f"{x!r:>{width}} and {y}")
        out = out + [i * 2 for i in range(3) if i if not i] + {k: v for k, v in kwargs.items()}
        out = (lambda p, q=1, *r, s, **t: p + q)(out, s=2)
        values = [*args, *out], {**kwargs}, {1, 2}
        z = x[1:2, ::3, ..., None][0]
        if (n := len(args)) > 1 and not y or y < n <= 3 is not None:
            out -= 1
        elif y:
            out @= 2
        else:
            del out[0]
        for i, (j, k) in enumerate(zip(a, b)):
            continue
        else:
            pass
        while True:
            break
        try:
            raise ValueError("v") from None
        except (ValueError, TypeError) as error:
            assert error, "message"
        except Exception:
            pass
        else:
            out = ~out
        finally:
            out = -out
        with open(p) as f, F.name_scope():
            yield from f
        async def inner():
            async for item in it:
                await item
            async with lock as held:
                return [x async for x in held]
        match command:
            case [Point(x=0, y=yy), *rest] if yy > 0:
                pass
            case {"key": value, **others} | str() as text:
                pass
            case _:
                pass
        return F.concat(*[o for o in out], dim=1) if out else (yield)


def helper(F, x, /, y, *, z=lambda: 0) -> "F.Symbol":
    nonlocal_value = 1
    return F.sum(x) * y; print(z)
'''


class _Recorder(linter._Dispatcher):
    """Records what on_visit and on_leave see; descends everywhere."""

    def __init__(self) -> None:
        cst.CSTVisitor.__init__(self)
        self.events: list = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", node))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", original_node))


def _without_layout(events):
    return [(kind, id(node)) for kind, node in events if not isinstance(node, LAYOUT_TYPES)]


@pytest.fixture(scope="module")
def module() -> cst.Module:
    return cst.parse_module(SOURCE)


def test_the_dispatcher_walk_visits_as_libcsts_visitor_does(module):
    libcst_walk, own_walk = _Recorder(), _Recorder()
    module.visit(libcst_walk)
    own_walk.walk(module)
    expected = _without_layout(libcst_walk.events)
    assert _without_layout(own_walk.events) == expected
    assert len(expected) > 600  # the whole module, every kind of statement above


def test_a_pruned_node_is_left_as_libcsts_visitor_leaves_it(module):
    class Pruning(_Recorder):
        def on_visit(self, node: cst.CSTNode) -> bool:
            super().on_visit(node)
            return not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.IfExp))

    libcst_walk, own_walk = Pruning(), Pruning()
    module.visit(libcst_walk)
    own_walk.walk(module)
    assert _without_layout(own_walk.events) == _without_layout(libcst_walk.events)
    assert any(isinstance(node, cst.ClassDef) for _, node in own_walk.events)


def test_syntax_children_are_libcsts_children_without_layout(module):
    checked = 0
    for node in walk_nodes(module):
        expected = [c for c in node.children if not isinstance(c, LAYOUT_TYPES)]
        # it may also hold a few layout nodes fields name (`*`, `/`, a relative import's dots,
        # a match pattern's `|`), which no caller looks for
        found = syntax_children(node)
        assert [c for c in found if not isinstance(c, LAYOUT_TYPES)] == expected, node
        checked += 1
    assert checked > 300


def test_parent_map_matches_a_visitor_for_every_non_layout_node(module):
    class Parents(cst.CSTVisitor):
        def __init__(self) -> None:
            self.parent: dict = {}
            self.stack: list = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if self.stack:
                self.parent[node] = self.stack[-1]
            self.stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            self.stack.pop()

    visitor = Parents()
    module.visit(visitor)
    expected = {
        child: parent
        for child, parent in visitor.parent.items()
        if not isinstance(child, LAYOUT_TYPES) and not isinstance(parent, LAYOUT_TYPES)
    }
    found = parent_map(module)
    assert {c: p for c, p in found.items() if not isinstance(c, LAYOUT_TYPES)} == expected


def test_collect_finds_classes_in_libcsts_order():
    source = (
        "class A:\n    class B:\n        pass\n    def m(self):\n        class C: pass\n"
        "def make():\n    class D: pass\n    if x:\n        class E: pass\n    return D\n"
        "def plain():\n    def inner():\n        class F: pass\n"
        "    def other():\n        if z:\n            class Hidden: pass\n"
        "if y:\n    class G: pass\nelse:\n    class H: pass\n"
    )
    region = linter._Region(1, source.count("\n"), cst.parse_module(source))
    classes, functions, owner = linter._collect([region])
    # A and its nested B; C in a method holding a class; D, E in a top-level function; F in a
    # nested function holding a class; not Hidden (its function holds no class at its top)
    assert [c.name.value for c in classes] == ["A", "B", "C", "D", "E", "F", "G", "H"]
    assert [f.name.value for f in functions] == ["make", "plain"]
    assert all(owner[c] is region for c in classes)
