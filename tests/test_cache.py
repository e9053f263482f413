"""hybridlint.cache: keys, persistence, and failure tolerance."""
import os

from hybridlint.cache import CACHE_DIR, LintCache, content_key, rules_digest


def test_content_key_depends_on_bytes_and_file_settings():
    assert content_key(b"x = 1\n") == content_key(b"x = 1\n")
    assert content_key(b"x = 1\n") != content_key(b"x = 1\r\n")
    assert content_key(b"x = 1\n", "('HL003',)") != content_key(b"x = 1\n", "()")


def test_results_and_codes_persist(tmp_path):
    cache = LintCache(str(tmp_path), "selection-a")
    assert cache.get("k") is None and cache.codes is None
    cache.put("k", [{"code": "HL003"}])
    cache.codes = ["HL003", "HL900"]
    cache.save()
    assert os.path.isfile(tmp_path / CACHE_DIR / ".gitignore")
    again = LintCache(str(tmp_path), "selection-a")
    assert again.get("k") == [{"code": "HL003"}]
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

    monkeypatch.setattr(runner, "read_bytes", no_read)
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

    cache.put("k", [])
    cache.remember_signature(str(path), stat_signature(str(path)), "()", "k")
    cache.save()  # the file changed within RACY_SECONDS of the save: its signature proves nothing
    assert LintCache(str(tmp_path), "s").key_for_signature(str(path), stat_signature(str(path)), "()") is None


def test_malformed_signature_records_are_dropped_not_crashed_on(tmp_path):
    import json

    cache = LintCache(str(tmp_path), "s")
    cache.put("k", [])
    cache.save()
    with open(cache.path) as handle:
        data = json.load(handle)
    data["stats"] = {"a.py": [1, 2], "b.py": "x", "c.py": [1, 2, 3, "4", "()", "k"],
                     "d.py": [1, 2, 3, 4, "()", ["k"]]}
    with open(cache.path, "w") as handle:
        json.dump(data, handle)
    again = LintCache(str(tmp_path), "s")
    assert again.key_for_signature("c.py", [1, 2, 3, "4"], "()") is None
    again.put("j", [])
    again.save()  # must not raise on the records it loaded
