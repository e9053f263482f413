"""`--fix --verify` without examples (checker/expression.py, verify._expression_level): what a
user who configured no examples gets. Measured on the realworld corpus, the check rejected
correct fixes for reasons their code never meets; each case here is one of those shapes:

- a loop index or an axis (a Python number in the code) fed an array;
- fixes that share an expression checked one by one (`(x - m) / s`: neither alone makes it
  hybridize), and a fix in an expression whose other hazard has no fix;
- a broadcasting shape set judging a fix that writes no broadcast op;
- a parameter of declared shape `(1, 1, units)` fed another shape.
"""

import textwrap

import pytest

from hybridlint.checker import CheckerSession, verify_fixes
from hybridlint.checker.verify import FixIdentity
from hybridlint.ftypes import Finding
from hybridlint.name_kinds import number_names
from tests.checker_support import backend_params


@pytest.fixture(scope="module")
def session():
    with CheckerSession(timeout=60) as s:
        yield s


def block(body: str, args: str = "x") -> str:
    return (
        "from mxnet import gluon\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def __init__(self, axis=1, **kwargs):\n"
        "        super().__init__(**kwargs)\n        self.axis = axis\n\n"
        f"    def hybrid_forward(self, F, {args}):\n" + textwrap.indent(body, " " * 8) + "\n"
    )


def verify(text: str, backend: str, session, unsafe: bool = False):
    return verify_fixes(
        text, "m.py", [], unsafe=unsafe, backend=backend, session=session, infer=False
    )


def test_the_analysis_names_the_python_numbers_of_a_line():
    text = block(
        "a = self.axis\ny = x\nfor b in range(2):\n    y = y + F.sum(x, axis=a) * b\nreturn y"
    )
    line = text.splitlines().index("            y = y + F.sum(x, axis=a) * b") + 1
    assert number_names(text, "m.py", [line]) == {line: {"a", "b"}}
    assert number_names(text, "m.py", []) == {}


@pytest.mark.parametrize("backend", backend_params())
def test_a_loop_index_is_fed_a_number(backend, session):
    # gluoncv2's heatmap tune step: `pts[b, k, 0]` with b, k from range(); fed arrays, the
    # rewrite's F.slice(begin=(b, k, 0)) refused them and the fix was "rejected"
    text = block("y = x\nfor b in range(2):\n    y = y * F.sum(x[b, 1, :])\nreturn y")
    outcome = verify(text, backend, session)
    # and the (1,) sum times y broadcasts: safe, y is the block's only input (an array)
    assert sorted(f.code for f in outcome.applied) == ["HL003", "HL007"], outcome.rejected
    assert "F.slice(x, begin=(b, 1), end=(b + 1, 2))" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_list_of_rows_is_fed_a_list(backend, session):
    # `x[rows, :]` with `rows = [2, -1]`: the safe rewrite iterates the rows, and the check
    # bound them to the number 1 (`'int' object is not iterable`): --verify rejected a fix
    # plain --fix applies
    text = block("rows = [2, -1]\nreturn x[rows, :]")
    line = text.splitlines().index("        return x[rows, :]") + 1
    assert number_names(text, "m.py", [line]) == {}
    outcome = verify(text, backend, session)
    assert [f.code for f in outcome.applied] == ["HL003"], outcome.rejected
    assert "for i in rows], dim=0)" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_fixes_sharing_an_expression_are_proven_together(backend, session):
    # gluoncv2 jasper's normalisation: the `-` nested in the `/`; alone, each fix leaves the
    # other's hazard, and the inner one could not even be applied alone
    text = block(
        "m = F.mean(x, axis=2)\ns = F.mean(x * x, axis=2)\n"
        "return (x - m.expand_dims(axis=2)) / s.expand_dims(axis=2)"
    )
    outcome = verify(text, backend, session)
    assert sorted(f.code for f in outcome.applied) == ["HL007", "HL007"], outcome.rejected
    assert (
        "F.broadcast_div(F.broadcast_sub(x, m.expand_dims(axis=2)), s.expand_dims(axis=2))"
        in outcome.source
    )
    notes = [p.detail for p in outcome.proofs]
    assert all("together with HL007 at" in note for note in notes), notes


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_beside_a_hazard_without_one_is_not_called_wrong(backend, session):
    # gluoncv2 ntsnet: the varargs reshape's fix cannot make `.reshape(x.shape[0], -1)`
    # hybridize while `x.shape` is in it; the check said "fix rejected" (a wrong fix)
    # (another array's dim: HL001 has no fix there). The fix is safe: applied as --fix
    # applies it, said to be unverified, with why.
    text = block("return F.relu(y).reshape(x.shape[0], -1)", args="x, y")
    outcome = verify(text, backend, session)
    assert not outcome.rejected
    (note,) = [p for p in outcome.proofs if p.finding.code == "HL011"]
    assert note.verdict == "unchecked" and note.applied
    assert "applied unverified" in note.detail
    assert "the expression also holds HL001 at" in note.detail
    assert "reshape((x.shape[0], -1))" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_set_of_another_rank_that_neither_hybridizes_does_not_judge_the_fix(backend, session):
    # gluonnlp's CacheCell: `cache_attn.broadcast_to(valid_next_word.shape)` with cache_attn
    # a (n, 1) reshape; on a rank-3 valid_next_word NDArray's method adds the leading axis,
    # the Symbol operator of the fix cannot, and the original fails hybridized (`.shape`)
    # too: that set leaves the fix unjudged, the sets of one rank prove it
    text = block("a = F.relu(y).reshape((-1, 1))\nreturn a.broadcast_to(x.shape) * x", args="x, y")
    outcome = verify(text, backend, session)
    assert not outcome.rejected, outcome.rejected
    assert "a.broadcast_like(x)" in outcome.source
    (note,) = [p for p in outcome.proofs if p.finding.code == "HL001"]
    assert note.verdict == "expression-level", note.detail


@pytest.mark.parametrize("backend", backend_params())
def test_a_broadcasting_shape_set_does_not_judge_a_fix_without_broadcast_ops(backend, session):
    # mxnet 1.5.1's CosineEmbeddingLoss: `F.sum(x * y, axis=axis).reshape(-1, 1)`; on x of
    # shape (1, 3, 4) and y of (2, 3, 4) the `*` fails hybridized with or without the fix
    text = block("return F.sum(x * y, axis=1).reshape(-1, 1)", args="x, y")
    outcome = verify(text, backend, session)
    assert [f.code for f in outcome.applied] == ["HL011"], outcome.rejected
    assert "reshape((-1, 1))" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_wrong_broadcast_rewrite_is_still_rejected_on_broadcasting_shapes(backend, session):
    from hybridlint.linter import fix_source

    def fixer(text, path="<string>", **options):  # drops the broadcast: elementwise `-`
        result = fix_source(text, path, **options)
        wrong = result.source.replace("F.broadcast_sub(x, m)", "F.elemwise_sub(x, m)")
        return type(result)(wrong, result.applied, result.remaining)

    text = block("m = F.mean(x, axis=0, keepdims=True)\nreturn x - m")
    outcome = verify_fixes(
        text, "m.py", [], backend=backend, session=session, fixer=fixer, infer=False
    )
    (rejected,) = outcome.rejected
    assert rejected.report.status != "cannot_run" and "x - m" in outcome.source


def _finding(code: str, line: int, col: int, end_col: int) -> Finding:
    return Finding(code, "n", "m", line, col, line, end_col, "safe", "m.py")


def test_nested_fixes_of_one_rule_that_start_at_one_column_are_two_fixes():
    # `y * g + b`: the `+` and the `*` both start at `y`
    outer, inner = _finding("HL007", 3, 17, 40), _finding("HL007", 3, 17, 26)
    key = FixIdentity([outer, inner])
    assert key(outer) != key(inner)
    assert key(_finding("HL003", 4, 1, 5)) == key(_finding("HL003", 4, 9, 12))


@pytest.mark.parametrize("backend", backend_params())
def test_a_namespace_fix_is_checked_on_its_call_and_self_numbers_are_numbers(backend, session):
    # gluonts's MinMax scaler: `nd.where(...)` -> `F.where(...)` changes only `nd`, which
    # computes nothing alone ("no tensor operand"); `self.axis` (a constructor number) was
    # "uses self: needs example inputs"
    text = "from mxnet import nd\n" + block(
        "c = nd.where(x > 0, x, x * 2)\nreturn nd.prod(c, self.axis, keepdims=True)"
    )
    outcome = verify(text, backend, session)
    assert sorted(f.code for f in outcome.applied) == ["HL006", "HL006"], outcome.rejected
    assert "F.where(x > 0, x, x * 2)" in outcome.source
    assert "F.prod(c, self.axis, keepdims=True)" in outcome.source
    note = next(p.detail for p in outcome.proofs if "prod" in p.detail)
    assert "'nd.prod(c, self.axis, keepdims=True)'" in note  # the user's text, not a stand-in


def test_a_refused_fix_below_lines_the_fixes_joined_keeps_its_reason(monkeypatch):
    # a proven fix joins a call written over three lines into one: the refused fix below it
    # is on another line of the fixed text, and must still say why (and get no [*])
    from hybridlint import checker_bridge

    # (the refused fix: HL001's deletion of an assert, unsafe, which no check can run)
    text = "from mxnet import nd\n" + block(
        "t = nd.broadcast_to(\n    x.sum(axis=0, keepdims=True), shape=x.shape\n)\n"
        "assert t.shape[0] > 0\nreturn F.relu(t)"
    )
    with CheckerSession(timeout=60) as own:
        monkeypatch.setattr(checker_bridge, "shared_session", lambda: own, raising=False)
        verified = checker_bridge.verify_file(text, "m.py", ("HL0",), [], unsafe=True, infer=False)
    assert "F.broadcast_like(x.sum(axis=0, keepdims=True), x)" in verified.source
    (left,) = [f for f in verified.findings if f.code == "HL001"]
    assert isinstance(left, checker_bridge.UnprovenFinding)
    assert "(fix not applied: " in left.message and not left.fixable(False)


@pytest.mark.parametrize("backend", backend_params())
def test_an_assignment_is_checked_as_a_statement_and_other_statements_are_not(backend, session):
    # MXNet's PoissonNLLLoss: `loss += stirling_factor` -> `loss = loss + stirling_factor` is
    # run as the statement, its name returned; removing an assert is no assignment
    text = block(
        "assert x.shape[0] > 0\nloss = F.relu(x)\nloss += x * 2\nreturn loss",
    )
    outcome = verify(text, backend, session, unsafe=True)
    assert "loss = loss + (x * 2)" in outcome.source, outcome.rejected
    assert any("HL004" == p.finding.code and "proven" in p.detail for p in outcome.proofs)
    (kept_assert,) = [r for r in outcome.rejected if r.finding.code == "HL001"]
    assert "not a change inside one expression or assignment" in kept_assert.reason
    assert "assert x.shape[0] > 0" in outcome.source
    # an unsafe fix no check can run is left out (a safe one would be applied unverified)
    assert kept_assert.finding.fix == "unsafe"
    assert [p.verdict for p in outcome.proofs if p.finding.code == "HL001"] == ["not-run"]


@pytest.mark.parametrize("backend", backend_params())
def test_an_in_place_update_another_name_sees_is_not_proven_by_its_statement(backend, session):
    # `keep` sees what `z /= 2` writes: returning z alone cannot show that `z = z / 2` leaves
    # keep as it was (HL004 calls that fix unsafe)
    text = block("z = F.relu(x)\nkeep = z\nz /= 2\nreturn z + keep")
    outcome = verify(text, backend, session, unsafe=True)
    (held,) = [r for r in outcome.rejected if r.finding.code == "HL004"]
    assert "another reference to the array may see" in held.reason
    assert "z /= 2" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_of_a_methods_arguments_is_checked_on_its_receiver_alone(backend, session):
    # gluonnlp's CacheCell: `encoder_hs[-1].reshape(-3, -2)`, encoder_hs a list of arrays;
    # fed one generated array, `encoder_hs[-1]` failed hybridized and the fix was "rejected"
    text = block("hs = self.cell(x)\nreturn hs[-1].reshape(-3, -2)")
    outcome = verify(text, backend, session)
    assert [f.code for f in outcome.applied] == ["HL011"], outcome.rejected
    assert "hs[-1].reshape((-3, -2))" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_in_the_constructor_is_not_checked_as_an_array_expression(backend, session):
    # rl-coach's ClippedPPOLossDiscrete: HL012's `init.Constant([c])` -> `Constant(np.array([c]))`
    # was fed an array for the number c and "rejected"; __init__ never runs in a graph
    text = (
        "import mxnet as mx\nimport numpy as np\nfrom mxnet import gluon\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def __init__(self, coefficient=0.5, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.k = self.params.get('k', shape=(1,), init=mx.init.Constant([coefficient,]))\n\n"
        "    def hybrid_forward(self, F, x, k):\n        return F.broadcast_mul(x, k)\n"
    )
    outcome = verify(text, backend, session)
    assert not outcome.rejected
    (note,) = outcome.proofs
    assert note.finding.code == "HL012" and note.verdict == "unchecked"
    assert "not a change inside one expression or assignment of a hybrid function" in note.detail
    assert "mx.init.Constant(np.array([coefficient,]))" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_that_changes_eager_values_beside_another_hazard_is_rejected(backend, session):
    # the expression's other hazard (HL001, no fix) can make the fixed expression fail
    # hybridized, never make its eager values differ from the original's: that verdict is
    # the fix's own, and a safe fix it proves wrong is not applied unverified
    from hybridlint.linter import fix_source

    def fixer(text, path="<string>", **options):  # HL011's rewrite, doubled: a wrong fix
        result = fix_source(text, path, **options)
        wrong = result.source.replace("reshape((x.shape[0], -1))", "reshape((x.shape[0], -1)) * 2")
        return type(result)(wrong, result.applied, result.remaining, result.initial)

    text = block("return F.relu(y).reshape(x.shape[0], -1)", args="x, y")
    outcome = verify_fixes(
        text, "m.py", [], backend=backend, session=session, fixer=fixer, infer=False
    )
    (rejected,) = [r for r in outcome.rejected if r.finding.code == "HL011"]
    assert rejected.report.status == "mismatch" and rejected.report.stage == "fixed eager"
    assert [p.verdict for p in outcome.proofs if p.finding.code == "HL011"] == ["rejected"]
    assert "* 2" not in outcome.source and "reshape(x.shape[0], -1)" in outcome.source


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_no_example_ran_that_breaks_the_proven_set_is_counted_as_rejected(backend, session):
    # HL011's fix in a branch no example takes, checked alone (applied unverified), joins
    # the union that is run once more; made wrong here without the other fix, the union
    # fails: the fix must be in `rejected` (what the summary counts and what marks its
    # finding's fix as not applied), not only in the proofs
    from hybridlint.checker import examples_from_config
    from hybridlint.linter import fix_source

    def fixer(text, path="<string>", *, accept=None, **options):
        result = fix_source(text, path, accept=accept, **options)
        codes = {f.code for f in result.applied}
        if "HL011" in codes and "HL001" not in codes:  # wrong only without the assert's fix
            wrong = result.source.replace("return F.relu(x)", "return F.relu(x) * 2")
            return type(result)(wrong, result.applied, result.remaining, result.initial)
        return result

    text = block(
        "if self.axis == 5:\n    assert x.shape[0] > 0\n    return x.reshape(2, -1)\n"
        "return F.relu(x)"
    )
    examples = examples_from_config({"m.py::Net": {"inputs": [[2, 3]]}})["m.py"]
    outcome = verify_fixes(text, "m.py", examples, backend=backend, session=session, fixer=fixer)
    assert outcome.source == text
    assert sorted(r.finding.code for r in outcome.rejected) == ["HL001", "HL011"]
    (held,) = [r for r in outcome.rejected if r.finding.code == "HL011"]
    assert "no longer pass the examples" in held.reason and held.report.status == "mismatch"
    assert [p.verdict for p in outcome.proofs if p.finding.code == "HL011"] == ["rejected"]


def test_a_known_shape_is_fed_with_its_unknown_dims_from_the_base():
    from hybridlint.checker.expression import shape_sets

    sets = list(shape_sets(["token", "x"], {"token": (1, 1, None)}))
    assert sets[0][0] == {"token": (1, 1, 4), "x": (2, 3, 4)}
    assert all(fed["token"][:2] == (1, 1) for fed, _ in sets)  # never broadcast-varied
    assert any(broadcasting and fed["x"] != (2, 3, 4) for fed, broadcasting in sets)


@pytest.mark.parametrize("backend", backend_params())
def test_a_parameter_of_declared_shape_is_fed_that_shape(backend, session):
    # testdata/rewrite_corpus/vit_cls_token_tile.py: tiling the (1, 1, C) class token to the
    # batch is broadcast_like along axis 0, exact for that token; fed (2, 3, 4) the check
    # called the safe fix wrong, and --verify left out what --fix applies
    text = (
        "from mxnet import gluon, init\n\n\nclass Token(gluon.HybridBlock):\n"
        "    def __init__(self, units, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        self.cls_token = self.params.get('cls_token', shape=(1, 1, units))\n\n"
        "    def hybrid_forward(self, F, x, cls_token):\n"
        "        tokens = F.tile(cls_token, reps=(x.shape[0], 1, 1))\n"
        "        return F.concat(tokens, x, dim=1)\n"
    )
    outcome = verify(text, backend, session)
    assert "F.broadcast_like(cls_token, x, lhs_axes=(0,), rhs_axes=(0,))" in outcome.source
    (proof,) = outcome.proofs
    assert proof.verdict == "expression-level", proof.detail


@pytest.mark.parametrize("backend", backend_params())
def test_an_expression_written_over_lines_is_checked_as_written(backend, session):
    # a blind test's ClusterNorm: `a * m \<newline> + b * w` made "load original failed:
    # SyntaxError" (the lines were joined into one, the backslash left inside it); a comment
    # at a line's end would have swallowed the rest the same way
    text = block(
        "y = F.sum(x, axis=1, keepdims=True)\n"
        "z = 0.9 * x \\\n    + 0.1 * y  # running mean\nreturn z"
    )
    outcome = verify(text, backend, session)
    assert [f.code for f in outcome.applied] == ["HL007"], outcome.rejected
    assert [p.verdict for p in outcome.proofs] == ["expression-level"], outcome.proofs
