"""tools/typecheck.py: mypy sees the installed layout (hybridlint.engine, hybridlint.rules) and
its messages name the repo's files. mypy itself is not run here (CI runs the script)."""

import importlib.util
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tool():
    spec = importlib.util.spec_from_file_location(
        "typecheck_tool", os.path.join(REPO, "tools", "typecheck.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_roots_are_read_from_setup_py():
    assert _tool().package_roots() == {
        "hybridlint": "hybridlint",
        "hybridlint.engine": "engine",
        "hybridlint.rules": "rules",
    }


def test_messages_name_the_repo_files():
    tool = _tool()
    roots = tool.package_roots()
    tree = os.path.join("build", "mypy-tree", "hybridlint")
    cases = [
        (os.path.join(tree, "engine", "ops", "nn.py"), os.path.join("engine", "ops", "nn.py")),
        (os.path.join(tree, "rules", "flow.py"), os.path.join("rules", "flow.py")),
        (
            os.path.join(tree, "checker", "jobs.py"),
            os.path.join("hybridlint", "checker", "jobs.py"),
        ),
    ]
    for in_tree, in_repo in cases:
        assert tool.source_path(in_tree + ":3: error: x", roots) == in_repo + ":3: error: x"
    assert tool.source_path("Found 1 error in 1 file", roots) == "Found 1 error in 1 file"
