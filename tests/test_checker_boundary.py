"""A hybridized block refuses a Python value among its inputs or outputs: the checker names it.

MXNet raises inside gluon's own argument handling ("the input of HybridBlock input must be
(nested) list of Symbol or NDArray, but got 12 of type <class 'int'>"), before hybrid_forward
runs: no user line, no parameter name. The checker knows what it passed, so the report names
the parameter and points at its line in the `def` header (HL018's hazard); a refused output
keeps the return line and says what the rule is."""

import textwrap

import numpy as np
import pytest

from hybridlint.checker import CheckerSession, check_source, examples_from_config
from hybridlint.checker.boundary import _refused_input
from tests.checker_support import backend_params

SOURCE = textwrap.dedent("""\
    from mxnet import gluon


    class Smooth(gluon.HybridBlock):
        def hybrid_forward(self, F, inputs, units=None):
            return F.one_hot(inputs, depth=units)


    class Decoder(gluon.HybridBlock):
        def hybrid_forward(
            self,
            F,
            x,
            is_train: bool = True,
        ):
            return F.relu(x) if is_train else x


    class WithCache(gluon.HybridBlock):
        def hybrid_forward(self, F, x, cache=None):
            return F.relu(x), cache
""")
EXAMPLES = {
    "net.py::Smooth": {"inputs": [{"shape": [2, 3], "dtype": "int32", "high": 5}, {"int": 5}]},
    "net.py::Decoder": {"inputs": [[2, 3], {"bool": False}]},
    "net.py::WithCache": {"inputs": [[2, 3]]},
}


@pytest.fixture(scope="module", params=backend_params())
def reports(request):
    examples = examples_from_config(EXAMPLES)["net.py"]
    with CheckerSession(timeout=60) as session:
        found = check_source(SOURCE, "net.py", examples, backend=request.param, session=session)
    return {r.target.split("::")[-1]: r for r in found}


def test_an_int_input_is_named_at_its_def_line(reports):
    report = reports["Smooth"]
    assert report.status == "hybrid_error"
    assert "input `units` is 5, an int: a hybridized block takes only arrays" in report.reason
    assert report.source_line.lineno == 5


def test_a_bool_input_points_at_its_own_line_of_the_header(reports):
    report = reports["Decoder"]
    assert "input `is_train` is False, a bool" in report.reason
    assert report.source_line.lineno == 14


def test_a_none_output_keeps_the_return_line_and_says_the_rule(reports):
    report = reports["WithCache"]
    assert "hybrid_forward returns something other than arrays" in report.reason
    assert report.source_line.lineno == 21


def test_arrays_none_and_lists_of_them_pass_anything_else_is_refused():
    array = np.ones((2, 3), np.float32)
    assert _refused_input([array, None, [array, (array, None)]]) is None
    assert _refused_input([array, [array, 3]]) == (1, [array, 3])
    assert _refused_input([array, {"k": array}]) == (1, {"k": array})
