"""The checker through the CLI: `hybridlint verify FILE::Class --input ...` and
`hybridlint --fix --verify` with examples from pyproject.toml."""

import os
import shutil

import pytest
from click.testing import CliRunner

from hybridlint.cli import cli
from tests.checker_support import data


def run(args, cwd):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "models").mkdir()
    shutil.copy(data("two_slices.py"), tmp_path / "models" / "two_slices.py")
    shutil.copy(data("missing_import.py"), tmp_path / "models" / "missing_import.py")
    (tmp_path / "models" / "missing_import.py").write_text(
        (tmp_path / "models" / "missing_import.py").read_text()
        + "\n\nclass Sliced(gluon.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        "        return x[:, 1]\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n"
        '"models/two_slices.py::TwoSlices" = { inputs = [[2, 7]] }\n'
        '"models/missing_import.py::Sliced" = { inputs = [[2, 3]] }\n'
    )
    return tmp_path


def test_verify_command_reports_equal_and_exit_zero(tmp_path):
    result = run(["verify", data("good.py") + "::Residual", "--input", "2,8"], tmp_path)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("equal: ")


def test_verify_command_reports_the_failing_line_and_runtime_finding(tmp_path):
    result = run(
        ["verify", data("shape_attr.py") + "::FlattenByShape", "--input", "2,3,4"], tmp_path
    )
    assert result.exit_code == 1
    assert "hybrid_error" in result.output and "shape_attr.py:6" in result.output
    assert "HL001 observed at run time" in result.output


def test_verify_command_uses_configured_examples(project):
    result = run(["verify", "models/two_slices.py::TwoSlices"], project)
    assert result.exit_code == 1 and "hybrid_error" in result.output


def test_fix_verify_writes_only_verified_fixes(project):
    result = run(["--fix", "--verify", "models/two_slices.py"], project)
    assert result.exit_code == 0, result.output
    text = (project / "models" / "two_slices.py").read_text()
    assert "F.squeeze(F.slice_axis(h, axis=1, begin=1, end=2), axis=1)" in text
    assert "h[:" not in text
    assert run(["verify", "models/two_slices.py::TwoSlices"], project).exit_code == 0


def test_fix_verify_on_a_file_that_cannot_run_applies_what_its_expressions_prove(project):
    """As --fix would, and said to be proven at expression level only; the file stays an
    error (exit 2): its examples could not run."""
    path = project / "models" / "missing_import.py"
    result = run(["--fix", "--verify", "models/missing_import.py"], project)
    assert result.exit_code == 2  # a file error: the checker cannot tell, never a pass
    assert "F.slice_axis(x, axis=1, begin=1, end=2)" in path.read_text()
    assert "proven at expression level only" in result.output
    assert "missing import" in result.output
    assert "the checker cannot run" in result.output and "All checks passed" not in result.output


def test_fix_verify_reports_runtime_findings_static_analysis_missed(tmp_path):
    shutil.copy(data("hidden.py"), tmp_path / "hidden.py")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n"
        '"hidden.py::Hidden" = { inputs = [[2, 3]] }\n'
        '"hidden.py::HiddenShape" = { inputs = [[2, 3, 4]] }\n'
    )
    assert run(["--no-cache", "hidden.py"], tmp_path).exit_code == 0  # statically clean
    result = run(["--no-cache", "--fix", "--verify", "hidden.py"], tmp_path)
    assert result.exit_code == 1, result.output
    # the observed HL007 (shapes seen in the trace) becomes a proven broadcast fix ...
    assert "hidden.py:9:20: HL007 fix proven by example Hidden" in result.stderr
    assert 'F.broadcast_sub(x, stats["mean"])' in (tmp_path / "hidden.py").read_text()
    # ... the observed HL001 has no automatic fix: reported, and the block still fails
    assert "hidden.py:19:9: HL001 observed at run time" in result.stdout
    assert "hidden.py:19:9: HL903 HiddenShape still fails" in result.stdout


def test_fix_verify_names_every_example_failing_alike_in_one_hl903(tmp_path):
    shutil.copy(data("hidden.py"), tmp_path / "hidden.py")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n"
        '"hidden.py::HiddenShape" = [{ inputs = [[2, 3, 4]] }, { inputs = [[5, 3, 4]] }]\n'
    )
    result = run(["--no-cache", "--fix", "--verify", "hidden.py"], tmp_path)
    assert result.exit_code == 1, result.output
    hl903 = [line for line in result.stdout.splitlines() if " HL903 " in line]
    assert len(hl903) == 1, result.stdout  # one place, one diagnostic
    assert "HiddenShape#1, HiddenShape#2 still fail with their examples" in hl903[0]
    # the notes keep one line per example
    assert "HiddenShape#1: still fails" in result.stderr
    assert "HiddenShape#2: still fails" in result.stderr


def test_verify_command_takes_constructor_kwargs(tmp_path):
    ok = run(
        ["verify", data("good.py") + "::Residual", "--input", "2,4", "--kwarg", "units=4"], tmp_path
    )
    assert ok.exit_code == 0, ok.output
    wrong = run(
        ["verify", data("good.py") + "::Residual", "--input", "2,4", "--kwarg", "units=5"], tmp_path
    )
    assert wrong.exit_code == 1 and wrong.output.startswith("eager_error")
    bad = run(
        ["verify", data("good.py") + "::Residual", "--input", "2,4", "--kwarg", "units"], tmp_path
    )
    assert bad.exit_code == 2 and "NAME=VALUE" in bad.output


FIXABLE = {
    "broadcast_add.py": ("CenterRows", [[2, 3]]),
    "first_row.py": ("FirstRow", [[3, 4]]),  # observed HL003 -> fix
    "shape_attr.py": ("FlattenByShape", [[2, 3, 4]]),
    "slicing.py": ("PickColumn", [[2, 5]]),
    "two_slices.py": ("TwoSlices", [[2, 7]]),
}


@pytest.mark.mxnet
def test_fixes_verified_on_the_engine_hold_on_real_mxnet(tmp_path):
    """--fix --verify (engine backend) rewrites every hazard of these files; real MXNet
    1.9.1 then runs each rewritten block hybridized with outputs equal to eager."""
    pytest.importorskip("mxnet")
    from hybridlint.checker import check_file

    lines = ["[tool.hybridlint.examples]"]
    for name, (block, inputs) in FIXABLE.items():
        shutil.copy(data(name), tmp_path / name)
        lines.append(f'"{name}::{block}" = {{ inputs = {inputs} }}')
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    result = run(["--no-cache", "--fix", "--verify", "."], tmp_path)
    assert result.exit_code == 0, result.output
    for name, (block, inputs) in FIXABLE.items():
        assert (tmp_path / name).read_text() != open(data(name)).read()
        (report,) = check_file(
            str(tmp_path / name), {block: [tuple(s) for s in inputs]}, backend="mxnet"
        )
        assert report.ok, report.summary()


NO_TENSOR = """\
from mxnet import gluon, nd


class Table(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.broadcast_add(x, nd.zeros((1, 3)))
"""


def test_diff_verify_goes_on_past_a_file_without_examples(project):
    """Was: `internal error: ExampleError: give at least one input` for the whole run."""
    (project / "models" / "table.py").write_text(NO_TENSOR)
    result = run(["--diff", "--verify", "models/table.py", "models/two_slices.py"], project)
    assert "internal error" not in result.output, result.output
    assert (
        "+        a = F.squeeze(F.slice_axis(h, axis=1, begin=1, end=2), axis=1)" in result.stdout
    )
    assert "models/two_slices.py:14:13: HL003 fix proven by example TwoSlices" in result.stderr
    # its safe fix no check can run (no tensor operand to feed) is applied as --fix applies it
    assert "models/table.py:6:" in result.stderr
    assert "fix applied unverified, as --fix applies a safe fix" in result.stderr
    assert "+        return F.broadcast_add(x, F.zeros((1, 3)))" in result.stdout
    assert result.exit_code == 1


def test_a_checker_failure_is_an_error_of_that_file_only(project, monkeypatch):
    import hybridlint.checker.verify as verify_module

    real = verify_module.verify_fixes

    def flaky(source, path, *args, **kwargs):
        if path.endswith("missing_import.py"):
            raise RuntimeError("checker bug")
        return real(source, path, *args, **kwargs)

    monkeypatch.setattr(verify_module, "verify_fixes", flaky)
    result = run(["--fix", "--verify", "models"], project)
    assert result.exit_code == 2
    assert (
        "models/missing_import.py: error: checker error: RuntimeError: checker bug"
        in result.output.replace("\\", "/")
    )
    assert "F.squeeze(F.slice_axis(h" in (project / "models" / "two_slices.py").read_text()


def test_backend_and_timeout_need_verify_and_are_passed_on(project):
    assert run(["--fix", "--backend", "mxnet", "models"], project).exit_code == 2
    assert run(["--fix", "--verify", "--timeout", "0", "models"], project).exit_code == 2
    result = run(
        ["--diff", "--verify", "--timeout", "30", "--backend", "engine", "models/two_slices.py"],
        project,
    )
    assert result.exit_code == 1 and "fix proven by example TwoSlices" in result.stderr


def test_verify_command_takes_list_inputs(tmp_path):
    (tmp_path / "pair.py").write_text(
        "from mxnet import gluon\n\n\nclass Pair(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, x, states):\n        h, c = states\n"
        "        return F.broadcast_add(x, h) * c\n"
    )
    ok = run(["verify", "pair.py::Pair", "--input", "2,3", "--input", "[[2, 3], [2, 3]]"], tmp_path)
    assert ok.exit_code == 0 and ok.output.startswith("equal"), ok.output
    bad = run(["verify", "pair.py::Pair", "--input", "2,3", "--input", "[[2, 3], "], tmp_path)
    assert bad.exit_code == 2 and "not a TOML value" in bad.output


def test_an_observed_indexing_hazard_becomes_a_proven_fix(tmp_path):
    """`t[0]` in a module helper: nothing proves statically that t is a tensor; the trace
    sees it index a single-output Symbol, and the rewrite with fluent slice_axis/squeeze
    (no namespace needed) is then proven by the example."""
    shutil.copy(data("first_row.py"), tmp_path / "first_row.py")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"first_row.py::FirstRow" = { inputs = [[3, 4]] }\n'
    )
    result = run(["--no-cache", "--fix", "--verify", "first_row.py"], tmp_path)
    assert result.exit_code == 0, result.output
    assert "first_row.py:6:12: HL003 fix proven by example FirstRow" in result.stderr
    assert (
        "return t.slice_axis(axis=0, begin=0, end=1).squeeze(axis=0)"
        in (tmp_path / "first_row.py").read_text()
    )
