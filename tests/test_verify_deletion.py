"""--verify and fixes that delete a statement (HL001's shape-only assert): an example ran the
deleted statement when it ran the next statement of the same block (issue 20, defect class 1:
coverage decided from what ran, whatever the fix's shape). Before, a deletion had no line in
the fixed source, so no example could ever prove it and --verify left the block failing where
--fix fixed it (gluoncv2 FractalBlock)."""

import pytest

from hybridlint.checker import CheckerSession, Example, verify_fixes
from hybridlint.checker.verify import _after_deletion
from tests.checker_support import backend_params

ORIGINAL = (
    "def f(x):\n    if x:\n        assert x.shape\n        y = 1\n    assert x.ndim\n    return y\n"
)


def test_the_next_statement_of_the_block_stands_for_the_deleted_one():
    fixed = ORIGINAL.replace("        assert x.shape\n", "")
    assert _after_deletion(ORIGINAL, fixed, 3) == [3]  # `y = 1`, same block


def test_a_deletion_that_ends_its_block_is_stood_for_by_the_statement_before_it():
    # the next line is outside the `if`: running it says nothing; `assert x.shape` before the
    # deleted line, in the same block, ran only if control went on to it (a review's case)
    fixed = ORIGINAL.replace("        y = 1\n", "")
    assert _after_deletion(ORIGINAL, fixed, 4) == [3]


@pytest.mark.parametrize(
    "before",
    ["        return x", "        raise ValueError(x)", "        for i in x:", "        y = f(x,"],
)
def test_no_line_when_the_statement_before_does_not_pass_control_on(before):
    original = f"def f(x):\n    if x:\n{before}\n        assert x.shape\n    return x\n"
    fixed = original.replace("        assert x.shape\n", "")
    assert _after_deletion(original, fixed, 4) == []


def test_no_line_when_the_deletion_is_alone_in_its_block_or_after_a_nested_one():
    original = "def f(x):\n    if x:\n        if x.ndim:\n            y = 1\n        assert x.shape\n    return x\n"
    fixed = original.replace("        assert x.shape\n", "")
    assert _after_deletion(original, fixed, 5) == []  # `y = 1` is a deeper block


def test_comments_and_blank_lines_are_passed_over():
    original = "def f(x):\n    assert x.shape\n\n    # why\n    return x\n"
    fixed = "def f(x):\n\n    # why\n    return x\n"
    assert _after_deletion(original, fixed, 2) == [4]


BLOCK = """\
from mxnet import gluon


class Rows(gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        assert x.shape[0] == y.shape[0]
        return F.broadcast_add(x, y)
"""


@pytest.fixture(scope="module")
def session():
    with CheckerSession(timeout=30) as s:
        yield s


LAST_IN_BLOCK = """\
from mxnet import gluon


class Rows(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check = True

    def hybrid_forward(self, F, x, y):
        if self._check:
            x = x * 2
            assert x.shape[0] == y.shape[0]
        return F.broadcast_add(x, y)
"""


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "source, line",
    [(BLOCK, 6), (LAST_IN_BLOCK, 12)],  # the assert before a statement / ending its block
    ids=["next-statement", "end-of-block"],
)
def test_a_deleted_shape_assert_is_proven_by_the_example_that_ran_it(
    backend, source, line, session, tmp_path
):
    path = tmp_path / "rows.py"
    path.write_text(source)
    examples = [Example("Rows", ((2, 3), (2, 3)))]
    outcome = verify_fixes(source, str(path), examples, backend=backend, session=session)
    assert not outcome.rejected, outcome.rejected
    assert sorted({(f.code, f.line) for f in outcome.applied}) == [("HL001", line)]
    assert "assert" not in outcome.source and outcome.status == "verified"
