"""End to end with a real `pre-commit` (from PyPI) and this checkout as the hook repository.

The current working tree (tracked and untracked, not ignored files) is committed into a temporary
repository, which a temporary project's .pre-commit-config.yaml points at by path and commit.
pre-commit then builds its own virtualenv for the hooks from that commit, exactly as for a user.
Slow (pip installs hybridlint and its dependencies once per session, shared by the xdist
workers), hence the `slow` mark.
"""

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

try:
    import fcntl
except ImportError:  # not POSIX: each worker keeps its own hook repository and store
    fcntl = None  # type: ignore[assignment]

pytestmark = pytest.mark.slow

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = textwrap.dedent("""\
    class Net(HybridBlock):
        def hybrid_forward(self, F, x):
            return x[:, 0]
""")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}

if importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None:
    pytest.skip("needs pre-commit (pip install -e '.[test]') and git", allow_module_level=True)


def git(*args, cwd):
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


@contextlib.contextmanager
def _shared_dir(tmp_path_factory, name):
    """A directory all pytest-xdist workers of this session share, held under a lock, and
    whether this caller is the first (it fills it). The hooks are then installed once per
    session, not once per worker: pre-commit keys its environments by repository and commit
    in PRE_COMMIT_HOME and locks that store itself."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and fcntl is not None:
        base = base.parent  # the session's directory, above each worker's own
    path = base / name
    with open(str(path) + ".lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        first = not path.exists()
        path.mkdir(exist_ok=True)
        yield path, first


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory):
    """A one-commit snapshot of this checkout's working tree; returns (path, sha)."""
    with _shared_dir(tmp_path_factory, "hook-repo") as (snapshot, first):
        if first:
            listed = git(
                "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO_ROOT
            )
            for rel in filter(None, listed.split("\0")):
                source = os.path.join(REPO_ROOT, rel)
                if os.path.isfile(source):
                    target = snapshot / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, target)
            git("init", "-q", cwd=snapshot)
            git("add", "-A", cwd=snapshot)
            git("commit", "-q", "-m", "snapshot", cwd=snapshot)
        return str(snapshot), git("rev-parse", "HEAD", cwd=snapshot)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory):
    with _shared_dir(tmp_path_factory, "pre-commit-home") as (home, _):
        return str(home)


@pytest.fixture
def project(tmp_path, hook_repo, pre_commit_home):
    repo, sha = hook_repo
    (tmp_path / ".pre-commit-config.yaml").write_text(
        textwrap.dedent(f"""\
        repos:
          - repo: {repo}
            rev: {sha}
            hooks:
              - id: hybridlint-fix
              - id: hybridlint
    """)
    )
    git("init", "-q", cwd=tmp_path)
    return tmp_path


def pre_commit(*args, cwd, home):
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": home}
    env.pop("HYBRIDLINT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def commit(cwd, home):
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": home}
    return subprocess.run(
        ["git", "commit", "-m", "change"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_bad_commit_is_stopped_and_fix_hook_rewrites(project, pre_commit_home):
    installed = pre_commit("install", cwd=project, home=pre_commit_home)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (project / "net.py").write_text(BAD)
    (project / "notes.md").write_text("x[0]\n")
    git("add", "net.py", "notes.md", ".pre-commit-config.yaml", cwd=project)

    first = commit(project, pre_commit_home)
    assert first.returncode != 0, first.stdout + first.stderr
    output = first.stdout + first.stderr  # git shows hook output on stderr
    assert "hybridlint (fix)" in output and "files were modified by this hook" in output
    with pytest.raises(subprocess.CalledProcessError):
        git("rev-parse", "HEAD", cwd=project)  # nothing was committed
    fixed = (project / "net.py").read_text()
    assert "F.slice_axis(" in fixed and "x[:, 0]" not in fixed

    git("add", "net.py", cwd=project)
    second = commit(project, pre_commit_home)
    assert second.returncode == 0, second.stdout + second.stderr
    assert git("log", "--format=%s", cwd=project) == "change"


def test_lint_hook_alone_stops_unfixable_findings(project, pre_commit_home):
    (project / "net.py").write_text(
        textwrap.dedent("""\
        class Net(HybridBlock):
            def hybrid_forward(self, F, x):
                y = F.relu(x)
                y[0] = 1
                return y
    """)
    )
    git("add", "net.py", cwd=project)
    result = pre_commit("run", "hybridlint", "--files", "net.py", cwd=project, home=pre_commit_home)
    assert result.returncode == 1
    assert "net.py:4:9: HL003" in result.stdout


def test_a_baseline_on_both_hooks_lets_tolerated_findings_through(project, pre_commit_home):
    """The README's baseline advice: --baseline on hybridlint-fix as well, or the fix hook
    fails on every tolerated finding it cannot fix."""
    repo_line = (project / ".pre-commit-config.yaml").read_text()
    config = repo_line.replace(
        "      - id: hybridlint-fix\n      - id: hybridlint\n",
        "      - id: hybridlint-fix\n        args: [--baseline, baseline.json]\n"
        "      - id: hybridlint\n        args: [--baseline, baseline.json]\n",
    )
    assert config != repo_line
    (project / ".pre-commit-config.yaml").write_text(config)
    (project / "net.py").write_text(
        textwrap.dedent("""\
        class Net(HybridBlock):
            def hybrid_forward(self, F, x):
                y = F.relu(x)
                y[0] = 1
                return y
    """)
    )
    written = subprocess.run(
        [
            sys.executable,
            "-m",
            "hybridlint",
            "--no-cache",
            "--write-baseline",
            "baseline.json",
            "net.py",
        ],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0, written.stderr
    git("add", "net.py", "baseline.json", ".pre-commit-config.yaml", cwd=project)
    result = pre_commit("run", "--all-files", cwd=project, home=pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr
    # without the baseline on the fix hook, the same commit is blocked
    (project / ".pre-commit-config.yaml").write_text(
        config.replace(
            "        args: [--baseline, baseline.json]\n      - id: hybridlint\n",
            "      - id: hybridlint\n",
            1,
        )
    )
    git("add", ".pre-commit-config.yaml", cwd=project)
    blocked = pre_commit("run", "--all-files", cwd=project, home=pre_commit_home)
    assert blocked.returncode == 1 and "HL003" in blocked.stdout, (config, blocked.stdout)


def test_notebooks_go_through_the_lint_hook(project, pre_commit_home):
    import json

    cell = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.shape\n"
    (project / "nb.ipynb").write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "execution_count": None,
                        "metadata": {},
                        "outputs": [],
                        "source": cell.splitlines(keepends=True),
                    }
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    git("add", "nb.ipynb", cwd=project)
    result = pre_commit(
        "run", "hybridlint", "--files", "nb.ipynb", cwd=project, home=pre_commit_home
    )
    assert result.returncode == 1 and "HL001" in result.stdout, result.stdout


def test_the_lint_hook_sees_a_helper_change_made_in_its_importer(
    project, pre_commit_home, tmp_path_factory, monkeypatch
):
    """Issue 22: util.py's cached result must follow net.py, whose hybrid code starts (then
    stops) calling util.py's helper with F; the hook's cache lives in the project."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("hook-user-cache")))
    (project / "util.py").write_text("def helper(F, x):\n    return F.zeros(x.shape)\n")
    net = textwrap.dedent("""\
        from util import helper


        class Net(HybridBlock):
            def hybrid_forward(self, F, x):
                return {body}
    """)
    results = []
    for body in ("F.relu(x)", "helper(F, x)", "F.relu(x)"):
        (project / "net.py").write_text(net.format(body=body))
        git("add", "util.py", "net.py", cwd=project)
        result = pre_commit("run", "hybridlint", "--all-files", cwd=project, home=pre_commit_home)
        results.append((result.returncode, "util.py:2:20: HL001" in result.stdout))
    assert os.path.isdir(project / ".hybridlint_cache")
    assert results == [(0, False), (1, True), (0, False)], results


def test_both_hooks_list_each_remaining_finding_once(project, pre_commit_home):
    """The README's config (hybridlint-fix, then hybridlint) on a file with a fix and a
    finding no fix removes: the fix hook counts what it leaves, the lint hook lists it, so
    the finding is printed once (the fix hook's `check --fix` used to list it too)."""
    (project / "net.py").write_text(
        textwrap.dedent("""\
        class Net(HybridBlock):
            def hybrid_forward(self, F, x):
                y = F.relu(x)
                y[0] = 1
                return y[:, 0]
    """)
    )
    git("add", "net.py", ".pre-commit-config.yaml", cwd=project)
    result = pre_commit("run", "--files", "net.py", cwd=project, home=pre_commit_home)
    assert result.returncode == 1
    assert result.stdout.count("net.py:4:9: HL003") == 1, result.stdout
    assert "F.slice_axis(" in (project / "net.py").read_text()
