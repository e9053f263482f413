"""A block may return None (or a tuple holding None, or an empty list) from an eager call, as
gluonts representations do (`return data, scale, rep_params` with scale=None, rep_params=[]).
The checker compares such outputs (None equals None only, empty lists add no output), so the
verdict is the hybridized call's: MXNet 1.9.1 refuses None as a graph output ("Expected a list
of symbols as input", raised after hybrid_forward returned), reported at the line the block's
hybrid_forward returned from."""

import textwrap

import numpy as np
import pytest

from hybridlint.checker import Example, check_fix, check_source
from hybridlint.checker.report import compare_arrays
from tests.checker_support import backend_params

SOURCE = textwrap.dedent(
    """\
    from mxnet import gluon


    class Rep(gluon.HybridBlock):
        def __init__(self, axis=-1, **kwargs):
            super().__init__(**kwargs)
            self.axis = axis

        def hybrid_forward(self, F, data, scale, rep_params):
            data = F.expand_dims(data, axis=self.axis)
            if self.axis == 0:
                return data, F.ones_like(data), rep_params
            return data, scale, rep_params


    class Empty(gluon.HybridBlock):
        def hybrid_forward(self, F, data):
            return data * 2, []
    """
)
LINES = SOURCE.splitlines()
RETURN_LINE = LINES.index("        return data, scale, rep_params") + 1
INPUTS = ((2, 3), None, {"list": []})


@pytest.mark.parametrize("backend", backend_params())
def test_none_in_the_outputs_is_the_hybridized_failure_at_the_return(backend):
    (report,) = check_source(SOURCE, "rep.py", [Example("Rep", INPUTS)], backend=backend)
    assert report.status == "hybrid_error", report.summary()
    assert "Expected a list of symbols as input" in report.reason
    assert report.source_line is not None and report.source_line.lineno == RETURN_LINE


@pytest.mark.parametrize("backend", backend_params())
def test_an_empty_list_output_hybridizes(backend):
    reports = check_source(
        SOURCE,
        "rep.py",
        [Example("Empty", ((2, 3),)), Example("Rep", INPUTS, {"axis": 0})],
        backend=backend,
    )
    assert [r.status for r in reports] == ["equal", "equal"], [r.summary() for r in reports]


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_of_a_block_returning_none_is_compared_eagerly(backend):
    fixed = SOURCE.replace("F.expand_dims(data, axis=self.axis)", "data.expand_dims(self.axis)")
    report = check_fix(SOURCE, fixed, "Rep", list(INPUTS), path="rep.py", backend=backend)
    assert report.stage == "fixed hybridize" and report.status == "hybrid_error", report.summary()
    moved = SOURCE.replace("return data, scale, rep_params", "return scale, data, rep_params")
    report = check_fix(SOURCE, moved, "Rep", list(INPUTS), path="rep.py", backend=backend)
    assert report.status == "mismatch" and report.stage == "fixed eager", report.summary()
    assert "output 0: None != float32 array of shape (2, 3, 1)" in report.reason


def test_none_equals_none_only():
    a = np.ones((2, 3), np.float32)
    same = compare_arrays([a, None], [a, None], 1e-5, 1e-5)
    assert [d.equal for d in same] == [True, True]
    swapped = compare_arrays([a, None], [None, a], 1e-5, 1e-5)
    assert [d.equal for d in swapped] == [False, False]
    assert swapped[0].describe() == "output 0: None != float32 array of shape (2, 3)"
    assert swapped[1].describe() == "output 1: float32 array of shape (2, 3) != None"
    assert not compare_arrays([None], [], 1e-5, 1e-5)[0].equal
