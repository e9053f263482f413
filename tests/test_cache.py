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
