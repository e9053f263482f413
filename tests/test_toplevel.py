"""The text scanner that finds top-level statements without parsing (hybridlint/toplevel.py).

It must agree with `ast` wherever it answers at all; the linter falls back to `ast` when a
region or the skeleton it yields does not parse, so a wrong answer can cost time, never a
wrong finding. Checked here on tricky snippets and, differentially, on the standard library.
"""

import ast
import os
import random

import pytest

from hybridlint import toplevel
from hybridlint.linter import SourceSyntaxError, lint_source, split_lines


def ast_starts(source):
    tree = ast.parse(source)
    out = []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if not out or out[-1] != first:  # `a = 1; b = 2` is one line for the scanner
            out.append(first)
    return out, tree


def check(source):
    statements = toplevel.scan(source)
    assert statements is not None
    starts, tree = ast_starts(source)
    assert [s.first for s in statements] == starts
    ends = {}
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        ends[first] = max(ends.get(first, 0), node.end_lineno)
    for statement in statements:
        assert statement.last >= ends[statement.first]
    ast.parse(toplevel.skeleton(source, statements, split_lines(source)))
    return statements


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",
        'DOC = """\ncolumn zero\nclass Fake:\n"""\nclass Real(object):\n    pass\n',
        "x = (1,\n2)\ny = [\n]\n",
        "x = 1 + \\\n2\ndef f():\n    return 1\n",
        "@dec\n@dec2(a=lambda v: v)\nclass A(B,\n        C):\n    x: int = 1\n",
        "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n"
        "try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n",
        "a = 1; b = 2\nasync def g():\n    await x\n",
        "s = 'a#b' # comment with 'quote\nt = r'\\\\'\nu = '\\''\n",
        "x = 1\r\ndef f(a: int = 2) -> Dict[str, int]:\r\n    return {'a': 1}\r\n",
        "f = f'{x!r:>{width}}'\nclass K: pass\n",
        "# only a comment\n\n\n",
        "def f():\n    '''doc\n\\'''\nstill doc'''\n    return 1\nx = 2",
    ],
)
def test_scanner_agrees_with_ast(source):
    check(source)


@pytest.mark.parametrize("source", ["x = 'unterminated\n", "x = (1,\n", "x = )\n"])
def test_scanner_says_when_it_is_not_sure(source):
    assert toplevel.scan(source) is None


def test_scanner_kinds_names_and_headers():
    statements = check(
        "import os\nfrom a import b\n@d\ndef f(x):\n    pass\n"
        "class C(Base, metaclass=M):\n    pass\nx = 1\n"
    )
    assert [(s.kind, s.name) for s in statements] == [
        ("import", None),
        ("import", None),
        ("def", "f"),
        ("class", "C"),
        ("other", None),
    ]
    assert statements[3].header == "class C(Base, metaclass=M):"


def test_scanner_agrees_with_ast_on_the_standard_library():
    root = os.path.dirname(ast.__file__)
    paths = sorted(
        os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f.endswith(".py")
    )
    random.Random(0).shuffle(paths)
    checked = 0
    for path in paths[:150]:
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
            ast.parse(source)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            continue
        statements = toplevel.scan(source)
        if statements is None:
            continue
        assert [s.first for s in statements] == ast_starts(source)[0], path
        checked += 1
    assert checked > 100


def test_syntax_errors_are_found_where_the_file_is_parsed():
    block = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n"
    with pytest.raises(SourceSyntaxError):
        lint_source(block.replace("return x", "return x +"))  # in a region
    with pytest.raises(SourceSyntaxError):
        lint_source("import os,\n" + block)  # in the skeleton
    with pytest.raises(SourceSyntaxError):
        lint_source("def other():\n    return (1 +\n\n" + block)  # unbalanced: ast decides
    # a short function returning a comparison is parsed (it may be a namespace test the
    # guards read); another short one is not
    with pytest.raises(SourceSyntaxError):
        lint_source("def other(F):\n    return F ==\n\n\n" + block)
    assert lint_source("def other():\n    return 1 +\n\n\n" + block) == []
    # inside a function body the linter does not parse, a syntax error goes unnoticed (by
    # design: parsing every line of a file would cost as much as the whole lint)
    long_body = "def other():\n" + "    a = 1\n" * 8 + "    return 1 +\n\n\n"
    assert lint_source(long_body + block) == []
