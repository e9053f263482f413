"""HL010 skips LibCST's visitor with a plain field walk (`_calls`); these tests pin that the
walk finds exactly the calls LibCST's own visit finds, so the cheap pre-check that gates the
rule can never hide a child the full analysis would report."""

from __future__ import annotations

import ast
import glob
import os

import libcst as cst
import pytest

from hybridlint.rules import hl010_non_hybrid_child as hl010
from hybridlint.rules.hl010_non_hybrid_child import NonHybridChild, _calls

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _AllCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.calls = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _sources():
    paths = sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.py"), recursive=True))
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        try:  # Python's parser: ~10x cheaper than LibCST's, and this runs at collection
            ast.parse(source)
        except SyntaxError:  # seeds holding deliberately broken snippets
            continue
        if "(" in source:
            yield os.path.relpath(path, ROOT), source
    tricky = (
        "@deco(make())\nclass A(B(1)):\n    x: f(1) = g(2)\n    def m(self, a=h(3)) -> r(4):\n"
        "        return [k(i) for i in l(5) if p(i)] or (q(6) if s(7) else t(8))\n"
        "y = lambda z=u(9): v(z)\nw = {a(1): b(2) for _ in c(3)}\nawait_ = f'{fmt(1)!r:{w(2)}}'\n"
        "with ctx(1) as x, ctx(2):\n    del d[i(1)]\n    assert ok(1), msg(2)\n"
        "try:\n    raise E(1) from F(2)\nexcept G(3):\n    pass\nfinally:\n    fin(1)\n"
        "x = (yield from gen(1))\nx[s(1):e(2):st(3)] = *spread(1), 2\nglobal_(1) @ m(2)\n"
    )
    yield "tricky", tricky


def test_sources_have_calls():
    sources = list(_sources())
    assert len(sources) > 20
    for _, source in sources[-1:]:
        visitor = _AllCalls()
        cst.parse_module(source).visit(visitor)
        assert len(visitor.calls) > 30


@pytest.mark.parametrize(
    "name,source", list(_sources()), ids=lambda v: v if isinstance(v, str) and len(v) < 80 else ""
)
def test_calls_matches_libcst_visit(name, source):
    module = cst.parse_module(source)
    visitor = _AllCalls()
    module.visit(visitor)
    found = _calls(module)
    assert len(found) == len(visitor.calls)
    assert {id(c) for c in found} == {id(c) for c in visitor.calls}


def test_precheck_gates_every_invalid_example():
    """Each INVALID example passes the pre-check (else it would not be reported at all), and a
    pre-check that says "nothing here" is what the VALID examples without non-hybrid calls get."""
    from hybridlint.linter import lint_source

    assert all(
        lint_source(example.code, rules=[NonHybridChild]) for example in NonHybridChild.INVALID
    )
    seen = []
    original = hl010._may_create_non_hybrid

    def spy(klass, init, context):
        result = original(klass, init, context)
        seen.append((klass.name, result))
        return result

    hl010._may_create_non_hybrid = spy
    try:
        for example in NonHybridChild.INVALID:
            lint_source(example.code, rules=[NonHybridChild])
        assert seen and all(result for name, result in seen if name == "Net")
        seen.clear()
        lint_source(NonHybridChild.VALID[0].code, rules=[NonHybridChild])  # HybridSequential only
        assert seen == [("Net", False)]
    finally:
        hl010._may_create_non_hybrid = original
