"""Every verdict of the checker, on each backend, from the user modules in testdata/checker."""

import pytest

from hybridlint.checker import CheckerSession, check_file, check_fix
from tests.checker_support import backend_params, data


@pytest.fixture(scope="module")
def session():
    with CheckerSession(timeout=30) as s:
        yield s


def one(path, examples, backend, session):
    (report,) = check_file(data(path), examples, backend=backend, session=session)
    return report


@pytest.mark.parametrize("backend", backend_params())
def test_equal_blocks_including_export_roundtrip(backend, session):
    reports = check_file(
        data("good.py"),
        {"Residual": [(2, 8)], "TwoOutputs": [(2, 3), (2, 3)], "make_residual": [(3, 4)]},
        backend=backend,
        session=session,
    )
    assert [r.status for r in reports] == ["equal"] * 3, [r.summary() for r in reports]
    assert len(reports[1].outputs) == 2 and len(reports[1].roundtrip) == 2
    assert reports[0].outputs[0].actual_shape == (2, 8)
    assert reports[0].backend == backend


@pytest.mark.parametrize("backend", backend_params())
def test_plain_block_with_hybrid_child_has_no_export_roundtrip(backend, session):
    report = one("good.py", {"PlainWrapper": [(2, 3)]}, backend, session)
    assert report.ok, report.summary()
    assert report.roundtrip == [] and report.outputs[0].actual_shape == (2, 3)


@pytest.mark.parametrize("backend", backend_params())
def test_constructor_kwargs_are_passed(backend, session):
    report = one(
        "good.py", {"Residual": {"inputs": [[2, 4]], "kwargs": {"units": 4}}}, backend, session
    )
    assert report.ok, report.summary()
    wrong = one(
        "good.py", {"Residual": {"inputs": [[2, 4]], "kwargs": {"units": 5}}}, backend, session
    )
    assert wrong.status == "eager_error"  # residual add of (2, 5) and (2, 4)


@pytest.mark.parametrize("backend", backend_params())
def test_broadcast_arithmetic_is_a_hybrid_error(backend, session):
    report = one("broadcast_add.py", {"CenterRows": [(2, 3)]}, backend, session)
    assert report.status == "hybrid_error" and report.stage == "hybridize"
    assert report.error_type == "MXNetError"
    # the engine records each node's line; on MXNet the checker maps the node name back
    assert report.source_line.lineno == 8 and "x - mean" in report.source_line.text
    assert [(f.code, f.line) for f in report.runtime_findings] == [("HL007", 8)]
    assert report.runtime_findings[0].name == "non-broadcast-arithmetic"


@pytest.mark.parametrize("backend", backend_params())
def test_shape_attribute_in_a_helper_points_at_the_user_line(backend, session):
    report = one("shape_attr.py", {"FlattenByShape": [(2, 3, 4)]}, backend, session)
    assert report.status == "hybrid_error"
    assert report.error_type == "AttributeError"
    assert report.source_line.lineno == 6 and "t.shape[0]" in report.source_line.text
    assert [(f.code, f.line) for f in report.runtime_findings] == [("HL001", 6)]
    assert "observed at run time" in report.runtime_findings[0].message


@pytest.mark.parametrize("backend", backend_params())
def test_output_index_is_a_mismatch_with_its_line(backend, session):
    report = one("first_row.py", {"FirstRow": [(3, 4)]}, backend, session)
    assert report.status == "mismatch"
    assert report.outputs[0].expected_shape == (4,) and report.outputs[0].actual_shape == (3, 4)
    assert [(f.code, f.line) for f in report.runtime_findings] == [("HL003", 6)]


@pytest.mark.parametrize("backend", backend_params())
def test_eager_failure(backend, session):
    report = one("eager_fail.py", {"BadDot": [(2, 3)]}, backend, session)
    assert report.status == "eager_error" and report.stage == "eager"
    assert report.source_line.lineno == 7


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "path, target, words",
    [
        ("exits.py", "Never", "sys.exit"),
        ("missing_import.py", "Unreachable", "missing import"),
        ("crashes.py", "Crash", "exit code 7"),
        ("good.py", "NoSuchBlock", "not defined"),
    ],
)
def test_user_code_that_cannot_run(backend, session, path, target, words):
    report = one(path, {target: [(2, 3)]}, backend, session)
    assert report.status == "cannot_run"
    assert words in report.reason


@pytest.mark.parametrize("backend", backend_params())
def test_a_hang_is_killed_and_the_session_recovers(backend):
    with CheckerSession(timeout=3) as short:
        hung = one("hangs.py", {"Spin": [(2, 3)]}, backend, short)
        assert hung.status == "cannot_run" and "did not finish within 3 s" in hung.reason
        after = one("good.py", {"TwoOutputs": [(2, 3), (2, 3)]}, backend, short)
        assert after.ok and short.workers_started == 2


@pytest.mark.parametrize("backend", backend_params())
def test_worker_is_reused_across_blocks(backend):
    with CheckerSession() as s:
        for _ in range(3):
            assert one("good.py", {"TwoOutputs": [(2, 3), (2, 3)]}, backend, s).ok
        assert s.jobs_run == 3 and s.workers_started == 1


def test_unreadable_file_and_unknown_backend():
    (report,) = check_file(data("no_such_file.py"), {"A": [(2,)]})
    assert report.status == "cannot_run" and "cannot read" in report.reason
    with pytest.raises(ValueError, match="unknown backend"):
        check_file(data("good.py"), {"Residual": [(2, 8)]}, backend="tensorflow")


@pytest.mark.parametrize("backend", backend_params())
def test_check_fix_accepts_a_correct_rewrite_and_rejects_a_wrong_one(backend, session):
    original = open(data("slicing.py")).read()
    right = original.replace(
        "h[:, 1]", "F.squeeze(F.slice_axis(h, axis=1, begin=1, end=2), axis=1)"
    )
    wrong = original.replace(
        "h[:, 1]", "F.squeeze(F.slice_axis(h, axis=1, begin=0, end=1), axis=1)"
    )
    ok = check_fix(
        original,
        right,
        "PickColumn",
        [(2, 5)],
        path=data("slicing.py"),
        backend=backend,
        session=session,
    )
    assert ok.status == "equal", ok.summary()
    assert ok.comparison == "original eager vs fixed hybridized"
    bad = check_fix(
        original,
        wrong,
        "PickColumn",
        [(2, 5)],
        path=data("slicing.py"),
        backend=backend,
        session=session,
    )
    assert bad.status == "mismatch" and bad.stage == "fixed eager"
    assert bad.max_abs_diff > 1e-3
    broken = check_fix(
        original,
        original.replace("h[:, 1]", "h.nope()"),
        "PickColumn",
        [(2, 5)],
        path=data("slicing.py"),
        backend=backend,
        session=session,
    )
    assert broken.status == "eager_error" and broken.stage == "fixed eager"


@pytest.mark.parametrize("backend", backend_params())
def test_memory_limit_applies_to_user_code(backend):
    with CheckerSession(memory_mb=2048) as limited:
        report = one("memory_hog.py", {"Hog": [(2, 3)]}, backend, limited)
    assert report.status == "cannot_run" and "out of memory" in report.reason
    with CheckerSession(memory_mb=0) as unlimited:  # 0: no limit; np.empty touches no pages
        assert one("memory_hog.py", {"Hog": [(2, 3)]}, backend, unlimited).ok


@pytest.mark.parametrize("backend", backend_params())
def test_jobs_do_not_leak_modules_or_cwd(backend, tmp_path):
    """A sibling module rewritten between two jobs (as --fix --verify does) is re-imported."""
    (tmp_path / "layers.py").write_text(
        "from mxnet import gluon\n\nclass Body(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n        return F.dot(x, x)\n"
    )
    main = tmp_path / "main.py"
    main.write_text(
        "import os\nimport layers\n\nos.chdir('/')\n\nclass Net(layers.Body):\n    pass\n"
    )
    with CheckerSession() as s:
        (first,) = check_file(str(main), {"Net": [(2, 3)]}, backend=backend, session=s)
        assert first.status == "eager_error"
        (tmp_path / "layers.py").write_text(
            "from mxnet import gluon\n\nclass Body(gluon.HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n        return F.relu(x)\n"
        )
        (second,) = check_file(str(main), {"Net": [(2, 3)]}, backend=backend, session=s)
        assert second.ok, second.summary()
        assert s.workers_started == 1


CONSTANT_ORIGINAL = """\
from mxnet import gluon, nd
from mxnet.gluon import nn


class Offset(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Dense(3, flatten=False))

    def hybrid_forward(self, F, x):
        return F.broadcast_add(self.body(x), nd.array([1.0, 2.0, 3.0]))
"""

CONSTANT_FIXED = """\
from mxnet import gluon, nd
from mxnet.gluon import nn


class Offset(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Dense(3, flatten=False, prefix='proj_'))
            self.offset = self.params.get_constant('offset', [1.0, 2.0, 3.0])

    def hybrid_forward(self, F, x, offset):
        return F.broadcast_add(self.body(x), offset)
"""


@pytest.mark.parametrize("backend", backend_params())
def test_check_fix_matches_renamed_parameters_and_keeps_new_constants(backend, session):
    report = check_fix(
        CONSTANT_ORIGINAL,
        CONSTANT_FIXED,
        "Offset",
        [(2, 4)],
        path="offset.py",
        backend=backend,
        session=session,
    )
    assert report.status == "equal", report.summary()
    # dense0_weight -> proj_weight: the same place in the tree (body.0.weight), so no note;
    # the constant the fix added keeps its own value silently
    assert not report.notes, report.notes
    wrong = check_fix(
        CONSTANT_ORIGINAL,
        CONSTANT_FIXED.replace("[1.0, 2.0, 3.0]", "[1.0, 2.0, 4.0]"),
        "Offset",
        [(2, 4)],
        path="offset.py",
        backend=backend,
        session=session,
    )
    assert wrong.status == "mismatch" and wrong.max_abs_diff == pytest.approx(1.0)
