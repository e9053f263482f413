"""The end-to-end harness's own logic (benchmarks/e2e), without downloading or running MXNet.

The harness itself downloads pinned packages and judges under real MXNet, so the suite never
runs it whole; what it computes is tested here: every case file is well formed, a case copies
its definitions byte for byte, the tool's examples never include the unseen inputs, and the
verdicts follow the judge's answers and the tool's exit.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parents[1] / "benchmarks" / "e2e"
sys.path.insert(0, str(E2E))
sys.path.insert(0, str(E2E.parent / "realworld"))


def _load(name):
    spec = importlib.util.spec_from_file_location(f"e2e_{name}", E2E / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cases = _load("cases")
run = _load("run")

MODULE = '''\
"""A package module."""
import mxnet as mx


def helper(F, x):
    return F.relu(x)   # odd  spacing kept


@decorated()
class Block(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return helper(F, x) * x.shape[0]


SCALE = 2
'''


def _case(**overrides):
    entry = {
        "id": "block",
        "source": "pkg/mod.py",
        "copy": ["helper", "Block"],
        "block": "Block",
        "kind": "fails",
        "examples": [{"inputs": [[2, 3]]}],
        "unseen": [{"inputs": [[5, 3]]}],
        "prelude": "import mxnet as mx\ndef decorated():\n    return lambda c: c\n",
    }
    entry.update(overrides)
    return cases._case("pkg-1.0", entry, "test")


@pytest.mark.parametrize("folder", ["cases", "holdout"])
def test_every_committed_case_file_loads_and_names_known_packages(folder):
    if not (E2E / folder).is_dir():
        pytest.skip(f"no benchmarks/e2e/{folder} yet")
    loaded = cases.load_cases(E2E / folder)
    pinned = {p.name for p in run.E2E_PACKAGES} | {
        p.name for p in run.fetch.__globals__["PACKAGES"]
    }
    assert loaded, "no cases"
    assert {c.package for c in loaded} <= pinned
    assert len({c.name for c in loaded}) == len(loaded)
    for case in loaded:
        assert case.block in case.copy
        assert case.examples and all("inputs" in e for e in case.examples)


def test_definitions_are_copied_byte_for_byte_after_the_prelude(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    text = cases.copied_source(_case(), str(tmp_path))
    assert text.startswith("import mxnet as mx\ndef decorated():")
    assert "    return F.relu(x)   # odd  spacing kept\n" in text
    assert "@decorated()\nclass Block(mx.gluon.HybridBlock):" in text  # decorators come along
    assert "SCALE" not in text and "A package module" not in text  # only what is named
    with pytest.raises(cases.CaseError, match="defines no top-level Missing"):
        cases.copied_source(_case(copy=["Missing", "Block"]), str(tmp_path))


def test_the_tool_sees_the_examples_never_the_unseen_inputs(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "mod.py").write_text(MODULE)
    project = tmp_path / "project"
    cases.materialize(_case(), str(tmp_path / "src"), project)
    config = (project / "pyproject.toml").read_text()
    assert '"block.py::Block"' in config and "[2, 3]" in config
    assert "[5, 3]" not in config


def test_malformed_cases_are_refused():
    with pytest.raises(cases.CaseError, match="missing"):
        cases._case("p", {"id": "x"}, "here")
    with pytest.raises(cases.CaseError, match="kind"):
        _case(kind="maybe")
    with pytest.raises(cases.CaseError, match="unknown key"):
        _case(extra_field=1)


@pytest.mark.parametrize(
    "kind, eager, hybrid, returncode, findings, claims, verdict",
    [
        ("fails", ["equal", "equal"], ["equal", "equal"], 0, [], False, "fixed"),
        ("fails", ["equal", "differs: x"], ["equal", "equal"], 0, [], False, "broken"),
        (
            "fails",
            ["equal", "equal"],
            ["error: E", "error: E"],
            1,
            [(3, "HL903", "m")],
            False,
            "reported",
        ),
        ("fails", ["equal", "equal"], ["error: E", "error: E"], 0, [], False, "silent"),
        (
            "fails",
            ["equal", "equal"],
            ["error: E", "error: E"],
            1,
            [(3, "HL903", "m")],
            True,
            "over-claimed",
        ),
        # a claim on the examples holds, the unseen input fails: not an over-claim
        (
            "fails",
            ["equal", "equal"],
            ["equal", "error: E"],
            1,
            [(3, "HL903", "m")],
            True,
            "reported",
        ),
        ("fails", ["equal", "equal"], ["error: E", "error: E"], 2, [], False, "cannot-run"),
        ("works", ["equal", "equal"], ["equal", "equal"], 0, [], False, "ok"),
        ("works", ["equal", "equal"], ["equal", "differs: y"], 0, [], False, "broken"),
    ],
)
def test_verdicts(kind, eager, hybrid, returncode, findings, claims, verdict):
    case = _case(kind=kind)
    tool = run.ToolRun(returncode, findings=findings, claims=claims)
    outcome = run.classify(
        case, tool, {"eager": eager, "hybrid": hybrid}, "class Block:\n    pass\n"
    )
    assert outcome.verdict == verdict


@pytest.mark.parametrize(
    "kind, train, original_train, verdict",
    [
        ("fails", ["equal", "equal"], [], "fixed"),
        ("fails", ["equal", "differs in gradients: max abs diff 1"], [], "broken"),
        ("fails", ["equal", "error: E"], [], "broken"),
        # random draws the judge cannot match, or an original that cannot train: not judged
        ("fails", ["random: differs: max abs diff 1", "reference: E"], [], "fixed"),
        ("works", ["equal", "differs: shape (2,)"], ["equal", "equal"], "broken"),
        # a working block the original does not train alike hybridized: that example is
        # MXNet's difference, not the fix's
        ("works", ["equal", "differs: shape (2,)"], ["equal", "differs: x"], "ok"),
    ],
)
def test_a_fix_equal_in_inference_must_also_train_alike(kind, train, original_train, verdict):
    tool = run.ToolRun(0, findings=[], claims=False)
    verdicts = {"eager": ["equal", "equal"], "hybrid": ["equal", "equal"], "train": train}
    outcome = run.classify(
        _case(kind=kind), tool, verdicts, "class Block:\n    pass\n", original_train
    )
    assert outcome.verdict == verdict, outcome
    if verdict == "broken":
        assert outcome.detail.startswith("training step")


HELPER_AND_BLOCK = "def helper(F, x):\n    return x.shape\n\n\nclass Block:\n    pass\n"


@pytest.mark.parametrize(
    "findings, hybrid, verdict",
    [
        # MXNet raises in the helper (line 2), outside the block: a finding there counts even
        # when another one is inside the block
        ([(2, "HL001", "a"), (6, "HL001", "b")], ["error: E (at line 2)", "equal"], "reported"),
        ([(6, "HL001", "b")], ["error: E (at line 2)", "equal"], "misplaced"),
        ([(6, "HL903", "b"), (2, "HL001", "a")], ["error: E (at line 2)", "equal"], "reported"),
        # each failing example stops at its own line: a finding at either is enough
        ([(6, "HL001", "b")], ["error: E (at line 2)", "error: F (at line 6)"], "reported"),
        # no line (a wrong value, or the traced graph's own error): any finding
        ([(6, "HL001", "b")], ["differs: x", "equal"], "reported"),
    ],
)
def test_a_report_counts_at_the_line_mxnet_fails(findings, hybrid, verdict):
    tool = run.ToolRun(1, findings=findings, claims=False)
    outcome = run.classify(
        _case(), tool, {"eager": ["equal", "equal"], "hybrid": hybrid}, HELPER_AND_BLOCK
    )
    assert outcome.verdict == verdict, outcome


def test_a_reference_fix_is_applied_edit_by_edit_and_each_edit_must_match_once():
    case = _case(reference=[{"old": "x.shape[0]", "new": "F.ones_like(x)"}])
    source = "y = x.shape[0]\n"
    assert cases.apply_reference(case, source) == "y = F.ones_like(x)\n"
    with pytest.raises(cases.CaseError, match="occurs 2 times"):
        cases.apply_reference(case, source * 2)
    with pytest.raises(cases.CaseError, match="occurs 0 times"):
        cases.apply_reference(case, "y = 1\n")


def test_exact_rewrite_labels_are_for_failing_blocks_and_cannot_contradict():
    with pytest.raises(cases.CaseError, match="failing blocks"):
        _case(kind="works", no_exact_rewrite="why")
    with pytest.raises(cases.CaseError, match="contradicts"):
        _case(reference=[{"old": "a", "new": "b"}], no_exact_rewrite="why")
    with pytest.raises(cases.CaseError, match="old = ..., new = ..."):
        _case(reference=[{"old": "a"}])


def test_the_exact_rewrite_measure_counts_blocks_some_rewrite_fixed(capsys):
    proven = _case(id="a", reference=[{"old": "a", "new": "b"}])
    by_tool = _case(id="b")
    labelled = _case(id="c", no_exact_rewrite="a Python branch on a static shape")
    undecided = _case(id="d")
    outcome = run.Outcome
    table = {
        proven.name: {"verify": outcome("reported"), "reference": outcome("fixed")},
        by_tool.name: {"verify": outcome("fixed")},
        labelled.name: {"verify": outcome("reported")},
        undecided.name: {"verify": outcome("silent")},
    }
    run.exact_rewrite_summary([proven, by_tool, labelled, undecided], ["verify"], table)
    out = capsys.readouterr().out
    assert "exact rewrite proven for 2/4 failing blocks; labelled without one 1; undecided 1" in out
    assert "verify        fixed 1/2 of the blocks with an exact rewrite (50.0%)" in out
    table[labelled.name]["verify"] = outcome("fixed")
    run.exact_rewrite_summary([proven, by_tool, labelled, undecided], ["verify"], table)
    assert "LABEL WRONG pkg-1.0/c" in capsys.readouterr().out


def test_another_checkout_is_laid_out_so_its_rules_and_engine_are_imported(tmp_path):
    # a checkout keeps rules/ and engine/ at its top; the overlay puts them in the package
    src = tmp_path / "checkout"
    for folder in ("hybridlint", "rules", "engine"):
        (src / folder).mkdir(parents=True)
        (src / folder / "__init__.py").write_text(f"WHERE = {folder!r}\n")
    overlay = run.checkout_overlay(src, tmp_path / "overlay")
    import subprocess

    code = (
        "import hybridlint, hybridlint.rules as r, hybridlint.engine as e; "
        "print(hybridlint.WHERE, r.WHERE, e.WHERE, r.__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(overlay), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout.split()
    assert out[:3] == ["hybridlint", "rules", "engine"]
    assert out[3].startswith(str(overlay))


_TRAINING_BLOCKS = """\
from mxnet.gluon import HybridBlock, nn


class Block(HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = nn.Dense(3)

    def hybrid_forward(self, F, x):
        return self.dense(x) * 2
"""


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "variant, train",
    [
        # the same step: equal outputs and gradients
        ("self.dense(x) * 2", "equal"),
        # equal in inference, but the gradient no longer reaches the layer's weights
        ("F.BlockGrad(self.dense(x)) * 2", "differs in gradients"),
        # a Dropout step depends on the seed, and the original is deterministic: judged
        ("F.Dropout(self.dense(x), p=0.5) * 2", "differs"),
    ],
)
def test_the_judge_compares_a_training_step(tmp_path, variant, train):
    mx = pytest.importorskip("mxnet")
    judge = _load("judge")
    original = tmp_path / "original.py"
    original.write_text(_TRAINING_BLOCKS)
    changed = tmp_path / "variant.py"
    changed.write_text(_TRAINING_BLOCKS.replace("self.dense(x) * 2", variant))
    case = {
        "name": "training",
        "block": "Block",
        "original": str(original),
        "variants": {"fix": str(changed)},
        "examples": [{"inputs": [[2, 4]]}],
        "unseen": [],
    }
    result = judge.Judge(mx, case, str(tmp_path)).judge()
    assert result["variants"]["fix"]["hybrid"] == ["equal"]
    assert result["variants"]["fix"]["train"][0].startswith(train), result
    assert result["original_train"] == ["equal"]


@pytest.mark.mxnet
def test_the_judge_does_not_judge_a_random_training_step(tmp_path):
    mx = pytest.importorskip("mxnet")
    judge = _load("judge")
    source = _TRAINING_BLOCKS.replace("self.dense(x) * 2", "F.Dropout(self.dense(x), p=0.5)")
    original = tmp_path / "original.py"
    original.write_text(source)
    changed = tmp_path / "variant.py"
    changed.write_text(source.replace("p=0.5)", "p=0.5) * 1"))
    case = {
        "name": "random",
        "block": "Block",
        "original": str(original),
        "variants": {"fix": str(changed)},
        "examples": [{"inputs": [[8, 4]]}],
        "unseen": [],
    }
    result = judge.Judge(mx, case, str(tmp_path)).judge()
    verdict = result["variants"]["fix"]["train"][0]
    # MXNet 1.9.1 draws Dropout's mask alike eagerly and hybridized under one seed
    assert verdict == "equal", result
    # the reference run says the original's step depends on the seed; a plain one does not
    inputs, example = [mx.nd.ones((8, 4)).asnumpy()], case["examples"][0]
    (tmp_path / "plain.py").write_text(_TRAINING_BLOCKS)
    for path, random in ((original, True), (tmp_path / "plain.py", False)):
        params = str(tmp_path / f"{path.stem}.params")
        one = judge.Judge(mx, {**case, "name": path.stem}, str(tmp_path))
        block, _ = one.run("original", str(path), example, inputs, None, False)
        block.save_parameters(params)
        assert one.train_reference(str(path), example, inputs, params)[3] is random
