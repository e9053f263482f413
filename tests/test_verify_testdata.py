"""`hybridlint --fix --verify` on the real-style blocks of testdata/verify: output and exit
code exactly as expected.toml says; with real MXNet, every fixed block hybridizes with the
original's eager outputs (a differential test), and the engine never says `equal` where
MXNet disagrees."""

import os

import pytest
from click.testing import CliRunner

from hybridlint.checker import CheckerSession, check_file, check_fix, examples_from_config
from hybridlint.cli import cli
from tests.checker_support import engine_redirect_available
from tests.verify_cases import CASES, EXPECTED, examples_of, project, proofs

pytestmark = pytest.mark.skipif(
    not engine_redirect_available(), reason="hybridlint.engine.as_mxnet not available"
)


def fix_verify(path, *extra):
    old = os.getcwd()
    os.chdir(path.parent)
    try:
        # a generous job limit: on a loaded machine a slow job must not read as cannot_run
        return CliRunner().invoke(
            cli,
            ["--no-cache", "--fix", "--verify", "--timeout", "600", *extra, path.name],
            catch_exceptions=False,
        )
    finally:
        os.chdir(old)


def test_the_set_is_big_enough_and_every_case_has_examples():
    assert len(CASES) >= 15
    assert all(examples_of(case) for case in CASES)


@pytest.mark.parametrize("case", CASES)
def test_fix_verify_reports_exactly_what_was_proven(case, tmp_path):
    expected = EXPECTED[case]
    path = project(tmp_path, case)
    result = fix_verify(path)
    assert result.exit_code == expected["exit"], result.output
    assert proofs(result.stderr) == set(expected["proofs"]), result.stderr
    failing = sorted(
        label.rstrip(",")
        for line in result.stdout.splitlines()
        if " HL903 " in line
        for label in line.split(" HL903 ")[1].split(" still fail")[0].split(" ")
    )
    assert failing == sorted(expected.get("failing", [])), result.stdout
    assert ("the checker cannot run" in result.output) == expected.get("cannot_run", False)
    assert "All checks passed" not in result.output or expected["exit"] == 0
    text = path.read_text()
    for snippet in expected["contains"]:
        assert snippet in text, text


def mxnet_available():
    import importlib.util

    return importlib.util.find_spec("mxnet") is not None


mxnet_only = pytest.mark.skipif(not mxnet_available(), reason="real MXNet not installed")


@pytest.fixture(scope="module")
def mxnet_session():
    with CheckerSession(timeout=120) as session:
        yield session


def examples_for(case, path):
    table = {f"{path}::{k.split('::')[1]}": v for k, v in examples_of(case).items()}
    return [e for items in examples_from_config(table).values() for e in items]


@pytest.mark.mxnet
@mxnet_only
@pytest.mark.parametrize("case", CASES)
def test_fixed_blocks_hybridize_on_real_mxnet_with_the_original_outputs(
    case, tmp_path, mxnet_session
):
    path = project(tmp_path, case)
    original = path.read_text()
    fix_verify(path)
    fixed = path.read_text()
    expected = EXPECTED[case]
    examples = examples_for(case, str(path))
    if fixed != original and expected.get("original_builds", True):
        for example in examples:  # original eager == fixed eager == fixed hybridized
            report = check_fix(
                original,
                fixed,
                example.target,
                example.specs(),
                kwargs=example.kwargs,
                path=str(path),
                backend="mxnet",
                session=mxnet_session,
            )
            if expected.get("failing"):  # eager-equal; MXNet too fails where no fix went
                assert report.status == "hybrid_error", report.summary()
                assert report.stage == "fixed hybridize", report.summary()
                assert report.source_line.text.strip() in original
            else:
                assert report.ok, report.summary()
    if expected["exit"] == 0:  # the fixed block hybridizes under real MXNet
        for report in check_file(str(path), examples, backend="mxnet", session=mxnet_session):
            assert report.ok, report.summary()


@pytest.mark.mxnet
@mxnet_only
@pytest.mark.parametrize("case", CASES)
def test_the_engine_never_says_equal_where_mxnet_disagrees(case, tmp_path, mxnet_session):
    path = project(tmp_path, case)
    versions = [path.read_text()]
    fix_verify(path)
    versions.append(path.read_text())
    examples = examples_for(case, str(path))
    for text in versions:
        path.write_text(text)
        engine = check_file(str(path), examples, backend="engine", session=mxnet_session)
        real = check_file(str(path), examples, backend="mxnet", session=mxnet_session)
        for mine, theirs in zip(engine, real):
            if mine.status == "cannot_run":
                continue  # no verdict: never a pass
            assert (mine.status, mine.stage) == (theirs.status, theirs.stage), (
                mine.summary(),
                theirs.summary(),
            )


@pytest.mark.mxnet
@mxnet_only
def test_the_engine_gap_block_is_proven_on_real_mxnet(tmp_path):
    path = project(tmp_path, "flow_corr")
    result = fix_verify(path, "--backend", "mxnet")
    assert result.exit_code == 0, result.output
    assert proofs(result.stderr) == {"HL007:10 proven"}
    assert "F.broadcast_sub(cost, cost.mean(axis=1, keepdims=True))" in path.read_text()
