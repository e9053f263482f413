"""check_block on classes, factories, live instances and closures; check_expression."""

import contextlib
import importlib.util

import numpy as np
import pytest

import hybridlint
from hybridlint.checker import CheckerSession, InputSpec, check_block, check_expression
from tests.checker_support import backend_params, data


@pytest.fixture(scope="module")
def session():
    with CheckerSession(timeout=30) as s:
        yield s


def import_user_module(name, backend):
    """Import a testdata module in this process, under the engine or real MXNet."""
    if backend == "engine":
        from hybridlint.engine import as_mxnet

        context = as_mxnet()
    else:
        pytest.importorskip("mxnet")
        context = contextlib.nullcontext()
    spec = importlib.util.spec_from_file_location(f"checker_{name}_{backend}", data(name + ".py"))
    module = importlib.util.module_from_spec(spec)
    with context:
        spec.loader.exec_module(module)
    return module


def test_public_api_is_reexported():
    for name in (
        "check_block",
        "check_fix",
        "check_file",
        "EquivalenceReport",
        "lint_source",
        "fix_source",
    ):
        assert getattr(hybridlint, name) is getattr(hybridlint.api, name)


@pytest.mark.parametrize("backend", backend_params())
def test_class_is_reimported_in_the_worker(backend, session):
    good = import_user_module("good", backend)
    report = check_block(good.Residual, (2, 8), backend=backend, session=session)
    assert report.ok, report.summary()
    assert report.target.endswith("good.py::Residual") and report.backend == backend
    two = check_block(
        good.TwoOutputs,
        InputSpec((2, 3)),
        np.ones((2, 3), np.float32),
        backend=backend,
        session=session,
    )
    assert two.ok and len(two.outputs) == 2


@pytest.mark.parametrize("backend", backend_params())
def test_live_instance_and_closure_run_in_a_forked_child(backend, session):
    good = import_user_module("good", backend)
    block = good.Residual(units=4)
    report = check_block(block, (3, 4), backend=backend, session=session)
    assert report.ok and report.backend == backend
    closure = check_block(lambda: good.Residual(units=5), (3, 5), backend=backend, session=session)
    assert closure.ok
    first_row = import_user_module("first_row", backend)
    mismatch = check_block(first_row.FirstRow(), (3, 4), backend=backend, session=session)
    assert mismatch.status == "mismatch"
    assert [(f.code, f.line) for f in mismatch.runtime_findings] == [("HL003", 6)]


@pytest.mark.parametrize("backend", backend_params())
def test_forked_hang_is_killed(backend):
    hangs = import_user_module("hangs", backend)
    with CheckerSession(timeout=2) as short:
        report = check_block(hangs.Spin(), (2, 3), backend=backend, session=short)
    assert report.status == "cannot_run" and "did not finish" in report.reason


def test_not_a_block_is_cannot_run(session):
    report = check_block(lambda: 42, (2,), session=session)
    assert report.status == "cannot_run" and "not a Gluon Block" in report.reason


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="at least one input"):
        check_block(lambda: None)
    with pytest.raises(ValueError, match="cannot use"):
        check_block(lambda: None, "2,3")


@pytest.mark.parametrize("backend", backend_params())
def test_expression_level_check(backend, session):
    shapes = {"x": (3, 4)}
    right = check_expression(
        "x[:, 1]",
        "F.squeeze(F.slice_axis(x, axis=1, begin=1, end=2), axis=1)",
        shapes,
        backend=backend,
        session=session,
    )
    assert right.ok, right.summary()
    wrong = check_expression(
        "x[:, 1]",
        "F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)",
        shapes,
        backend=backend,
        session=session,
    )
    assert wrong.status == "mismatch"
    broadcast = check_expression(
        "x - y",
        "F.broadcast_sub(x, y)",
        {"x": (2, 3), "y": (2, 1)},
        backend=backend,
        session=session,
    )
    assert broadcast.ok, broadcast.summary()


@pytest.mark.mxnet
def test_live_instance_runs_on_its_own_framework_with_a_note(session):
    good = import_user_module("good", "mxnet")
    report = check_block(good.Residual(units=4), (3, 4), backend="engine", session=session)
    assert report.ok and report.backend == "mxnet"
    assert any("built with mxnet" in note for note in report.notes)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "name, block, line", [("shape_attr", "FlattenByShape", 6), ("broadcast_add", "CenterRows", 8)]
)
def test_live_instance_and_class_by_name_give_the_same_verdict(backend, session, name, block, line):
    module = import_user_module(name, backend)
    cls = getattr(module, block)
    by_name = check_block(cls, (2, 3, 4), backend=backend, session=session)
    live = check_block(cls(), (2, 3, 4), backend=backend, session=session)
    closure = check_block(lambda: cls(), (2, 3, 4), backend=backend, session=session)
    for report in (by_name, live, closure):
        assert report.status == "hybrid_error", report.summary()
        assert report.source_line.lineno == line
        assert [f.line for f in report.runtime_findings] == [line]


MAIN_SCRIPT = """
from hybridlint.engine import as_mxnet
with as_mxnet():
    from mxnet import gluon


class FlattenByShape(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x.reshape((x.shape[0], -1))


from hybridlint.checker import CheckerSession, check_block
with CheckerSession(timeout=60) as session:
    report = check_block(FlattenByShape, (2, 3, 4), session=session)
print("RESULT", report.status, report.source_line.lineno)
"""


def test_a_class_defined_in_main_is_checked_live_not_by_rerunning_the_script(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text(MAIN_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert "RESULT hybrid_error 9" in done.stdout, done.stderr[-2000:]
