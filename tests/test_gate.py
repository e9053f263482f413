"""A CI gate must not pass by accident (issue 14, "CI safety"; "One bad file never takes the
run down"): a file that cannot be read, decoded or parsed is reported under every selection,
an empty selection is a usage error, and no single file can crash the run."""

import json
import os

import pytest

from cli_support import invoke

HYBRID = (
    "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n        return F.relu(x)\n"
)
SELECTIONS = [
    [],
    ["--select", "HL0"],
    ["--select", "HL003"],
    ["--ignore", "HL9"],
    ["--ignore", "HL900,HL901,HL902"],
    ["--select", "HL9"],
]


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint]\nselect = ["HL0"]\n\n[tool.hybridlint.per-file-ignores]\n'
        '"quiet/*" = ["HL9"]\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


BAD_FILES = {
    "syntax.py": (b"def f(:\n    pass\n", "HL900"),
    "syntax_not_hybrid.py": (b"x = (1,\n", "HL900"),
    # cut off mid-statement after a complete hybrid class: the class alone would lint clean
    "truncated.py": (
        HYBRID.encode() + b"\n\nclass Other(HybridBlock):\n    def hybrid_forward(self, F,",
        "HL900",
    ),
    "truncated_at_top.py": (HYBRID.encode() + b"\nvalue = compute(\n", "HL900"),
    "nested.py": (HYBRID.replace("F.relu(x)", "(" * 1500 + "x" + ")" * 1500).encode(), "HL900"),
    "power.py": (HYBRID.replace("F.relu(x)", "**".join(["x"] * 5000)).encode(), "HL900"),
    "nul.py": (HYBRID.encode() + b"\x00\n", "HL900"),
    "latin.py": (b"x = '\xe9'\n", "HL901"),
    "utf16.py": (b"# coding: utf-16\nx = 1\n", "HL901"),
    "quiet/syntax.py": (b"def f(:\n", "HL900"),
}


@pytest.mark.parametrize("selection", SELECTIONS, ids=lambda s: " ".join(s) or "default")
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_are_reported_under_every_selection(project, name, selection):
    raw, code = BAD_FILES[name]
    (project / name).parent.mkdir(exist_ok=True)
    (project / name).write_bytes(raw)
    for args in ([name], ["."]):
        result = invoke("--no-cache", "--format", "json", *selection, *args)
        assert result.exit_code == 1, (args, result.output)
        codes = [f["code"] for f in json.loads(result.stdout)["findings"]]
        assert codes == [code], (args, codes)


@pytest.mark.parametrize("selection", SELECTIONS, ids=lambda s: " ".join(s) or "default")
def test_missing_and_unreadable_paths_are_reported(project, selection):
    os.symlink("nowhere.py", project / "dangling.py")
    for args in (["missing.py"], ["dangling.py"], ["missing/"]):
        result = invoke("--no-cache", *selection, *args)
        assert result.exit_code == 1, (args, result.output)
        assert "HL902" in result.stdout and "All checks passed" not in result.stdout


def test_a_crashing_file_does_not_lose_the_others_in_a_pooled_run(project, monkeypatch):
    """1,500 nested brackets segfaulted LibCST in a worker and the queued files were lost."""
    import hybridlint.runner as runner

    monkeypatch.setattr(runner, "SERIAL_MAX_BYTES", 0)
    for i in range(6):
        (project / f"ok{i}.py").write_text(HYBRID.replace("F.relu(x)", "x.shape"))
    (project / "nested.py").write_text(HYBRID.replace("F.relu(x)", "(" * 1500 + "x" + ")" * 1500))
    result = invoke("--no-cache", "--jobs", "2", "--format", "json", ".")
    found = json.loads(result.stdout)["findings"]
    assert sorted((f["path"], f["code"]) for f in found) == sorted(
        [("nested.py", "HL900")] + [(f"ok{i}.py", "HL001") for i in range(6)]
    )


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
@pytest.mark.parametrize("value", ["", " ", ",", " , "])
def test_an_empty_code_list_is_a_usage_error(project, option, value):
    result = invoke(option, value, ".")
    assert result.exit_code == 2
    assert "empty" in result.stderr and option in result.stderr


@pytest.mark.parametrize("key", ["select", "ignore", "extend-select"])
def test_an_empty_configured_selection_is_an_error(project, key):
    (project / "pyproject.toml").write_text(f"[tool.hybridlint]\n{key} = []\n")
    result = invoke(".")
    if key == "select":
        assert result.exit_code == 2 and "select" in result.stderr and "empty" in result.stderr
    else:  # ignore = [] and extend-select = [] are harmless: nothing removed or added
        assert result.exit_code == 0, result.output


def test_a_selection_that_enables_no_rule_still_checks_files(project):
    (project / "broken.py").write_text("def f(:\n")
    result = invoke("--no-cache", "--select", "HL003", "--ignore", "HL003", ".")
    assert result.exit_code == 1 and "HL900" in result.stdout


def test_jobs_is_capped_at_a_multiple_of_the_cores(project, monkeypatch):
    import hybridlint.runner as runner

    seen = []
    real = runner._new_pool
    monkeypatch.setattr(runner, "SERIAL_MAX_BYTES", 0)
    monkeypatch.setattr(runner, "default_jobs", lambda: 2)
    monkeypatch.setattr(runner, "_new_pool", lambda workers: seen.append(workers) or real(workers))
    for i in range(8):
        (project / f"m{i}.py").write_text(HYBRID)
    result = invoke("--no-cache", "--jobs", "100000", ".")
    assert result.exit_code == 0, result.output
    assert seen == [2 * runner.MAX_JOBS_PER_CORE]


def test_pool_workers_die_with_the_main_process(tmp_path):
    """kill -9 of the main process: its workers must not live on (PR_SET_PDEATHSIG)."""
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import os, sys, time\n"
        "import hybridlint.runner as r\n"
        "pool = r._new_pool(2)\n"
        "pids = [pool.submit(os.getpid).result() for _ in range(4)]\n"
        "print(' '.join(map(str, sorted(set(pids)))), flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    workers = [int(p) for p in proc.stdout.readline().split()]
    assert workers
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(200):  # waits for an event (the workers' exit), never a fixed time
        alive = [p for p in workers if _alive(p)]
        if not alive:
            break
        time.sleep(0.05)
    assert not alive


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        os.kill(pid, 0)
        return True


@pytest.mark.parametrize(
    "codes, expected",
    [
        ('["HL0003"]', "'HL0003' is not a rule code"),
        ('["HL099"]', "unknown rule code 'HL099'"),
        ('"HL003"', "must be a list"),
    ],
)
def test_a_bad_per_file_ignores_code_names_the_file_and_the_glob(project, codes, expected):
    (project / "pyproject.toml").write_text(
        f'[tool.hybridlint]\n\n[tool.hybridlint.per-file-ignores]\n"tests/*" = {codes}\n'
    )
    (project / "m.py").write_text(HYBRID)
    result = invoke(".")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert str(project / "pyproject.toml") in line and "per-file-ignores" in line
    assert "tests/*" in line and expected in line


@pytest.mark.parametrize(
    "args",
    [
        ["--no-cache", "."],
        ["--no-cache", "--diff", "."],
        ["--no-cache", "--format", "json", "."],
        ["rules"],
    ],
)
def test_a_closed_pipe_exits_quietly(project, args):
    """`hybridlint | head`: no "internal error: BrokenPipeError" and no exit 2."""
    import subprocess
    import sys

    for i in range(40):
        (project / f"m{i}.py").write_text(
            HYBRID.replace("F.relu(x)", "nd.relu(x)  # " + "x" * 2000)
        )
    proc = subprocess.Popen(
        [sys.executable, "-m", "hybridlint", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.readline()
    proc.stdout.close()  # what head does after its lines
    stderr = proc.stderr.read().decode()
    code = proc.wait()
    assert stderr.strip() == "" or "Would fix" in stderr, stderr
    assert "Error" not in stderr and "error" not in stderr
    assert code in (0, 1)


FF_HEAD = "from mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"


def test_a_form_feed_in_indentation_is_valid_python_not_hl900(project):
    source = (
        FF_HEAD + "    def hybrid_forward(self, F, x):\n\x0c        y = x.shape\n        return y\n"
    )
    compile(source, "ff.py", "exec")  # valid for CPython
    (project / "ff.py").write_text(source)
    result = invoke("--no-cache", "--select", "ALL", "--format", "json", "ff.py")
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["code"] == "HL001"
    assert (finding["line"], finding["col"]) == (7, source.split("\n")[6].index("x.shape") + 1)


def test_a_form_feed_at_the_start_of_a_rewritten_line_is_kept(project):
    source = (
        FF_HEAD + "    def hybrid_forward(self, F, x):\n        y = F.relu(x)\n"
        "\x0c        z = nd.relu(y)\n  \x0c        return z\n"
    )
    compile(source, "ff.py", "exec")
    (project / "ff.py").write_bytes(source.encode())
    result = invoke("--no-cache", "--select", "ALL", "--fix", "ff.py")
    assert result.exit_code == 0, result.output
    want = source.replace("nd.relu", "F.relu").replace("from mxnet import nd\n", "")
    assert (project / "ff.py").read_bytes() == want.encode()  # (nd: unused after the fix)


def test_check_version_is_the_documented_option(project):
    from hybridlint import __version__

    assert invoke("check", "--version").stdout == f"hybridlint {__version__}\n"


def test_verify_on_mxnet_without_mxnet_is_exit_2(project):
    import importlib.util

    if importlib.util.find_spec("mxnet") is not None:
        pytest.skip("real MXNet is installed here")
    (project / "net.py").write_text(HYBRID)
    result = invoke("verify", "net.py::Net", "--input", "2,3", "--backend", "mxnet")
    assert result.exit_code == 2 and "MXNet" in result.stderr


@pytest.mark.parametrize(
    "signature, value, ok",
    [
        ("units: int", "eight", False),
        ("units=8", "eight", False),
        ("units=0.5", "x", False),
        ("units: int", "8", True),
        ("units=8", "16", True),
        ("units='relu'", "tanh", True),
        ("units", "eight", True),  # nothing says it is a number
    ],
)
def test_verify_kwarg_that_is_not_a_number_where_one_is_declared(project, signature, value, ok):
    (project / "net.py").write_text(
        HYBRID.replace(
            "class Net(HybridBlock):\n",
            f"class Net(HybridBlock):\n    def __init__(self, {signature}, **kwargs):\n"
            "        super().__init__(**kwargs)\n\n",
        )
    )
    result = invoke("verify", "net.py::Net", "--input", "2,3", "--kwarg", f"units={value}")
    if ok:
        assert "is not a number" not in result.stderr
    else:
        assert result.exit_code == 2 and "is not a number" in result.stderr
        assert "units" in result.stderr
