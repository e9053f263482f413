"""Notebooks, finished (issue 23, item 4): ``--fix`` rewrites the code cells of an ``.ipynb``
in place (every other byte of the file kept), ``--diff`` diffs each changed cell, stdin is a
notebook under ``--stdin-filename x.ipynb`` (``--fix``: the fixed JSON on stdout), IPython
syntax is masked where IPython finds it, and one cell Python cannot parse is that cell's HL900
while the other cells are still linted. The stdin tests start the CLI as a process."""

import json
import subprocess
import sys

import pytest

from cli_support import invoke
from hybridlint import notebook

IMPORTS = "%matplotlib inline\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock\n"
BLOCK = (
    "!pip list\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
    "        y = nd.relu(x)\n        return y"  # nbformat: no newline after the last line
)
FIXED_IMPORTS = IMPORTS.replace("from mxnet import nd\n", "")  # nd is unused after the fix
FIXED_BLOCK = BLOCK.replace("nd.relu", "F.relu")
CLEAN = BLOCK.replace("nd.relu", "F.relu")


def notebook_json(*cells, indent=1, sort_keys=True, ensure_ascii=False, newline="\n"):
    """A notebook as nbformat writes it (indent=1, sorted keys, ensure_ascii=False, a last
    newline), or in another style; with outputs, metadata and a markdown cell."""
    items = [{"cell_type": "markdown", "metadata": {}, "source": ["# Titre é\n", "x[0]"]}]
    for number, source in enumerate(cells, 1):
        items.append(
            {
                "cell_type": "code",
                "execution_count": number,
                "metadata": {"tags": ["démo"], "scrolled": True},
                "outputs": [
                    {"name": "stdout", "output_type": "stream", "text": ["héllo\n", "1.5e-05\n"]}
                ],
                "source": source.splitlines(keepends=True),
            }
        )
    data = {
        "metadata": {"kernelspec": {"display_name": "Python 3", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
        "cells": items,
    }
    text = json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    return text + newline


def sources(text):
    return ["".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "code"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


STYLES = {
    "nbformat": {},
    "indent2": {"indent": 2, "sort_keys": False},
    "ascii_no_newline": {"ensure_ascii": True, "newline": ""},
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_fix_rewrites_only_the_changed_cells_sources(project, style):
    before = notebook_json(IMPORTS, BLOCK, "x = 1\n", **STYLES[style])
    expected = notebook_json(FIXED_IMPORTS, FIXED_BLOCK, "x = 1\n", **STYLES[style])
    (project / "nb.ipynb").write_bytes(before.encode())
    result = invoke("--no-cache", "--fix", "nb.ipynb")
    assert result.exit_code == 0, result.output
    assert "Fixed 1 finding" in result.stdout
    assert (project / "nb.ipynb").read_bytes() == expected.encode()  # byte for byte


@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_notebook_with_nothing_to_fix_stays_byte_identical(project, style):
    text = notebook_json(IMPORTS, CLEAN, "print 'x'\n", "%%bash\necho hi\n", **STYLES[style])
    (project / "nb.ipynb").write_bytes(text.encode())
    before = (project / "nb.ipynb").stat().st_mtime_ns
    result = invoke("--no-cache", "--fix", "nb.ipynb")
    assert result.exit_code == 1 and "HL900" in result.stdout  # the Python 2 cell
    assert (project / "nb.ipynb").read_bytes() == text.encode()
    assert (project / "nb.ipynb").stat().st_mtime_ns == before  # not even rewritten


def test_fix_keeps_crlf_a_bom_and_escapes_of_unchanged_lines(project):
    text = notebook_json(IMPORTS, BLOCK + "\n# caf\u00e9\n").replace("\n", "\r\n")
    text = text.replace("caf\u00e9", "caf\\u00e9")  # an escape an editor wrote
    (project / "nb.ipynb").write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = invoke("--no-cache", "--fix", "nb.ipynb")
    assert result.exit_code == 0, result.output
    raw = (project / "nb.ipynb").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\n" not in raw.replace(b"\r\n", b"")
    assert b'"# caf\\u00e9\\n"' in raw and b'"        y = F.relu(x)\\n"' in raw
    assert sources(raw.decode("utf-8-sig"))[1] == FIXED_BLOCK + "\n# caf\u00e9\n"


def test_outputs_metadata_and_other_cells_are_kept(project):
    text = notebook_json(IMPORTS, BLOCK, indent=2, sort_keys=False)
    (project / "nb.ipynb").write_text(text, encoding="utf-8")
    invoke("--no-cache", "--fix", "nb.ipynb")
    old, new = json.loads(text), json.loads((project / "nb.ipynb").read_text(encoding="utf-8"))
    for cell in old["cells"] + new["cells"]:
        cell.pop("source")
    assert new == old
    assert sources((project / "nb.ipynb").read_text(encoding="utf-8")) == [
        FIXED_IMPORTS,
        FIXED_BLOCK,
    ]


def test_diff_shows_one_diff_per_changed_cell_and_writes_nothing(project):
    text = notebook_json(IMPORTS, "x = 1\n", BLOCK)
    (project / "nb.ipynb").write_text(text, encoding="utf-8")
    result = invoke("--no-cache", "--diff", "nb.ipynb")
    assert result.exit_code == 1, result.output
    assert (project / "nb.ipynb").read_text(encoding="utf-8") == text
    assert result.stdout == (
        "--- nb.ipynb:cell 1\n+++ nb.ipynb:cell 1\n@@ -1,3 +1,2 @@\n %matplotlib inline\n"
        "-from mxnet import nd\n from mxnet.gluon import HybridBlock\n"
        "--- nb.ipynb:cell 3\n+++ nb.ipynb:cell 3\n@@ -2,5 +2,5 @@\n \n"
        " class Net(HybridBlock):\n     def hybrid_forward(self, F, x):\n"
        "-        y = nd.relu(x)\n+        y = F.relu(x)\n         return y\n"
        "\\ No newline at end of file\n"
    )


def test_check_marks_notebook_findings_fixable(project):
    (project / "nb.ipynb").write_text(notebook_json(IMPORTS, BLOCK), encoding="utf-8")
    result = invoke("--no-cache", "--format", "json", "nb.ipynb")
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["code"] == "HL006" and finding["fix"] == "safe"
    assert finding["message"].startswith("cell 2: ") and finding["line"] == 5


def test_a_cell_python_cannot_parse_is_its_own_finding_and_the_others_are_linted(project):
    (project / "nb.ipynb").write_text(
        notebook_json(IMPORTS, "print 'hello'\n", BLOCK), encoding="utf-8"
    )
    result = invoke("--no-cache", "--format", "json", "nb.ipynb")
    found = [
        (f["code"], f["message"][:7], f["line"]) for f in json.loads(result.stdout)["findings"]
    ]
    assert sorted(found) == [("HL006", "cell 3:", 5), ("HL900", "cell 2:", 1)]
    fixed = invoke("--no-cache", "--fix", "nb.ipynb")
    assert fixed.exit_code == 1 and "HL900" in fixed.stdout
    after = sources((project / "nb.ipynb").read_text(encoding="utf-8"))
    assert after == [FIXED_IMPORTS, "print 'hello'\n", FIXED_BLOCK]


@pytest.mark.parametrize(
    "cell",
    [
        "y = (x\n     % 2)\n",  # a continuation line: IPython leaves it to Python (modulo)
        "y = (x\n     != 2)\n",
        "y = x \\\n    % 2\n",
        's = """\n%not a magic\n"""\n',
        "for i in range(3):\n    %time f(i)\n",  # the magic is the loop's only body
        "  %time f()\n",
        "files = !ls\n",
        "nd.relu?\n",
        "%%time\ny = nd.relu(x)\n",  # a cell magic whose body is Python
    ],
)
def test_ipython_syntax_is_masked_where_ipython_finds_it(cell):
    book = notebook.read(notebook_json(cell))
    [parsed] = book.cells
    assert parsed.error is None and not parsed.skipped, parsed.error
    module, starts = book.module()
    compile(module, "nb", "exec")
    assert module.count("\n") - starts[0] + 2 == cell.count("\n") + 1  # lines keep their place


def test_magic_lines_come_back_after_a_fix(project):
    block = (
        "%%time\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        "        for i in range(2):\n            %time y = 1\n        !echo hi\n"
        "        y = (nd.relu(x)\n  % 2)\n        return y\n"
    )
    (project / "nb.ipynb").write_text(notebook_json(IMPORTS, block), encoding="utf-8")
    result = invoke("--no-cache", "--fix", "nb.ipynb")
    assert result.exit_code == 0, result.output
    fixed = sources((project / "nb.ipynb").read_text(encoding="utf-8"))
    assert fixed == [FIXED_IMPORTS, block.replace("nd.relu", "F.relu")]


def test_a_cell_magic_that_is_not_python_is_skipped(project):
    bash = "%%bash\nfor f in *; do echo $f; done\n"
    (project / "nb.ipynb").write_text(notebook_json(IMPORTS, bash, BLOCK), encoding="utf-8")
    result = invoke("--no-cache", "--format", "json", "nb.ipynb")
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["HL006"]
    assert invoke("--no-cache", "--fix", "nb.ipynb").exit_code == 0
    after = sources((project / "nb.ipynb").read_text(encoding="utf-8"))
    assert after == [FIXED_IMPORTS, bash, FIXED_BLOCK]


def test_a_rewrite_that_would_not_load_to_the_fixed_cells_is_refused():
    text = notebook_json(IMPORTS, BLOCK)
    book = notebook.read(text)
    new = notebook.rewrite(text, book, [FIXED_IMPORTS, FIXED_BLOCK])
    assert sources(new) == [FIXED_IMPORTS, FIXED_BLOCK]
    assert notebook.rewrite(text, book, [IMPORTS, BLOCK]) is text  # nothing changed
    with pytest.raises(notebook.NotebookError):  # a cell whose "source" the file lacks
        broken = json.loads(text)
        del broken["cells"][1]["source"]
        notebook.rewrite(json.dumps(broken), notebook.read(json.dumps(broken)), ["x = 1\n", BLOCK])


def test_a_fix_that_loses_a_cell_marker_is_not_written_back():
    book = notebook.read(notebook_json(IMPORTS, BLOCK))
    module, _ = book.module()
    assert book.split(module) is not None
    assert book.split(module.replace("# hybridlint:cell:2\n", "")) is None
    assert book.split(module.replace("# hybridlint:magic:1", "")) is None


def test_json_problem_is_what_the_writer_checks(tmp_path):
    from hybridlint.files import SourceWriteError, read_source, write_source

    path = tmp_path / "nb.ipynb"
    path.write_text(notebook_json(IMPORTS), encoding="utf-8")
    original = read_source(str(path))
    with pytest.raises(SourceWriteError, match="does not parse"):
        write_source(original, original.text[:-3], problem_of=notebook.json_problem)
    assert path.read_text(encoding="utf-8") == original.text


def run(args, cwd, stdin):
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", "--no-cache", *args],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        timeout=300,
    )


def test_stdin_fix_prints_the_fixed_notebook(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    text = notebook_json(IMPORTS, BLOCK, indent=2, sort_keys=False)
    proc = run(["--fix", "--stdin-filename", "nb.ipynb", "-"], tmp_path, text.encode())
    assert proc.returncode == 0, proc.stderr.decode()
    expected = notebook_json(FIXED_IMPORTS, FIXED_BLOCK, indent=2, sort_keys=False)
    assert proc.stdout == expected.encode()
    assert "Fixed 1 finding" in proc.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]


def test_stdin_lint_and_diff_of_a_notebook(tmp_path):
    text = notebook_json(IMPORTS, BLOCK).encode()
    lint = run(["--stdin-filename", "nb.ipynb", "-"], tmp_path, text)
    assert lint.returncode == 1 and lint.stdout.decode().startswith("nb.ipynb:5:13: HL006 [*]")
    diff = run(["--diff", "--stdin-filename", "nb.ipynb", "-"], tmp_path, text)
    assert diff.returncode == 1 and diff.stdout.decode().startswith("--- nb.ipynb:cell 1\n")
    clean = notebook_json(IMPORTS, CLEAN).encode()
    same = run(["--fix", "--stdin-filename", "nb.ipynb", "-"], tmp_path, clean)
    assert same.returncode == 0 and same.stdout == clean


@pytest.mark.parametrize(
    "cell",
    [
        "y = (x\n     % 2)\n",
        "y = (x\n     != 2)\n",
        "y = x \\\n    % 2\n",
        "for i in range(3):\n    %time f(i)\n",
        "files = !ls\n",
        "nd.relu?\n",
    ],
)
def test_a_cell_with_ipython_syntax_is_linted_with_the_others(project, cell):
    (project / "nb.ipynb").write_text(notebook_json(IMPORTS, cell, BLOCK), encoding="utf-8")
    result = invoke("--no-cache", "--format", "json", "nb.ipynb")
    found = [(f["code"], f["message"][:7]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("HL006", "cell 3:")]


def test_a_source_written_as_one_string_stays_one_string(project):
    data = json.loads(notebook_json(IMPORTS, BLOCK))
    for cell in data["cells"]:
        cell["source"] = "".join(cell["source"])
    text = json.dumps(data, indent=1, ensure_ascii=False)
    (project / "nb.ipynb").write_text(text, encoding="utf-8")
    assert invoke("--no-cache", "--fix", "nb.ipynb").exit_code == 0
    after = json.loads((project / "nb.ipynb").read_text(encoding="utf-8"))
    assert [c["source"] for c in after["cells"][1:]] == [FIXED_IMPORTS, FIXED_BLOCK]
    data["cells"][1]["source"], data["cells"][2]["source"] = FIXED_IMPORTS, FIXED_BLOCK
    assert (project / "nb.ipynb").read_text(encoding="utf-8") == json.dumps(
        data, indent=1, ensure_ascii=False
    )
