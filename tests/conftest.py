"""Shared pytest configuration.

Tests marked `mxnet` compare against real MXNet 1.9.1. When it is not importable they replay
its recorded results (tests/recordings/, see tests/mxnet_record.py) if the recordings hold
calls of that test, and are skipped otherwise (CI's MXNet leg runs them all live).
"""

import importlib.util
import sys
import zlib

import pytest

import mxnet_record

HAVE_MXNET = importlib.util.find_spec("mxnet") is not None


def pytest_addoption(parser):
    group = parser.getgroup("hybridlint")
    group.addoption(
        "--record-mxnet",
        action="store_true",
        help="store real MXNet's results in tests/recordings/ (use tools/record_mxnet.py)",
    )
    group.addoption(
        "--check-recordings",
        action="store_true",
        help="with real MXNet: also fail when a reference call has no current "
        "recording (CI's MXNet leg)",
    )


def pytest_configure(config):
    mxnet_record.configure(
        record=config.getoption("--record-mxnet", False),
        check=config.getoption("--check-recordings", False),
    )


def _module_and_name(item):
    return item.path.stem, item.nodeid.split("::", 1)[-1]


# Test modules whose tests start processes (the CLI, --verify's checker workers, git,
# pre-commit): their tests are marked `slow` (`-m "not slow"` is the quick inner loop) and run
# first. pytest-xdist hands tests out in collection order; started first, the long tests
# overlap, and the thousands of short ones that follow keep both workers busy to the end
# instead of one worker finishing a backlog of long tests alone (a minute of one idle core).
SPAWNING_MODULES = {
    "test_acceptance_cli",
    "test_benchmarks_run",
    "test_checker_api",
    "test_checker_backends",
    "test_checker_channel",
    "test_checker_cli",
    "test_checker_containment",
    "test_checker_limits",
    "test_checker_patterns_differential",
    "test_checker_protocol",
    "test_checker_status",
    "test_checker_verify",
    "test_cli_subprocess",
    "test_diff_apply",
    "test_gate",
    "test_hostile_input",
    "test_lsp_server",
    "test_notebook_fix",
    "test_precommit",
    "test_readme",
    "test_rewrite_corpus",
    "test_stdin",
    "test_streams",
    "test_verify_output",
    "test_verify_testdata",
}

# Test modules that never run the engine, the checker or numpy (the CLI's output formats and
# fixes, pre-commit, the language server, stdin, the cache): marked `engine_free`. CI's numpy-2
# leg, which is there because the engine supports both numpy 1 and 2, leaves them out
# (`-m "not engine_free"`); the MXNet leg runs them as the README's command does.
ENGINE_FREE_MODULES = {
    "test_cli_subprocess",
    "test_hostile_input",
    "test_lsp_server",
    "test_machine_fixes",
    "test_precommit",
    "test_project_cache",
    "test_stdin",
    "test_streams",
}

# Test modules that do run the engine or the checker, but whose subject cannot depend on
# numpy's version: the confined worker's process tree, limits and channel, the CLI's options
# and exit codes, the README's commands, the lint of hybridlint's own sources. Marked
# `numpy_agnostic`: the MXNet leg runs them, CI's numpy-2 leg leaves them out with the
# `engine_free` ones (about 90 s of its 5 min, 2026-12-03; the engine's numerics and the
# checker's verdicts stay on that leg: test_ops_*, test_engine_*, test_gluon_*, test_fix_*,
# test_verify_*, test_checker_verify/api/status/backends, the rule examples).
NUMPY_AGNOSTIC_MODULES = {
    "test_acceptance_cli",
    "test_checker_channel",
    "test_checker_containment",
    "test_checker_limits",
    "test_cli",
    "test_readme",
    "test_self_lint",
}


def pytest_collection_modifyitems(config, items):
    slow, engine_free = pytest.mark.slow, pytest.mark.engine_free
    numpy_agnostic = pytest.mark.numpy_agnostic
    for item in items:
        if item.path.stem in SPAWNING_MODULES:
            item.add_marker(slow)
        if item.path.stem in ENGINE_FREE_MODULES:
            item.add_marker(engine_free)
        if item.path.stem in NUMPY_AGNOSTIC_MODULES:
            item.add_marker(numpy_agnostic)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow first
    if HAVE_MXNET:
        return
    skip = pytest.mark.skip(
        reason="real MXNet 1.9.1 is not installed (pip install -e '.[mxnet]')"
        " and its results for this test are not recorded"
    )
    for item in items:
        if "mxnet" in item.keywords and not mxnet_record.has_test(*_module_and_name(item)):
            item.add_marker(skip)


def pytest_runtest_setup(item):
    _reseed_module_rng(item)
    _settle_mxnet()
    mxnet_record.begin(
        *_module_and_name(item),
        recordable=not getattr(getattr(item, "obj", None), "is_hypothesis_test", False),
    )


def _settle_mxnet():
    """MXNet runs operators asynchronously and raises a failed kernel's error at the next
    sync point, which may be in a later, unrelated test of the same worker (CI once saw a
    plain eager `x * 2` "fail" with MXNetError at `waitall`): every test starts with MXNet's
    pending errors drained. Only when a test already imported mxnet (never imports it)."""
    mxnet = sys.modules.get("mxnet")
    if mxnet is None:
        return
    try:
        mxnet.nd.waitall()
    except Exception:  # noqa: BLE001 - an earlier test's deferred error, not this test's
        pass


def _reseed_module_rng(item):
    """A test module's shared `RNG = np.random.RandomState(...)` starts every test from a seed
    of that test's own name: its inputs do not depend on which tests of the module ran before
    it in the same worker (xdist hands tests out in changing chunks), so the recorded MXNet
    references (tests/recordings) always meet the same inputs."""
    rng = getattr(getattr(item, "module", None), "RNG", None)
    if rng is not None and hasattr(rng, "seed") and hasattr(rng, "get_state"):
        rng.seed(zlib.crc32(item.name.encode("utf-8")))


def pytest_sessionfinish(session):
    if session.config.getoption("--record-mxnet", False):
        for path in mxnet_record.save():
            print("\nrecorded", path)


# CI is a gate: the same inputs every run (derandomize) and no per-example deadline (a loaded
# machine must not turn a slow example into a failure). Locally hypothesis explores freely.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    _hypothesis_settings.register_profile("dev", deadline=None)
    import os as _os

    _hypothesis_settings.load_profile("ci" if _os.environ.get("CI") else "dev")
except ImportError:  # hypothesis is a test extra; the plain tests still run without it
    pass
