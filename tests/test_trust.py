"""The checkout is untrusted input: a pull request controls every file in it, including a
committed ``.hybridlint_cache`` and ``.git/config``. None of it may make a gate pass, write
outside the checkout or run a program (issue 14, "The cache is untrusted input")."""

import json
import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from hybridlint.cache import CACHE_DIR, LintCache, machine_secret, seal, unseal
from hybridlint.cli import cli

HAZARD = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.shape\n"


def lint(project, *extra):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(cli, ["--format", "json", *extra, str(project)])


def findings(result):
    return [f["code"] for f in json.loads(result.stdout)["findings"]]


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (root / "net.py").write_text(HAZARD)
    monkeypatch.chdir(root)
    return root


def as_user(monkeypatch, tmp_path, name):
    """Switch to another user's cache secret (another machine, or the attacker's)."""
    home = tmp_path / f"home-{name}"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))


def test_a_forged_cache_entry_cannot_hide_a_hazard(project, tmp_path, monkeypatch):
    # The attacker lints the file on their machine, then empties the findings of every entry
    # and seals the file with their own secret: a perfectly well-formed, authentic-looking cache.
    as_user(monkeypatch, tmp_path, "attacker")
    assert findings(lint(project)) == ["HL001"]
    [forged] = [p for p in (project / CACHE_DIR).iterdir() if p.name.startswith("lint-")]
    data = json.loads(unseal(forged.read_bytes(), machine_secret()))
    data["entries"] = {key: {"r": [], "t": entry["t"]} for key, entry in data["entries"].items()}
    forged.write_bytes(seal(json.dumps(data).encode(), machine_secret()))
    assert findings(lint(project)) == []  # the attacker's own machine trusts it (their secret)
    # CI / the reviewer: a different secret. The forged file is not even at the name it uses...
    as_user(monkeypatch, tmp_path, "ci")
    assert findings(lint(project)) == ["HL001"]
    # ...and copied to exactly that name, it fails authentication and counts as empty.
    [ours] = [
        p for p in (project / CACHE_DIR).iterdir() if p.name.startswith("lint-") and p != forged
    ]
    shutil.copyfile(forged, ours)
    assert findings(lint(project)) == ["HL001"]
    assert findings(lint(project, "--no-cache")) == ["HL001"]


def test_an_unsealed_cache_file_is_ignored(project, tmp_path, monkeypatch):
    as_user(monkeypatch, tmp_path, "me")
    cache = LintCache(str(project), "s")
    cache.put("k", [])
    cache.save()
    with open(cache.path, "rb") as handle:
        body = unseal(handle.read(), machine_secret())
    with open(cache.path, "wb") as handle:  # the old, unauthenticated format: plain JSON
        handle.write(body)
    assert LintCache(str(project), "s").get("k") is None


def test_the_secret_is_private_and_stable(tmp_path, monkeypatch):
    as_user(monkeypatch, tmp_path, "me")
    first = machine_secret()
    assert first is not None and len(first) == 32 and machine_secret() == first
    path = tmp_path / "home-me" / "hybridlint" / "secret"
    assert (os.stat(path).st_mode & 0o077) == 0
    as_user(monkeypatch, tmp_path, "other")
    assert machine_secret() != first


def test_without_a_usable_secret_the_cache_is_off(project, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert machine_secret() is None
    assert findings(lint(project)) == ["HL001"]
    assert not (project / CACHE_DIR).exists()


def test_a_symlinked_cache_directory_is_refused(project, tmp_path, monkeypatch):
    as_user(monkeypatch, tmp_path, "me")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink("../outside", project / CACHE_DIR)
    result = lint(project)
    assert findings(result) == ["HL001"]
    assert os.listdir(outside) == []  # nothing written outside the checkout
    assert "is a symbolic link" in result.stderr and "warning" in result.stderr


def test_a_cache_path_that_is_a_file_is_refused(project, tmp_path, monkeypatch):
    as_user(monkeypatch, tmp_path, "me")
    (project / CACHE_DIR).write_text("not a directory\n")
    result = lint(project)
    assert findings(result) == ["HL001"] and "not a directory" in result.stderr
    assert (project / CACHE_DIR).read_text() == "not a directory\n"


def test_a_cache_file_that_is_a_symlink_is_not_followed(project, tmp_path, monkeypatch):
    as_user(monkeypatch, tmp_path, "me")
    assert findings(lint(project)) == ["HL001"]
    [ours] = [p for p in (project / CACHE_DIR).iterdir() if p.name.startswith("lint-")]
    target = tmp_path / "elsewhere.json"
    target.write_bytes(ours.read_bytes())
    ours.unlink()
    os.symlink(target, ours)
    (project / "net.py").write_text(HAZARD + "# changed\n")  # forces a save
    assert findings(lint(project)) == ["HL001"]
    assert not ours.is_symlink()  # replaced by a real file, the link target untouched
    assert target.read_bytes() != ours.read_bytes()


def git(root, *args):
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
def test_a_git_tracked_cache_directory_is_refused(project, tmp_path, monkeypatch):
    as_user(monkeypatch, tmp_path, "me")
    git(project, "init", "-q", ".")
    (project / CACHE_DIR).mkdir()
    (project / CACHE_DIR / "lint-0.json").write_text("{}")
    git(project, "add", "-f", CACHE_DIR)
    git(project, "commit", "-qm", "cache")
    result = lint(project)
    assert findings(result) == ["HL001"] and "tracked by git" in result.stderr
    assert sorted(os.listdir(project / CACHE_DIR)) == ["lint-0.json"]  # nothing written


@needs_git
def test_git_config_cannot_run_a_program(project, tmp_path, monkeypatch):
    """``core.fsmonitor`` in .git/config is a command git runs when it reads the index, as
    ``git check-ignore`` does for the .gitignore filter."""
    as_user(monkeypatch, tmp_path, "me")
    git(project, "init", "-q", ".")
    (project / ".gitignore").write_text("ignored.py\n")
    (project / "ignored.py").write_text(HAZARD)
    git(project, "add", "net.py", ".gitignore")
    git(project, "commit", "-qm", "init")
    marker = tmp_path / "PWNED"
    git(project, "config", "core.fsmonitor", f"touch {marker}; false")
    # the check can fail: git itself does run it
    subprocess.run(
        ["git", "status", "--short"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert marker.exists()
    marker.unlink()
    result = lint(project)
    assert not marker.exists()
    assert findings(result) == ["HL001"]  # .gitignore still honoured: ignored.py not linted
    assert [f["path"] for f in json.loads(result.stdout)["findings"]] == [str(project / "net.py")]
    (project / CACHE_DIR).exists() and shutil.rmtree(project / CACHE_DIR)
    lint(project, "--no-cache")
    assert not marker.exists()
