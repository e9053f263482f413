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
