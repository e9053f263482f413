"""--verify with no examples also infers a configuration that runs the fixed lines.

An inferred example builds the block as the code says (no arguments, a literal call), so a
fix inside a configuration branch the defaults never take (accel-brain-base's DRCNLoss:
`if self.__grad_clip_threshold > 0:` around an `.asscalar()` test, threshold 0 by default)
ran on no example and stayed unapplied. The checker now also tries the block built with the
arguments that flip those tests (hybridlint/checker/inferred.py `_configuration_variant`),
as a second inferred example, `Net#inferred2`."""

import ast
import textwrap

from hybridlint.checker.inferred import (
    VARIANT,
    _block,
    _configuration_variant,
    candidates,
    infer_examples,
)
from hybridlint.checker.report import EquivalenceReport
from hybridlint.checker.verify import _doubting, example_labels
from tests.cli_support import invoke

CLIPPED = textwrap.dedent(
    """\
    from mxnet import gluon


    class Clipped(gluon.HybridBlock):
        def __init__(self, threshold=0.0, average=False, scale=None, **kwargs):
            super().__init__(**kwargs)
            self.__threshold = threshold
            self._average = average
            self._scale = scale

        def hybrid_forward(self, F, x):
            if self.__threshold > 0:
                norm = F.norm(x)
                if norm.asscalar() > self.__threshold:
                    x = x * self.__threshold / norm
            if not self._average:
                y = x
            else:
                y = F.mean(x, axis=1)
            if self._scale:
                y = y * 2
            return y
    """
)
IN_CLIP, IN_AVERAGE, IN_SCALE = 14, 19, 21


def _clipped():
    tree = ast.parse(CLIPPED)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    return _block(classes["Clipped"], classes, [])


def _variant(lines):
    return _configuration_variant(_clipped(), {}, set(lines))


def test_a_number_compared_with_a_constant_is_moved_past_it():
    assert _variant([IN_CLIP]) == {"threshold": 1.0}  # the default's type: a float


def test_a_bool_is_negated_and_an_else_branch_needs_the_test_false():
    assert _variant([IN_AVERAGE]) == {"average": True}


def test_lines_the_defaults_run_need_no_variant():
    assert _variant([IN_AVERAGE - 2]) is None  # `y = x`: the defaults take that branch


def test_a_default_of_another_type_is_not_guessed():
    assert _variant([IN_SCALE]) is None  # scale=None: no value of its type is known


def test_several_branches_change_together():
    assert _variant([IN_CLIP, IN_AVERAGE]) == {"threshold": 1.0, "average": True}


def test_the_variant_is_a_candidate_of_its_own():
    found = candidates(CLIPPED, [IN_CLIP])
    assert list(found) == ["Clipped", "Clipped" + VARIANT]
    assert found["Clipped"][0].kwargs == {}
    assert found["Clipped" + VARIANT][0].kwargs == {"threshold": 1.0}


def test_both_examples_are_kept_and_labelled_apart():
    def run(batch):
        return [EquivalenceReport("equal") for _ in batch]

    found = infer_examples(CLIPPED, [IN_CLIP], run)
    assert [f.example.kwargs for f in found] == [{}, {"threshold": 1.0}]
    assert found[1].described.endswith(
        "(constructor arguments changed so that the fixed lines run)"
    )
    assert example_labels([f.example for f in found]) == ["Clipped#inferred", "Clipped#inferred2"]


class _Rejected:
    def __init__(self, target):
        self.finding = type("F", (), {"fix": "safe", "code": "HL007", "line": 3})()
        self.report = EquivalenceReport("different", target=target)
        self.reason = "outputs differ"


def test_a_refused_safe_fix_doubts_the_variant_first():
    found = infer_examples(CLIPPED, [IN_CLIP], lambda b: [EquivalenceReport("equal") for _ in b])
    outcome = type("O", (), {"rejected": [_Rejected("net.py::Clipped")]})()
    ((doubted, _),) = _doubting(outcome, found, "net.py")
    assert doubted is found[1]  # the first example is judged on its own again


def test_verify_proves_the_fix_inside_the_configuration_branch(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "net.py"
    path.write_text(CLIPPED)
    result = invoke("--fix", "--verify", str(path))
    assert "asscalar" not in path.read_text(), result.output + result.stderr
    assert "proven by example Clipped#inferred2" in result.stderr


# ---- a block holding no fix: the variant explores the branches the defaults leave ----------
BINARIZED = textwrap.dedent(
    """\
    import math
    import mxnet as mx
    from mxnet.gluon import nn


    class Binarize(mx.autograd.Function):
        def forward(self, x):
            return math.sqrt(2.0 / (x.shape[1] * x.shape[2] * x.shape[3])) * x.sign()

        def backward(self, dy):
            return dy


    class Conv1bit(nn.Conv2D):
        def __init__(self, in_channels, out_channels, binarized=False, **kwargs):
            super().__init__(in_channels=in_channels, channels=out_channels, kernel_size=1, **kwargs)
            self.binarized = binarized

        def hybrid_forward(self, F, x, weight, bias=None):
            weight_1bit = Binarize()(weight) if self.binarized else weight
            return super().hybrid_forward(F, x, weight=weight_1bit, bias=bias)
    """
)  # gluoncv2's wrn1bit_cifar.Conv2D1bit, reduced: no rule sees into the autograd.Function


def test_without_fixes_every_configuration_test_is_flipped():
    assert _configuration_variant(_clipped(), {}, None) == {"threshold": 1.0, "average": True}
    found = candidates(BINARIZED)
    assert found["Conv1bit" + VARIANT][0].kwargs["binarized"] is True
    described = infer_examples(BINARIZED, [], lambda b: [EquivalenceReport("equal") for _ in b])
    assert described[1].described.endswith(
        "(constructor arguments changed so that the branches the first example leaves run)"
    )


def test_a_gluon_layers_parameters_are_not_inputs():
    """`class Conv1bit(nn.Conv2D)`: hybrid_forward receives the layer's weight and bias by
    name (LAYER_PARAMETERS, generated from MXNet); only `x` is an input."""
    assert {len(example.inputs) for example in candidates(BINARIZED)["Conv1bit"]} == {1}


def test_verify_without_examples_reports_what_only_the_other_configuration_runs(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "net.py"
    path.write_text(BINARIZED)
    result = invoke("--fix", "--verify", str(path))
    assert result.exit_code == 1, result.output + result.stderr
    assert path.read_text() == BINARIZED  # nothing to fix: the run is what finds it
    assert "net.py:8:9: HL903 Conv1bit#inferred2 still fails" in result.output


def test_an_eager_only_mode_its_author_wrote_is_not_explored():
    """gluoncv2's `fixed_size=False` falls back to `x.shape` for variable-size eager use: the
    rules see that branch and judge it (labelled `context`); exploring is for what they do not."""
    source = textwrap.dedent(
        """\
        from mxnet import gluon


        class Head(gluon.HybridBlock):
            def __init__(self, fixed_size=True, scaled=False, **kwargs):
                super().__init__(**kwargs)
                self.fixed_size = fixed_size
                self.scaled = scaled

            def hybrid_forward(self, F, x):
                if self.fixed_size:
                    y = F.contrib.BilinearResize2D(x, height=8, width=8)
                else:
                    y = F.contrib.BilinearResize2D(x, height=x.shape[2] * 2, width=x.shape[3] * 2)
                return y * 2 if self.scaled else y
        """
    )
    assert candidates(source)["Head" + VARIANT][0].kwargs == {"scaled": True}
