"""With real MXNet installed, the checker's verdicts on testdata agree between the backends.

Same user code, same examples, run once on the bundled engine and once on real MXNet 1.9.1:
the status, the number and shapes of outputs, the failing stage and line, and the run-time
findings must be the same. (Values are compared within each run, eager vs hybridized; the
two backends' random initialisations differ, so outputs are not compared across them.)
"""

import os

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

import pytest

from hybridlint.checker import CheckerSession, check_file, examples_from_config
from tests.checker_support import ROOT, data, engine_redirect_available

pytestmark = [
    pytest.mark.mxnet,
    pytest.mark.skipif(
        not engine_redirect_available(), reason="hybridlint.engine.as_mxnet not available"
    ),
]

CASES = [
    (
        "good.py",
        {
            "Residual": [(2, 8)],
            "TwoOutputs": [(2, 3), (2, 3)],
            "make_residual": [(3, 4)],
            "PlainWrapper": [(2, 3)],
        },
    ),
    ("broadcast_add.py", {"CenterRows": [(2, 3)]}),
    ("shape_attr.py", {"FlattenByShape": [(2, 3, 4)]}),
    ("first_row.py", {"FirstRow": [(3, 4)]}),
    ("eager_fail.py", {"BadDot": [(2, 3)]}),
    ("exits.py", {"Never": [(2,)]}),
    ("missing_import.py", {"Unreachable": [(2,)]}),
    ("crashes.py", {"Crash": [(2,)]}),
    ("slicing.py", {"PickColumn": [(2, 5)]}),
    ("two_slices.py", {"TwoSlices": [(2, 7)]}),
    ("hidden.py", {"Hidden": [(2, 3)], "HiddenShape": [(2, 3, 4)]}),
]


def model_cases():
    """testdata/models/*.py with the examples of testdata/checker/model_examples.toml."""
    with open(data("model_examples.toml"), "rb") as handle:
        table = examples_from_config(tomllib.load(handle)["examples"])
    return [
        (os.path.join(ROOT, path), example)
        for path, examples in table.items()
        for example in examples
    ]


@pytest.fixture(scope="module")
def sessions():
    with CheckerSession(timeout=60) as engine, CheckerSession(timeout=60) as real:
        yield {"engine": engine, "mxnet": real}


def verdict(report):
    findings = sorted((f.code, f.line) for f in report.runtime_findings)
    line = report.source_line.lineno if report.source_line else None
    shapes = [d.actual_shape for d in report.outputs]
    return report.status, report.stage, line, findings, shapes


@pytest.mark.parametrize("name, examples", CASES, ids=[c[0] for c in CASES])
def test_checker_testdata_verdicts_agree(name, examples, sessions):
    engine = check_file(data(name), examples, backend="engine", session=sessions["engine"])
    real = check_file(data(name), examples, backend="mxnet", session=sessions["mxnet"])
    assert [verdict(r) for r in engine] == [verdict(r) for r in real], (
        [r.summary() for r in engine],
        [r.summary() for r in real],
    )


@pytest.mark.parametrize(
    "path, example",
    model_cases(),
    ids=[f"{os.path.basename(p)}::{e.target}-{i}" for i, (p, e) in enumerate(model_cases())],
)
def test_model_verdicts_agree(path, example, sessions):
    (engine,) = check_file(path, [example], backend="engine", session=sessions["engine"])
    (real,) = check_file(path, [example], backend="mxnet", session=sessions["mxnet"])
    assert verdict(engine) == verdict(real), (engine.summary(), real.summary())
