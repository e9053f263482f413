"""Issue 22 item 1: a file's cached result depends on its importers (hybridlint/project.py).

A helper file's findings come from the calls other files' hybrid code makes to it, so its
cache key includes those files' bytes; and lint_source keeps no state between calls. Issue 24
item 6: old cache files are pruned.
"""

import os
import time

import pytest

from hybridlint.cache import CACHE_DIR, KEEP_OTHER_FILES, PRUNE_AGE_SECONDS, LintCache
from hybridlint.linter import lint_source
from tests.cli_support import run_check
from hybridlint.project import NO_PROJECT, FileProject, Importer, Project, digest_of

UTIL = "def helper(F, x):\n    return F.zeros(x.shape)\n"
NET = (
    "from mxnet.gluon import HybridBlock\n"
    "{imports}\n\n\n"
    "class Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n"
    "        return {body}\n"
)
UNUSED = "F.relu(x)"
CALLING = "helper(F, x)"


@pytest.fixture(autouse=True)
def _own_secret(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


def _layout(root, form: str):
    """util.py and net.py: side by side (`from util import`) or in a package (`from .util`)."""
    (root / "pyproject.toml").write_text("[tool.hybridlint]\n")
    if form == "package":
        folder = root / "pkg"
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        imports = "from .util import helper"
    else:
        folder = root
        imports = "from util import helper"
    (folder / "util.py").write_text(UTIL)
    return folder, imports


def _write_net(folder, imports: str, body: str) -> None:
    (folder / "net.py").write_text(NET.format(imports=imports, body=body))


_hybridlint = run_check


def _hl001_in_util(result) -> bool:
    return "util.py:2:20: HL001" in result.stdout


@pytest.mark.parametrize("form", ["directory", "package"])
def test_a_cached_run_sees_a_new_and_a_removed_call_from_an_importer(tmp_path, form):
    folder, imports = _layout(tmp_path, form)
    _write_net(folder, imports, UNUSED)
    first = _hybridlint(tmp_path)
    assert first.returncode == 0 and not _hl001_in_util(first), first.stdout + first.stderr
    assert any(n.startswith("lint-") for n in os.listdir(tmp_path / CACHE_DIR))

    _write_net(folder, imports, CALLING)  # util.py unchanged: only its importer changed
    cached = _hybridlint(tmp_path)
    fresh = _hybridlint(tmp_path, "--no-cache")
    assert fresh.returncode == 1 and _hl001_in_util(fresh), fresh.stdout + fresh.stderr
    assert cached.returncode == 1 and _hl001_in_util(cached), cached.stdout + cached.stderr
    again = _hybridlint(tmp_path)  # now from the cache
    assert again.returncode == 1 and _hl001_in_util(again), again.stdout

    _write_net(folder, imports, UNUSED)  # and back: the cached finding must go
    cached = _hybridlint(tmp_path)
    assert cached.returncode == 0 and not _hl001_in_util(cached), cached.stdout + cached.stderr


def test_the_stat_shortcut_does_not_hide_an_importer_change(tmp_path):
    """util.py's stat signature is kept (files older than the racy window), so the warm run
    does not read it: its result must still follow net.py."""
    folder, imports = _layout(tmp_path, "directory")
    _write_net(folder, imports, UNUSED)
    time.sleep(2.2)  # older than cache.RACY_SECONDS when the first run saves
    assert _hybridlint(tmp_path).returncode == 0
    _write_net(folder, imports, CALLING)
    result = _hybridlint(tmp_path)
    assert result.returncode == 1 and _hl001_in_util(result), result.stdout + result.stderr


def test_an_importer_outside_the_linted_files_counts(tmp_path):
    """pre-commit names only the staged files: util.py alone, its importer changed on disk."""
    folder, imports = _layout(tmp_path, "package")
    _write_net(folder, imports, UNUSED)
    assert _hybridlint(tmp_path, "pkg/util.py").returncode == 0
    _write_net(folder, imports, CALLING)
    result = _hybridlint(tmp_path, "pkg/util.py")
    assert result.returncode == 1 and "HL001" in result.stdout, result.stdout + result.stderr


def test_lint_source_keeps_no_state_between_calls(tmp_path):
    """An importer added right after a lint is seen by the next lint in the same process (a
    2-second recheck timer used to hide it)."""
    folder, imports = _layout(tmp_path, "directory")
    util = str(folder / "util.py")
    assert lint_source(UTIL, util) == []
    _write_net(folder, imports, CALLING)
    assert [f.code for f in lint_source(UTIL, util)] == ["HL001"]
    _write_net(folder, imports, UNUSED)
    assert lint_source(UTIL, util) == []


def test_the_project_given_is_what_the_linter_reads(tmp_path):
    """With a project, nothing is read from disk: the importers are the ones given."""
    folder, imports = _layout(tmp_path, "directory")
    _write_net(folder, imports, CALLING)
    util = str(folder / "util.py")
    assert lint_source(UTIL, util, project=NO_PROJECT) == []
    text = NET.format(imports=imports, body=CALLING)
    given = FileProject("util", (Importer("/elsewhere/net.py", "net", False, "d", text),))
    assert [f.code for f in lint_source(UTIL, "/nowhere/util.py", project=given)] == ["HL001"]
    found = Project().for_source(UTIL, util)
    assert found.module == "util" and [i.module for i in found.importers] == ["net"]
    assert found.importers[0].digest == digest_of((folder / "net.py").read_bytes())
    assert found.key and found.key != FileProject("util", ()).key


# -- issue 24 item 6: old cache files are pruned ---------------------------------------------
def _age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_old_cache_files_are_pruned_on_save(tmp_path, tmp_path_factory, monkeypatch):
    theirs = LintCache(str(tmp_path), "s")  # another user's (another secret): never pruned
    theirs.put("k", [])
    theirs.save()
    _age(theirs.path, PRUNE_AGE_SECONDS + 3600)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("me")))
    others = []
    for selection in ("old-a", "old-b", "recent"):
        cache = LintCache(str(tmp_path), selection)
        cache.put("k", [])
        cache.save()
        others.append(cache.path)
    _age(others[0], PRUNE_AGE_SECONDS + 3600)
    _age(others[1], PRUNE_AGE_SECONDS + 60)
    directory = tmp_path / CACHE_DIR
    foreign = directory / ("lint-" + "0" * 20 + "-" + "0" * 12 + ".json")  # a name not ours
    foreign.write_text("{}")
    unrelated = directory / "notes.txt"
    unrelated.write_text("x")
    for path in (foreign, unrelated):
        _age(path, PRUNE_AGE_SECONDS + 3600)
    current = LintCache(str(tmp_path), "current")
    current.put("k", [])
    current.save()
    left = set(os.listdir(directory))
    assert os.path.basename(current.path) in left
    assert os.path.basename(others[2]) in left  # recently used: kept
    assert not {os.path.basename(p) for p in others[:2]} & left  # unused for a week: removed
    assert {foreign.name, unrelated.name, ".gitignore"} <= left  # not ours: never touched
    assert os.path.basename(theirs.path) in left


def test_cache_files_beyond_the_count_are_pruned_oldest_first(tmp_path):
    paths = []
    for index in range(KEEP_OTHER_FILES + 3):
        cache = LintCache(str(tmp_path), f"selection-{index}")
        cache.put("k", [])
        cache.save()
        _age(cache.path, 3600 * (KEEP_OTHER_FILES + 3 - index))  # later selections are newer
        paths.append(os.path.basename(cache.path))
    current = LintCache(str(tmp_path), "current")
    current.put("k", [])
    current.save()
    left = {n for n in os.listdir(tmp_path / CACHE_DIR) if n.startswith("lint-")}
    assert left == set(paths[3:]) | {os.path.basename(current.path)}


def test_a_cache_file_in_use_is_refreshed_so_it_is_not_pruned(tmp_path):
    cache = LintCache(str(tmp_path), "s")
    cache.put("k", [])
    cache.save()
    _age(cache.path, PRUNE_AGE_SECONDS - 3600)  # read every day, but last written 6 days ago
    again = LintCache(str(tmp_path), "s")
    assert again.get("k") == []
    again.save()
    assert time.time() - os.stat(cache.path).st_mtime < 3600
