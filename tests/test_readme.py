"""Every code block of README.md is checked, so that the documentation cannot rot (issue 14:
its Python snippets failed with NameError and on `import mxnet`).

* ``python``: run in order, in one namespace, in a subprocess whose working directory is a
  small project holding the files the snippets name (models/net.py, models/resnet.py,
  my_model.py, a pyproject.toml with examples).
* ``console`` and ``bash``: every ``hybridlint`` command is run there (``python -m
  hybridlint``); it must not be a usage error, a traceback or an internal error. Other commands
  (pip, git, python benchmarks) are not run: they install or take minutes.
* ``toml``: parsed, and a ``[tool.hybridlint]`` table is validated by the real config loader.
* ``yaml``: parsed (when PyYAML is installed, as it is with pre-commit).
* ``text``: sample output, not executed.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as _handle:
    README = _handle.read()
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```", README, re.M | re.S)

NET = textwrap.dedent("""\
    import mxnet as mx
    from mxnet import nd
    from mxnet.gluon import HybridBlock, nn


    class Net(HybridBlock):
        def __init__(self, classes=10, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(classes)

        def hybrid_forward(self, F, x):
            y = self.dense(x.reshape((x.shape[0], -1)))
            return nd.relu(y)
""")
RESNET = textwrap.dedent("""\
    from mxnet.gluon import HybridBlock, nn


    class BasicBlock(HybridBlock):
        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv = nn.Conv2D(channels, 3, padding=1, in_channels=channels)

        def hybrid_forward(self, F, x):
            return F.relu(self.conv(x) + x)
""")
LOSS = textwrap.dedent("""\
    from mxnet.gluon import HybridBlock


    class SpanLoss(HybridBlock):
        def hybrid_forward(self, F, pred, labels):
            start, end = labels
            return F.sum(pred, axis=(1, 2)) + start + end
""")
PYPROJECT = textwrap.dedent("""\
    [tool.hybridlint]

    [tool.hybridlint.examples]
    "models/resnet.py::BasicBlock" = { kwargs = { channels = 64 }, inputs = [[2, 64, 8, 8]] }
    "models/net.py::Net" = { inputs = [[2, 3, 32, 32]] }
""")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "net.py").write_text(NET)
    (tmp_path / "models" / "resnet.py").write_text(RESNET)
    (tmp_path / "models" / "loss.py").write_text(LOSS)
    (tmp_path / "my_model.py").write_text(NET)
    (tmp_path / "train.py").write_text("print('training')\n")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


def test_the_readme_has_the_blocks_this_test_checks():
    kinds = {kind for kind, _ in BLOCKS}
    assert {"python", "console", "toml", "yaml"} <= kinds
    assert sum(kind == "python" for kind, _ in BLOCKS) >= 5


def test_python_blocks_run(project):
    blocks = [code for kind, code in BLOCKS if kind == "python"]
    script = ["import sys, traceback", "sys.path.insert(0, '.')", "namespace = {}"]
    for index, code in enumerate(blocks):
        script += [
            f"try:\n    exec(compile({code!r}, 'README python block {index + 1}', 'exec'),"
            " namespace)",
            f"except Exception:\n    traceback.print_exc()\n"
            f"    print('FAILED block {index + 1}:\\n' + {code!r})\n    sys.exit(1)",
        ]
    proc = subprocess.run(
        [sys.executable, "-c", "\n".join(script)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def _hybridlint_commands():
    for kind, code in BLOCKS:
        if kind not in ("console", "bash"):
            continue
        for line in code.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            for part in re.split(r"&&|;", line):
                part = part.split("#")[0].strip()
                if part.startswith("hybridlint"):
                    yield part


COMMANDS = sorted(set(_hybridlint_commands()))


def test_the_readme_documents_commands():
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("command", COMMANDS)
def test_console_commands_are_valid(project, command):
    words = shlex.split(command.split("|")[0].split(">")[0])
    words = [
        w.replace("testdata/hazards/", os.path.join(ROOT, "testdata", "hazards")) for w in words
    ]
    if "verify" in words and "--backend" in words:
        pytest.importorskip("mxnet")
    proc = subprocess.run(
        [sys.executable, "-m", "hybridlint", *words[1:]],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=900,
        input="",
    )
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output and "internal error" not in output, output
    assert "No such option" not in output and "Usage:" not in output, output
    if "--write-baseline" in words:
        assert proc.returncode == 0, output
    else:
        assert proc.returncode in (0, 1), output


def test_toml_blocks_parse_and_validate(project):
    from hybridlint.config import parse_table

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    for kind, code in BLOCKS:
        if kind != "toml":
            continue
        data = tomllib.loads(code)
        table = data.get("tool", {}).get("hybridlint")
        if table is not None:
            parse_table(table, root=str(project))


def test_yaml_blocks_parse():
    yaml = pytest.importorskip("yaml")
    for kind, code in BLOCKS:
        if kind == "yaml":
            assert yaml.safe_load(textwrap.dedent(code)) is not None, code


# --- Install, CI and pre-commit (issue 23 item 3): what the README pins must exist -------------


def _git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def _pinned_refs():
    """Every `rev:` and every `git+URL@REF` the README names."""
    refs = [(m.group(0), m.group(1)) for m in re.finditer(r"\brev:\s*([^\s#]+)", README)]
    refs += [
        (m.group(0), m.group(1)) for m in re.finditer(r"git\+[^\s\"'`]+@([^\s\"'`)]+)", README)
    ]
    return refs


def test_every_pinned_ref_is_a_commit_of_this_repository():
    """No invented tags: a `rev:` or `@ref` in the README is a full commit SHA that this
    repository's history has (there are no release tags), and that commit holds the package
    and the pre-commit hooks the snippets install from it."""
    refs = _pinned_refs()
    assert refs, "the README pins nothing: this test checks nothing"
    if _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone lacks the history the README's pins name")
    for text, ref in refs:
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{text!r}: pin a full commit SHA, not {ref!r}"
        assert _git("cat-file", "-e", f"{ref}^{{commit}}").returncode == 0, (
            f"{text!r}: {ref} is not a commit of this repository"
        )
        for path in ("pyproject.toml", "setup.py", ".pre-commit-hooks.yaml"):
            assert _git("cat-file", "-e", f"{ref}:{path}").returncode == 0, (ref, path)


def test_install_is_a_regular_install_from_a_clone():
    """Users get `pip install` of a clone, not an editable install (issue 22 item 4: an
    editable install compiles stale modules on every run); only the test command, which
    needs the sources, installs editable."""
    top = BLOCKS[0][1]
    assert "pip install . && hybridlint --fix --diff testdata/hazards/" in top
    install = README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    assert "$ pip install ./hybridlint" in install and "pip install -e /" not in install
    assert "v0." not in install


def test_the_readme_test_command_is_what_ci_runs():
    test_command = BLOCKS[0][1].strip().splitlines()[-1].split("&&")[-1].strip()
    assert test_command == "python -m pytest -q -n auto"
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        ci = handle.read()
    assert f"\n{test_command}\n" in ci
    # and the built wheel, installed in a fresh venv, runs the main job from outside the repo
    assert "python -m build" in ci and "hybridlint --fix --diff" in ci and "cd /tmp" in ci


def test_rule_table_rows_are_short_and_cover_every_rule():
    rules = README.split("\n## Rules\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in rules.splitlines() if re.match(r"\| \[?HL\d", line)]
    assert all(len(row) <= 360 for row in rows), max(rows, key=len)
    listed = subprocess.run(
        [sys.executable, "-m", "hybridlint", "rules"], capture_output=True, text=True
    ).stdout
    for code in re.findall(r"^(HL0\d\d)\b", listed, re.M):
        assert any(row.startswith((f"| {code} ", f"| [{code}]")) for row in rows), code


@pytest.mark.slow
def test_precommit_local_hooks_work_as_written(tmp_path):
    """The README's `repo: local` snippet, copied as is, runs the installed hybridlint: the fix
    hook rewrites a hazard and stops the commit, the lint hook then passes."""
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("needs git")
    section = README.split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    config = next(
        code
        for kind, code in re.findall(r"^```(\w+)\n(.*?)^```", section, re.M | re.S)
        if kind == "yaml" and "repo: local" in code
    )
    scripts = os.path.dirname(shutil.which("hybridlint") or sys.executable)
    env = {
        **os.environ,
        "PATH": scripts + os.pathsep + os.environ.get("PATH", ""),
        "PRE_COMMIT_HOME": str(tmp_path / "store"),
    }
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".pre-commit-config.yaml").write_text(config)
    (repo / "net.py").write_text(
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x[:, 0]\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert re.search(r"hybridlint \(fix\)\.+Failed", output), output
    assert "files were modified by this hook" in output, output
    assert re.search(r"^hybridlint\.+Passed", output, re.M), output
    assert "F.slice_axis" in (repo / "net.py").read_text()


def test_precommit_local_hooks_match_the_published_hooks():
    """The README's `repo: local` hooks run what .pre-commit-hooks.yaml runs."""
    yaml = pytest.importorskip("yaml")
    section = README.split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    config = next(
        code
        for kind, code in re.findall(r"^```(\w+)\n(.*?)^```", section, re.M | re.S)
        if kind == "yaml" and "repo: local" in code
    )
    local = {hook["id"]: hook for hook in yaml.safe_load(config)["repos"][0]["hooks"]}
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        published = {hook["id"]: hook for hook in yaml.safe_load(handle)}
    assert local.keys() == published.keys()
    for hook_id, hook in published.items():
        for key in ("name", "entry", "types_or", "require_serial"):
            assert local[hook_id][key] == hook[key], (hook_id, key)
