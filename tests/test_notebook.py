"""Notebooks: the code cells of ``.ipynb`` files are linted (positions per cell) and fixed
(tests/test_notebook_fix.py); a notebook with a hazard never reports "All checks passed"."""

import json

import pytest

from cli_support import invoke


def notebook(*cells, markdown_first=True):
    items = (
        [{"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "x[0]"]}]
        if markdown_first
        else []
    )
    for source in cells:
        items.append(
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": source.splitlines(keepends=True),
            }
        )
    return json.dumps({"cells": items, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


IMPORTS = "%matplotlib inline\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock\n"
BLOCK = (
    "!pip list\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
    "        y = nd.relu(x)\n        return y\n"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_code_cells_are_linted_with_cell_positions(project):
    (project / "nb.ipynb").write_text(notebook(IMPORTS, BLOCK))
    for args in (["nb.ipynb"], ["."]):
        result = invoke("--no-cache", "--format", "json", *args)
        assert result.exit_code == 1, result.output
        [finding] = json.loads(result.stdout)["findings"]
        assert finding["code"] == "HL006" and finding["message"].startswith("cell 2: ")
        assert (finding["line"], finding["col"]) == (5, 13)
        assert finding["source_line"] == "        y = nd.relu(x)"
        assert finding["fixable"] is True


def test_fix_rewrites_the_notebooks_cells(project):  # more in test_notebook_fix.py
    (project / "nb.ipynb").write_text(notebook(IMPORTS, BLOCK))
    result = invoke("--no-cache", "--fix", "nb.ipynb")
    assert result.exit_code == 0 and "Fixed 1 finding" in result.stdout
    fixed = notebook(IMPORTS.replace("from mxnet import nd\n", ""), BLOCK.replace("nd.", "F."))
    assert (project / "nb.ipynb").read_text() == fixed


def test_a_cell_that_does_not_parse_and_a_file_that_is_not_a_notebook(project):
    (project / "bad.ipynb").write_text(notebook(IMPORTS, "def f(:\n    pass\n"))
    (project / "junk.ipynb").write_text("not json")
    result = invoke("--no-cache", "--format", "json", "--select", "HL0", ".")
    found = {
        (f["path"], f["code"], f["message"].split(":")[0])
        for f in json.loads(result.stdout)["findings"]
    }
    assert found == {("bad.ipynb", "HL900", "cell 2"), ("junk.ipynb", "HL900", "cannot parse")}


def test_a_clean_notebook_passes(project):
    (project / "nb.ipynb").write_text(notebook(IMPORTS, BLOCK.replace("nd.relu", "F.relu")))
    result = invoke("--no-cache", "nb.ipynb")
    assert result.exit_code == 0 and "All checks passed (1 file checked)" in result.stdout
