"""hybridlint.cache: keys, persistence, and failure tolerance."""

import os

import pytest

from hybridlint.cache import CACHE_DIR, LintCache, content_key, rules_digest

ISSUE = {
    "code": "HL003",
    "name": "tensor-indexing",
    "message": "m",
    "line": 1,
    "col": 1,
    "end_line": 1,
    "end_col": 2,
    "fix": "safe",
    "source_line": "x[0]",
}


@pytest.fixture(autouse=True)
def _own_secret(tmp_path_factory, monkeypatch):
    """Each test has its own per-user secret (the cache authenticates files with it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


def test_content_key_depends_on_bytes_and_file_settings():
    assert content_key(b"x = 1\n") == content_key(b"x = 1\n")
    assert content_key(b"x = 1\n") != content_key(b"x = 1\r\n")
    assert content_key(b"x = 1\n", "('HL003',)") != content_key(b"x = 1\n", "()")


def test_results_and_codes_persist(tmp_path):
    cache = LintCache(str(tmp_path), "selection-a")
    assert cache.get("k") is None and cache.codes is None
    cache.put("k", [ISSUE])
    cache.codes = ["HL003", "HL900"]
    cache.save()
    assert os.path.isfile(tmp_path / CACHE_DIR / ".gitignore")
    again = LintCache(str(tmp_path), "selection-a")
    assert again.get("k") == [ISSUE]
    assert again.codes == ["HL003", "HL900"]
    assert LintCache(str(tmp_path), "selection-b").get("k") is None  # other selection


def test_corrupt_cache_is_empty(tmp_path):
    cache = LintCache(str(tmp_path), "s")
    cache.put("k", [])
    cache.save()
    with open(cache.path, "w") as handle:
        handle.write("{not json")
    assert LintCache(str(tmp_path), "s").get("k") is None


def test_unwritable_root_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = LintCache(str(blocker), "s")  # the cache directory cannot be created under a file
    cache.put("k", [])
    cache.save()


def test_disabled_cache_neither_reads_nor_writes(tmp_path):
    cache = LintCache(str(tmp_path), "s")
    cache.put("k", [])
    cache.save()
    off = LintCache(str(tmp_path), "s", enabled=False)
    assert off.get("k") is None
    off.put("j", [])
    off.save()
    assert LintCache(str(tmp_path), "s").get("j") is None


def test_rules_digest_is_stable():
    assert rules_digest() == rules_digest()


# -- the stat shortcut: an unchanged stat signature stands for unchanged bytes ----------------
HAZARD = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.shape\n"
CLEAN = HAZARD.replace("x.shape", "x * 2.0")  # same size, no hazard


def _lint(project):
    from click.testing import CliRunner

    from hybridlint.cli import cli

    return CliRunner().invoke(cli, ["--quiet", "--exit-zero", "--format", "json", str(project)])


def test_warm_run_trusts_an_unchanged_signature_without_reading(tmp_path, monkeypatch):
    import hybridlint.cache as cache_module
    import hybridlint.runner as runner

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)  # the file is seconds old, not minutes
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "net.py").write_text(HAZARD)
    first = _lint(tmp_path)
    assert '"HL001"' in first.output

    def no_read(path):
        raise AssertionError("the file was read although its signature is unchanged")

    monkeypatch.setattr(runner, "read_bytes_and_identity", no_read)
    assert _lint(tmp_path).output == first.output


def test_same_size_rewrite_with_mtime_restored_is_seen(tmp_path, monkeypatch):
    import hybridlint.cache as cache_module

    monkeypatch.setattr(cache_module, "RACY_SECONDS", 0)
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "net.py"
    path.write_text(HAZARD)
    assert '"HL001"' in _lint(tmp_path).output
    before = os.stat(path)
    path.write_text(CLEAN)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime as before; ctime moves
    assert os.stat(path).st_size == before.st_size
    assert '"HL001"' not in _lint(tmp_path).output


def test_racy_signatures_are_not_kept(tmp_path):
    cache = LintCache(str(tmp_path), "s")
    path = tmp_path / "fresh.py"
    path.write_text("x = 1\n")
    from hybridlint.cache import stat_signature

    from hybridlint.project import FileFacts

    cache.put_facts("d", FileFacts(False))
    cache.remember_signature(str(path), stat_signature(str(path)), "d")
    cache.save()  # the file changed within RACY_SECONDS of the save: its signature proves nothing
    signature = stat_signature(str(path))
    assert LintCache(str(tmp_path), "s").digest_for_signature(str(path), signature) is None


def rewrite(cache, mutate):
    """Change a saved cache file's payload and seal it with the user's own secret, as a bug or
    a damaged disk could (a forger does not have the secret: see tests/test_trust.py)."""
    import json

    from hybridlint.cache import machine_secret, seal, unseal

    with open(cache.path, "rb") as handle:
        data = json.loads(unseal(handle.read(), machine_secret()))
    mutate(data)
    with open(cache.path, "wb") as handle:
        handle.write(seal(json.dumps(data).encode(), machine_secret()))


def test_malformed_signature_records_are_dropped_not_crashed_on(tmp_path):
    cache = LintCache(str(tmp_path), "s")
    cache.put("k", [])
    cache.save()
    rewrite(
        cache,
        lambda data: data.update(
            stats={
                "a.py": [1, 2],
                "b.py": "x",
                "c.py": [1, 2, 3, "4", "k"],
                "d.py": [1, 2, 3, 4, ["k"]],
                "e.py": [1, 2, 3, 4, "k"],
            },
            facts={
                "k": [True, [[".", "util"]], 1, []],
                "bad1": [1, [], 1, []],
                "bad2": [True, [["."]], 1, []],
                "bad3": [True, [], "1", []],
                "bad4": "x",
                "bad5": [False, [], 1, [["."]]],
                "bad6": [False, [], 1],
            },
        ),
    )
    assert LintCache(str(tmp_path), "s").digest_for_signature("e.py", [1, 2, 3, 4]) == "k"
    again = LintCache(str(tmp_path), "s")
    assert again.digest_for_signature("c.py", [1, 2, 3, "4"]) is None
    assert again.facts("k") is not None and again.facts("k").imports == ((".", "util"),)
    assert [again.facts(k) for k in ("bad1", "bad2", "bad3", "bad4", "bad5", "bad6")] == [None] * 6
    again.put("j", [])
    again.save()  # must not raise on the records it loaded


@pytest.mark.parametrize(
    "entry",
    [
        5,
        "x",
        None,
        [],
        {"r": 3, "t": 1},
        {"r": "str", "t": 1},
        {"t": 1},
        {"r": [{"code": "HL003"}], "t": 1},  # a finding with missing fields
        {"r": [dict(ISSUE, line="1")], "t": 1},  # a field of the wrong type
        {"r": [dict(ISSUE, line=True)], "t": 1},
        {"r": [dict(ISSUE, extra=1)], "t": 1},  # an unknown field
        {"r": [5], "t": 1},
        {"r": [], "t": "old"},
    ],
)
def test_entries_of_the_wrong_shape_are_misses_not_crashes(tmp_path, entry):
    cache = LintCache(str(tmp_path), "s")
    cache.put("k", [ISSUE])
    cache.put("good", [])
    cache.save()
    rewrite(cache, lambda data: data["entries"].update(k=entry))
    again = LintCache(str(tmp_path), "s")
    valid = isinstance(entry, dict) and entry.get("r") == []
    assert again.get("k") == ([] if valid else None)
    assert again.get("good") == []
    again.put("j", [])
    again.save()  # an entry with a bad timestamp is dropped on save, not crashed on
    assert LintCache(str(tmp_path), "s").get("j") == []


def test_bad_entries_in_a_real_run_are_misses(tmp_path):
    """The issue's case: an int where a result belongs gave an internal error on every run."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "net.py").write_text(HAZARD)
    assert '"HL001"' in _lint(tmp_path).output
    [name] = [n for n in os.listdir(tmp_path / CACHE_DIR) if n.startswith("lint-")]
    cache = LintCache(str(tmp_path), "")
    cache.path = str(tmp_path / CACHE_DIR / name)
    rewrite(cache, lambda data: data.update(entries={k: 7 for k in data["entries"]}, codes=[1, 2]))
    for _ in range(2):
        result = _lint(tmp_path)
        assert result.exit_code == 0 and '"HL001"' in result.output, result.output


def test_the_key_covers_every_source_module_found_by_walking(tmp_path, monkeypatch):
    """A module added to the rules package (or to hybridlint/) changes the digest without
    being listed anywhere (issue 15: a hand-kept list missed new modules)."""
    import importlib.util
    import shutil

    import hybridlint.cache as cache_module
    from hybridlint.cache import result_sources

    sources = result_sources()
    package = os.path.dirname(cache_module.__file__)
    spec = importlib.util.find_spec("hybridlint.rules")
    rules_dir = list(spec.submodule_search_locations)[0]
    for folder in (package, rules_dir, os.path.join(package, "reporters")):
        for name in os.listdir(folder):
            if name.endswith(".py"):
                assert os.path.join(folder, name) in sources, name
    copy = tmp_path / "rules"
    shutil.copytree(rules_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args):
        found = real_find_spec(name, *args)
        if name == "hybridlint.rules":
            found = importlib.util.spec_from_file_location(
                name, str(copy / "__init__.py"), submodule_search_locations=[str(copy)]
            )
        return found

    monkeypatch.setattr(cache_module.importlib.util, "find_spec", find_spec)
    before = rules_digest()
    (copy / "hl099_new_rule.py").write_text("CODE = 'HL099'\n")
    assert rules_digest() != before
    (copy / "hl099_new_rule.py").unlink()
    (copy / "helpers").mkdir()
    (copy / "helpers" / "deep.py").write_text("X = 1\n")
    assert rules_digest() != before
