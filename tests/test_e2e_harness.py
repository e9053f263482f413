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


@pytest.mark.parametrize(
    "folder", sorted(p.name for p in E2E.iterdir() if p.is_dir() and any(p.glob("*.toml")))
)
def test_every_committed_case_file_loads_and_names_known_packages(folder):
    loaded = cases.load_cases(E2E / folder)
    pinned = {p.name for p in run.E2E_PACKAGES} | {
        p.name for p in run.fetch.__globals__["PACKAGES"]
    }
    assert loaded, "no cases"
    assert {c.package for c in loaded} <= pinned
    assert {p for c in loaded for p in cases.extra_packages(c)} <= pinned
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


def test_an_extra_may_copy_from_another_pinned_package(tmp_path):
    (tmp_path / "base" / "lib").mkdir(parents=True)
    (tmp_path / "base" / "lib" / "core.py").write_text("class Base:\n    pass\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    extra = [{"package": "base-2.0", "source": "lib/core.py", "copy": ["Base"]}]
    case = _case(extra=extra)
    assert cases.extra_packages(case) == ["base-2.0"]
    text = cases.copied_source(case, str(tmp_path), {"base-2.0": str(tmp_path / "base")})
    assert text.index("class Base:") < text.index("def helper(F, x):")
    with pytest.raises(cases.CaseError, match="extra package 'base-2.0' is not fetched"):
        cases.copied_source(case, str(tmp_path))
    with pytest.raises(cases.CaseError, match="each extra"):
        _case(extra=[{"source": "lib/core.py", "copy": ["Base"], "module": "x"}])


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


def test_a_claim_about_another_block_of_the_file_is_no_over_claim():
    # --verify inferred an example for a child (LipSwish) and proved its fix: the judged
    # block still failing is reported, not over-claimed; a claim naming it is
    verdicts = {"eager": ["equal", "equal"], "hybrid": ["error: E", "error: E"]}
    source = "class Block:\n    pass\n"
    for claimed, verdict in ((("LipSwish",), "reported"), (("Block", "LipSwish"), "over-claimed")):
        tool = run.ToolRun(1, findings=[(1, "HL903", "m")], claims=True, claimed=claimed)
        assert run.classify(_case(), tool, verdicts, source).verdict == verdict


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
        # hybridized outputs that change from run to run (MXNet's uninitialized memory):
        # that input judges nothing; the others do, and with none left it is said so
        ("fails", ["equal", "equal"], ["equal", "random: differs: 7"], 0, [], True, "fixed"),
        ("fails", ["equal", "equal"], ["random: d", "random: d"], 0, [], True, "random"),
        ("fails", ["equal", "equal"], ["differs: 2", "random: d"], 0, [], True, "over-claimed"),
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
    "kind, train, train_hybrid, original_train, verdict",
    [
        ("fails", ["equal", "equal"], ["equal", "equal"], [], "fixed"),
        # the rewrite's own eager step differs: broken
        ("fails", ["equal", "differs in gradients: 1"], ["equal", "equal"], [], "broken"),
        ("fails", ["equal", "error: E"], ["equal", "equal"], [], "broken"),
        # random draws the judge cannot match, or an original that cannot train: not judged
        ("fails", ["random: differs: 1", "reference: E"], ["equal", "equal"], [], "fixed"),
        # only hybridized: MXNet's own difference for a failing block (no baseline)
        ("fails", ["equal", "equal"], ["equal", "differs: 1"], [], "fixed"),
        # a working block: its original hybridized is the baseline
        ("works", ["equal", "equal"], ["equal", "differs: 1"], ["equal", "equal"], "broken"),
        ("works", ["equal", "equal"], ["equal", "differs: 1"], ["equal", "differs: x"], "ok"),
    ],
)
def test_a_fix_equal_in_inference_must_also_train_alike(
    kind, train, train_hybrid, original_train, verdict
):
    tool = run.ToolRun(0, findings=[], claims=False)
    verdicts = {
        "eager": ["equal", "equal"],
        "hybrid": ["equal", "equal"],
        "train": train,
        "train_hybrid": train_hybrid,
    }
    outcome = run.classify(
        _case(kind=kind), tool, verdicts, "class Block:\n    pass\n", original_train
    )
    assert outcome.verdict == verdict, outcome
    if verdict == "broken":
        assert outcome.detail.startswith("training step")
    assert bool(run.hybrid_training_note(verdicts)) == (train_hybrid[1] != "equal")


@pytest.mark.parametrize(
    "kind, exported, original_exported, verdict",
    [
        ("fails", ["equal", "equal"], [], "fixed"),
        # what users deploy: export + SymbolBlock.imports must give the original's outputs
        ("fails", ["equal", "error: MXNetError: x"], [], "broken"),
        ("works", ["equal", "differs: y"], ["equal", "equal"], "broken"),
        # a working block whose original does not export alike: MXNet's, not the rewrite's
        ("works", ["equal", "differs: y"], ["equal", "differs: y"], "ok"),
    ],
)
def test_a_fix_must_also_export(kind, exported, original_exported, verdict):
    tool = run.ToolRun(0, findings=[], claims=False)
    verdicts = {"eager": ["equal", "equal"], "hybrid": ["equal", "equal"], "exported": exported}
    outcome = run.classify(
        _case(kind=kind), tool, verdicts, "class Block:\n    pass\n", (), original_exported
    )
    assert outcome.verdict == verdict, outcome
    if verdict == "broken":
        assert outcome.detail.startswith("exported")


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


def _train(tmp_path, original_source, variant_source, shape, skip=()):
    """The judge's training events for one case ({step: verdict}), after its inference pass
    saved the reference parameters: judge.py run as run.py runs it, in processes of its own
    (MXNet state other tests leave in a worker cannot reach it)."""
    import json
    import subprocess

    pytest.importorskip("mxnet")
    original, changed = tmp_path / "original.py", tmp_path / "variant.py"
    original.write_text(original_source)
    changed.write_text(variant_source)
    job = tmp_path / "job.json"
    case = {
        "name": tmp_path.name,
        "block": "Block",
        "original": str(original),
        "variants": {"fix": str(changed)},
        "examples": [{"inputs": [shape]}],
        "unseen": [],
    }
    job.write_text(json.dumps({"cases": [case]}))
    command = [sys.executable, str(E2E / "judge.py"), str(job), str(tmp_path)]

    def events(extra):
        done = subprocess.run(command + extra, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    result = events([])[-1]
    assert result["variants"]["fix"]["hybrid"] == ["equal"], result
    # the inference pass also exported the hybridized block and read it back
    assert result["variants"]["fix"]["exported"] == ["equal"], result
    assert result["original_exported"] == ["equal"], result
    steps = events(["--training"] + (["--skip", ",".join(skip)] if skip else []))
    return {e["done"]: e["verdict"] for e in steps if "done" in e}, steps


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
    source = _TRAINING_BLOCKS.replace("self.dense(x) * 2", variant)
    verdicts, _ = _train(tmp_path, _TRAINING_BLOCKS, source, [2, 4])
    assert verdicts["0:original:hybrid"] == "equal"
    assert verdicts["0:fix:eager"].startswith(train), verdicts
    assert verdicts["0:fix:hybrid"].startswith(train), verdicts


@pytest.mark.mxnet
def test_the_judge_tells_a_random_training_step(tmp_path):
    source = _TRAINING_BLOCKS.replace("self.dense(x) * 2", "F.Dropout(self.dense(x), p=0.5)")
    # MXNet 1.9.1 draws Dropout's mask alike eagerly and hybridized under one seed
    verdicts, _ = _train(tmp_path, source, source.replace("p=0.5)", "p=0.5) * 1"), [8, 4])
    assert verdicts["0:fix:hybrid"] == "equal", verdicts
    # a rewrite that differs in a step the original draws at random is not held against it
    verdicts, _ = _train(tmp_path, source, source.replace("p=0.5)", "p=0.25)"), [8, 4])
    assert verdicts["0:fix:eager"].startswith("random: differs"), verdicts


@pytest.mark.mxnet
def test_a_skipped_step_is_not_run_and_a_skipped_reference_marks_its_input(tmp_path):
    verdicts, events = _train(
        tmp_path, _TRAINING_BLOCKS, _TRAINING_BLOCKS, [2, 4], skip={"0:fix:eager"}
    )
    assert "0:fix:eager" not in verdicts and verdicts["0:fix:hybrid"] == "equal"
    verdicts, _ = _train(tmp_path, _TRAINING_BLOCKS, _TRAINING_BLOCKS, [2, 4], {"0:reference"})
    assert verdicts["0:fix:hybrid"].startswith("reference: crashed"), verdicts


@pytest.mark.parametrize(
    "dies, said", [("sys.exit(-11)", "exit"), ("time.sleep(30)", "timed out after 2 s")]
)
def test_a_step_that_kills_the_judge_is_marked_and_the_rest_still_run(
    tmp_path, monkeypatch, dies, said
):
    """train_verdicts runs the judge again past a step in which the process died or hung."""
    monkeypatch.setattr(run, "JUDGE_TIMEOUT", 2)
    script = tmp_path / "fake_judge.py"
    script.write_text(
        "import json, sys, time\n"
        "skip = sys.argv[sys.argv.index('--skip') + 1].split(',') if '--skip' in sys.argv else []\n"
        "for key in ['0:reference', '0:original:hybrid', '0:fix:eager', '0:fix:hybrid']:\n"
        "    if key in skip:\n"
        "        continue\n"
        "    print(json.dumps({'start': key}), flush=True)\n"
        "    if key == '0:fix:eager':\n"
        f"        {dies}\n"
        "    print(json.dumps({'done': key, 'verdict': 'equal'}), flush=True)\n"
    )
    trained = run.train_verdicts([sys.executable, str(script)], 1, ["fix"])
    assert trained["original_train"] == ["equal"]
    died = trained["variants"]["fix"]["train"][0]
    assert died.startswith("error: the judge died") and said in died, died
    assert trained["variants"]["fix"]["train_hybrid"] == ["equal"]


def test_a_gradient_the_original_does_not_compute_alike_twice_is_not_compared():
    """MXNet leaves some gradients unwritten (an Embedding's index input): the buffer's old
    contents differ from run to run, so the reference runs twice and leaves those out."""
    np = pytest.importorskip("numpy")
    judge = _load("judge")
    runs = iter(
        [
            # reference, the same again (input 0's gradient is garbage), another seed
            ([np.ones(2)], [np.full(2, 7.0), np.ones(3), np.ones(1)], []),
            ([np.ones(2)], [np.full(2, -1e30), np.ones(3), np.ones(1)], []),
            ([np.ones(2)], [np.full(2, 5.0), np.ones(3), np.ones(1)], []),
            # a rewrite, twice: its garbage differs; input 2's gradient is garbage in its own
            # two runs only (the reference's happened to agree): neither is compared
            ([np.ones(2)], [np.full(2, 3e34), np.ones(3), np.full(1, 9.0)], []),
            ([np.ones(2)], [np.full(2, 3e34), np.ones(3), np.full(1, 8.0)], []),
            # another rewrite whose real gradient differs
            ([np.ones(2)], [np.full(2, 3e34), np.zeros(3), np.ones(1)], []),
            ([np.ones(2)], [np.full(2, 3e34), np.zeros(3), np.ones(1)], []),
        ]
    )

    class Stub(judge.Judge):
        def train(self, *args):
            return next(runs)

    stub = Stub(None, {"name": "stub"}, "")
    reference = stub.train_reference("original.py", {}, [], "")
    assert reference[4] == {0} and reference[3] is False
    assert stub.train_verdict("fix", "fix.py", {}, [], "", False, reference) == "equal"
    verdict = stub.train_verdict("fix", "fix.py", {}, [], "", False, reference)
    assert verdict.startswith("differs in gradients"), verdict


def test_a_working_block_the_tool_left_unchanged_is_ok_whatever_the_judge_saw():
    tool = run.ToolRun(0, findings=[], claims=False)
    verdicts = {
        "eager": ["equal", "equal"],
        "hybrid": ["equal", "equal"],
        "train": ["equal", "equal"],
        "train_hybrid": ["equal", "differs in gradients: 3.69e+19"],
    }
    source = "class Block:\n    pass\n"
    judged = run.classify(_case(kind="works"), tool, verdicts, source, ["equal", "equal"])
    assert judged.verdict == "broken"
    assert run.classify(
        _case(kind="works"), tool, verdicts, source, ["equal", "equal"], unchanged=True
    ) == run.Outcome("ok", "unchanged")
    # a failing block the tool did not touch is judged as ever (it still fails)
    failing = {"eager": ["equal", "equal"], "hybrid": ["error: E", "error: E"]}
    assert run.classify(_case(), tool, failing, source, unchanged=True).verdict == "silent"


def test_the_bare_modes_run_the_same_commands_as_their_example_modes():
    # fix-bare is verify-bare's floor: plain --fix on the same example-less project (the rules
    # read configured examples, so `fix` with them knows more than `verify-bare` can)
    assert run.tool_command("fix-bare", "mx") == run.tool_command("fix", "mx")
    assert run.tool_command("verify-bare", "mx") == run.tool_command("verify", "mx")
    assert {"fix-bare", "verify-bare"} <= set(run.MODES)
