"""The "N fixable" that check prints is what --fix then reports fixing; --show-fixes says per
file and code what was fixed (issue 14, "Counts agree")."""

import os
import re
import shutil

import pytest

from cli_support import invoke

HAZARDS = os.path.join(os.path.dirname(__file__), os.pardir, "testdata", "hazards")


@pytest.mark.parametrize("unsafe", [[], ["--unsafe-fixes"]])
def test_fixable_count_equals_fixed_count(tmp_path, unsafe):
    work = tmp_path / "hazards"
    shutil.copytree(HAZARDS, work)
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    check = invoke("--no-cache", *unsafe, str(work))
    fixable = int(re.search(r"\[\*\] (\d+) fixable", check.stdout).group(1))
    fix = invoke("--no-cache", "--fix", "--show-fixes", *unsafe, str(work))
    fixed = re.search(
        r"Fixed (\d+) findings?(?:, and (\d+) more that those fixes revealed)?\.", fix.stdout
    )
    assert fixed, fix.stdout
    assert int(fixed.group(1)) == fixable
    revealed = int(fixed.group(2) or 0)
    # --show-fixes: one "- path:" block per fixed file, counts adding up to every fix made
    listed = sum(int(n) for n in re.findall(r"^    (\d+) × HL\d{3} \(", fix.stdout, re.M))
    assert listed == fixable + revealed
    assert re.search(rf"^Fixed {fixable + revealed} findings:$", fix.stdout, re.M)
    paths = re.findall(r"^- (.+):$", fix.stdout, re.M)
    assert paths and all(os.path.isfile(p) for p in paths)
    # whatever is still marked fixable afterwards was not fixed
    after = invoke("--no-cache", *unsafe, str(work))
    assert "[*]" not in after.stdout


def test_show_fixes_without_fix_prints_no_list(tmp_path):
    work = tmp_path / "hazards"
    shutil.copytree(HAZARDS, work)
    result = invoke("--no-cache", "--show-fixes", str(work))
    assert "×" not in result.stdout and result.exit_code == 1


def test_show_fixes_names_the_codes_verify_applied(tmp_path, monkeypatch):
    """--fix --verify --show-fixes lists the proven fixes per code, as --fix does (it used
    to print only "N fixes")."""
    (tmp_path / "net.py").write_text(
        "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n        return x.reshape(x.shape[0], -1)\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"net.py::Net" = { inputs = [[2, 3, 4]] }\n'
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("--no-cache", "--fix", "--verify", "--show-fixes", "net.py")
    listed = re.findall(r"^    (\d+) × (HL\d{3}) \(", result.stdout, re.M)
    assert listed and sum(int(n) for n, _ in listed) == 2, result.stdout
    assert {code for _, code in listed} == {"HL001", "HL011"}, result.stdout
