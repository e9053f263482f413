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
