"""A run over files without hybrid code never loads the linter, LibCST, numpy or the rules.

Most files of a model repository hold no hybrid_forward (data loaders, scripts, utilities), and
a pre-commit hook runs hybridlint on whatever a commit touches: loading the rules costs far
more than reading such a file (about 1 s of imports against 0.3 s for the whole run), so the
runner decides that a file cannot hold hybrid code before it imports them, cached or not.
"""

import json
import subprocess
import sys
import textwrap

from hybridlint.ftypes import RUNNER_CODES
from hybridlint.rules import ALL_RULES
from hybridlint.runner import all_rule_codes
from hybridlint import suppression

HEAVY = ("libcst", "numpy", "hybridlint.rules", "hybridlint.linter")

_PROBE = textwrap.dedent(
    """
    import json, sys
    from hybridlint.cli import main
    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
    print(json.dumps({"exit": code, "loaded": [m for m in %r if m in sys.modules]}))
    """
    % (HEAVY,)
)


def _run(args, cwd, stdin=None):
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_rule_codes_read_from_module_names_are_the_rules_codes():
    expected = {rule.code for rule in ALL_RULES} | set(RUNNER_CODES) | {suppression.CODE}
    assert all_rule_codes() == sorted(expected)


def test_a_cold_run_over_files_without_hybrid_code_loads_no_rules(tmp_path):
    (tmp_path / "data.py").write_text(
        "import os\n\n\ndef load(path):\n    return os.listdir(path)\n"
    )
    (tmp_path / "script.py").write_text("from data import load\n\nprint(load('.'))\n")
    result = _run(["check", "--no-cache", "."], tmp_path)
    assert result == {"exit": 0, "loaded": []}


def test_stdin_without_hybrid_code_loads_no_rules(tmp_path):
    result = _run(["check", "--no-cache", "--stdin-filename", "a.py", "-"], tmp_path, "x = 1\n")
    assert result == {"exit": 0, "loaded": []}


def test_a_file_with_hybrid_code_is_still_linted(tmp_path):
    (tmp_path / "net.py").write_text(
        "from mxnet import gluon\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n        return x.shape[0]\n"
    )
    result = _run(["check", "--no-cache", "."], tmp_path)
    assert result["exit"] == 1 and "hybridlint.rules" in result["loaded"]
    assert "numpy" not in result["loaded"]  # only HL005 reading a literal array needs it


def test_a_helper_module_that_hybrid_code_imports_is_still_linted(tmp_path):
    # no hybrid_forward of its own, but net.py's hybrid code calls it with F: it is linted
    (tmp_path / "util.py").write_text("def helper(F, x):\n    return F.zeros(x.shape)\n")
    (tmp_path / "net.py").write_text(
        "from mxnet import gluon\nfrom util import helper\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n        return helper(F, x)\n"
    )
    result = _run(["check", "--no-cache", "--format", "json", "util.py"], tmp_path)
    assert result["exit"] == 1
