"""Issue 22 item 4: a large file's syntax check (HL900) runs on chunks, so that its memory is
that of a chunk's parse tree, not the whole file's. The chunked answer must be the whole-file
answer on every input: checked here with tiny chunks on real files, mutated at random, and on
the cuts that must not fool it (a cut inside a string, brackets, a decorated definition)."""

import ast
import pathlib
import random

import pytest

from hybridlint import runner

TESTDATA = pathlib.Path(__file__).resolve().parent.parent / "testdata"


def whole(text):
    """The reference: ``_syntax_problem`` as it was, one ast.parse of the whole text."""
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, exc.msg
    except ValueError as exc:
        return 1, 1, str(exc)
    except (MemoryError, RecursionError):
        return 1, 1, "too deeply nested for Python's parser"
    return None


@pytest.fixture
def tiny_chunks(monkeypatch):
    monkeypatch.setattr(runner, "_SYNTAX_CHUNK", 8)


TRICKY = [
    'x = """\n\ndef inside_a_string():\n    pass\n"""\n\n\ndef f():\n    return 1\n',
    "values = [\n    1,\n\ndef not_a_def(): pass\n]\n",
    "@decorator\n\ndef f():\n    pass\n\n\nclass A:\n    pass\n",
    "x = 1 + \\\n\n\ndef f():\n    pass\n",
    "if x:\n    y = 1\n\n\nelse:\n    y = 2\n\n\ndef f():\n    pass\n",
    "def f():\n    return (\n\n\nclass A: pass\n",
    "def f():\n    pass\n\n\ndef g(:\n    pass\n\n\ndef h():\n    pass\n",
    "class A:\n    def m(self):\n        pass\n\n\n    def n(self):\n        pass\n\n\nclass B:\n"
    "    pass\n",
    "def f():\r\n    pass\r\n\r\n\r\ndef g():\r\n    pass\r\n\r\n\r\nclass C(:\r\n    pass\r\n",
    "def f():\n    pass\n\n\ndef g():\n    x = '\0'\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_cuts_that_do_not_parse_fall_back_to_the_whole_file(tiny_chunks, text):
    assert len(list(runner._chunks(text))) > 1  # the premise: the text is cut
    assert runner._syntax_problem(text) == whole(text)


def test_chunks_rebuild_the_text(tiny_chunks):
    for text in TRICKY:
        assert "".join(runner._chunks(text)) == text


def test_real_files_mutated_at_random_get_the_whole_file_answer(tiny_chunks):
    rng = random.Random(22)
    files = sorted(TESTDATA.rglob("*.py"))[:120]
    assert files
    checked = errors = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        variants = [text]
        for _ in range(3):
            at = rng.randrange(len(text) + 1)
            variants.append(
                text[:at] + rng.choice(["(", '"""', "\\\n", ":", "\n    ", ""]) + text[at:]
            )
        for variant in variants:
            expected = whole(variant)
            assert runner._syntax_problem(variant) == expected, (path, variant)
            checked += 1
            errors += expected is not None
    assert errors and errors < checked  # both answers were exercised
