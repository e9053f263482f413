"""The checker on the engine's hybridize-failure patterns (tests/test_engine_hybridize_patterns.py)
against real MXNet 1.9.1: the same block, the same inputs, checked by `check_file` on both
backends. The engine never says `equal` where MXNet does not; apart from `cannot_run` (no
verdict), status and failing stage agree."""

import importlib.util

import pytest

from hybridlint.checker import CheckerSession, check_file
from tests.checker_support import engine_redirect_available
from tests.test_engine_hybridize_patterns import PATTERNS

pytestmark = [
    pytest.mark.mxnet,
    pytest.mark.skipif(
        importlib.util.find_spec("mxnet") is None or not engine_redirect_available(),
        reason="needs real MXNet and the engine",
    ),
]

MODULE = """\
import mxnet as mx_lib
from mxnet import gluon


class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        {body}
"""
INPUTS = [{"value": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]}, {"value": [[1.0, 2.0, 3.0]]}]


@pytest.fixture(scope="module")
def sessions():
    with CheckerSession(timeout=60) as engine, CheckerSession(timeout=60) as real:
        yield engine, real


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_engine_verdict_never_claims_more_than_mxnet(name, sessions, tmp_path):
    path = tmp_path / "pattern.py"
    path.write_text(MODULE.format(body=PATTERNS[name]))
    examples = {"Net": {"inputs": INPUTS}}
    (mine,) = check_file(str(path), examples, backend="engine", session=sessions[0])
    (theirs,) = check_file(str(path), examples, backend="mxnet", session=sessions[1])
    if mine.status == "equal":
        assert theirs.status == "equal", (mine.summary(), theirs.summary())
    if mine.status != "cannot_run":
        assert (mine.status, mine.stage) == (theirs.status, theirs.stage), (
            mine.summary(),
            theirs.summary(),
        )
        lines = [r.source_line.lineno if r.source_line else None for r in (mine, theirs)]
        assert lines[0] == lines[1] or None in lines, (mine.summary(), theirs.summary())
