"""What HL018 reads from configured examples, checked against MXNet 1.9.1.

A configured example that passes a Python value as a (non-first) input of a block, or makes
hybrid_forward return None, proves the hybridized call fails: HL018 reports those findings
even though it is off by default (config.EXAMPLE_PROVEN). Here real MXNet (recorded) says
which example inputs a hybridized block refuses while its eager call runs, the engine must
agree, and `config.input_kind` must call exactly those "Python values"."""

import pytest

from hybridlint.config import input_kind
from hybridlint.project import ARRAY_KINDS
from hybridlint.engine.compat import as_mxnet
from mxnet_record import reference

# configured example inputs (TOML values) -> the Python value the checker passes
INPUTS = {
    "int": ({"int": 12}, 12),
    "float": ({"float": 0.5}, 0.5),
    "bare float": (0.5, 0.5),
    "bool": ({"bool": False}, False),
    "bare bool": (True, True),
    "str": ({"str": "mean"}, "mean"),
    "none": ({"none": True}, None),
    "int in a list": ({"list": [[2, 3], {"int": 3}]}, ["array", 3]),
    "none in a list": ({"list": [[2, 3], {"none": True}]}, ["array", None]),
    "list of arrays": ({"list": [[2, 3], [2, 3]]}, ["array", "array"]),
    "array": ([2, 3], "array"),
}


def _outcomes(mx) -> list:
    """For each input: (eager outcome, hybridized outcome) of a block passing it through
    unused, and of one returning None."""

    class Pass(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, value):
            return x * 2

    class ReturnsNone(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * 2, None

    def run(block, *args) -> str:
        try:
            block(*args)
            mx.nd.waitall()
            return "ok"
        except Exception as exc:  # the kind of failure is what is compared
            return type(exc).__name__

    def value(given):
        if given == "array":
            return mx.nd.ones((2, 3))
        if isinstance(given, list):
            return [value(item) for item in given]
        return given

    x = mx.nd.ones((2, 3))
    rows = []
    for name in sorted(INPUTS):
        eager, hybrid = Pass(), Pass()
        hybrid.hybridize()
        given = value(INPUTS[name][1])
        rows.append(f"{name}: {run(eager, x, given)} / {run(hybrid, x, given)}")
    eager, hybrid = Pass(), Pass()
    hybrid.hybridize()
    rows.append(f"int first: {run(eager, 3, x)} / {run(hybrid, 3, x)}")
    eager, hybrid = ReturnsNone(), ReturnsNone()
    hybrid.hybridize()
    rows.append(f"None output: {run(eager, x)} / {run(hybrid, x)}")
    return rows


@pytest.mark.mxnet
def test_the_engine_refuses_the_example_inputs_mxnet_refuses_hybridized():
    want = reference(_outcomes, ("example inputs eager / hybridized",))
    with as_mxnet() as mx:
        assert _outcomes(mx) == want


@pytest.mark.mxnet
def test_input_kind_calls_python_values_exactly_the_inputs_mxnet_refuses_hybridized():
    outcomes = dict(
        row.split(": ") for row in reference(_outcomes, ("example inputs eager / hybridized",))
    )
    for name, (toml_value, _) in INPUTS.items():
        eager, hybridized = outcomes[name].split(" / ")
        assert eager == "ok", name
        refused = input_kind(toml_value)[0] not in (*ARRAY_KINDS, "none")
        assert refused == (hybridized != "ok"), name
    # the first input too: gluon's eager call takes a Python value there (HL018 reports it)
    assert outcomes["int first"] == "ok / ValueError"
    assert outcomes["None output"].split(" / ") != ["ok", "ok"]
    assert outcomes["None output"].split(" / ")[1] == "TypeError"
