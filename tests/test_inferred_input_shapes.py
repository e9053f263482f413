"""Inferred examples give related inputs related shapes (hybridlint/checker/input_shapes.py).

A loss of `(pred, label)` or a layer of `(x, indices)` fails eagerly on every uniform trial
(each input of one rank, all alike), so `--verify` without examples inferred none for it and
proved nothing there (gluoncv2's SelectableDense, gluoncv's segmentation loss, XKT's
SequenceLogisticMaskLoss in benchmarks/e2e). The body says how the shapes relate: a `pick`
index, a `SequenceMask` length, a child's second argument."""

import ast
import textwrap

from hybridlint.checker.inferred import candidates
from hybridlint.checker.input_shapes import dependent_inputs, derive_shapes
from tests.cli_support import invoke


def _shapes(source: str):
    found = candidates(textwrap.dedent(source))
    return {
        name: [tuple(spec.shape for spec in example.inputs) for example in examples]
        for name, examples in found.items()
    }


def _forward(source: str) -> ast.FunctionDef:
    return next(
        node
        for node in ast.walk(ast.parse(textwrap.dedent(source)))
        if isinstance(node, ast.FunctionDef) and node.name == "hybrid_forward"
    )


PICK_LOSS = """
    class Loss(HybridBlock):
        def __init__(self, axis=1, **kwargs):
            super().__init__(**kwargs)
            self._axis = axis

        def hybrid_forward(self, F, pred, label):
            pred = F.log_softmax(pred, axis=self._axis)
            return -F.pick(pred, label, axis=self._axis, keepdims=True)
"""


def test_a_pick_index_has_the_data_shape_without_the_picked_axis():
    trials = _shapes(PICK_LOSS)["Loss"]
    # the related trials come first, the axis read from the constructor's default
    assert trials[:3] == [((4, 6), (4,)), ((2, 3, 8, 8), (2, 8, 8)), ((2, 4, 6), (2, 6))]
    assert ((4, 6), (4, 6)) in trials  # the uniform trials are still tried after


def test_the_constructor_arguments_of_the_trial_choose_the_axis():
    forward = _forward(PICK_LOSS)
    dependent = dependent_inputs(forward, ["pred", "label"])
    assert dependent == {"label": "use"}
    free = {"pred": (2, 3, 8, 8)}
    last = derive_shapes(forward, ["pred", "label"], free, dependent, {"_axis": -1}, False)
    assert last == ((2, 3, 8, 8), (2, 3, 8))


def test_slices_and_sequence_masks_are_followed():
    source = """
        class Masked(HybridBlock):
            def hybrid_forward(self, F, pred, pick_index, label, label_mask):
                pred = F.slice_axis(pred, axis=1, begin=0, end=-1)
                pred = F.pick(pred, pick_index)
                mask = F.squeeze(F.SequenceMask(F.expand_dims(F.ones_like(pred), -1),
                                 sequence_length=label_mask, use_sequence_length=True, axis=1))
                return self.loss(pred, label, mask)
    """
    trials = _shapes(source)["Masked"]
    assert ((2, 4, 6), (2, 3), (2, 3), (2,)) in trials
    assert trials[0] == ((4, 6), (4,), (4,), (4,))


def test_an_input_only_named_like_an_index_is_tried_after_the_uniform_trials():
    source = """
        class Selectable(HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.weight = self.params.get("weight", shape=(3, 6, 6))

            def hybrid_forward(self, F, x, indices, weight):
                w = F.take(weight, indices=indices, axis=0)
                return F.batch_dot(w, x.expand_dims(-1)).squeeze(-1)
    """
    trials = _shapes(source)["Selectable"]
    uniform = trials.index(((4, 6), (4, 6)))
    assert trials.index(((4, 6), (4,))) > uniform


def test_a_block_of_only_varargs_inputs_gets_one():
    source = """
        class Regularization(HybridBlock):
            def hybrid_forward(self, F, *states):
                return F.add_n(*[F.mean(F.square(s)) for s in states])
    """
    assert _shapes(source)["Regularization"][0] == ((4, 6),)


def test_shapes_that_do_not_follow_leave_the_uniform_trials():
    source = """
        class Opaque(HybridBlock):
            def hybrid_forward(self, F, data, label):
                out = F.reshape(data, shape=(0, -1))
                return F.pick(out, label)
    """
    trials = _shapes(source)["Opaque"]
    # `label` relates to `out`, whose shape the walk does not follow: no related trial
    assert trials[0] == ((4, 6), (4, 6))


SELECTABLE = textwrap.dedent(
    """\
    from mxnet.gluon import HybridBlock


    class SelectableDense(HybridBlock):
        def __init__(self, in_channels, out_channels, num_options=3, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get(
                    "weight", shape=(num_options, out_channels, in_channels))
                self.bias = self.params.get("bias", shape=(num_options, out_channels))

        def hybrid_forward(self, F, x, indices, weight, bias):
            weight = F.take(weight, indices=indices, axis=0)
            x = F.batch_dot(weight, x.expand_dims(axis=-1)).squeeze(axis=-1)
            x += F.take(bias, indices=indices, axis=0)
            return x
    """
)


def test_the_cli_proves_a_fix_in_a_layer_of_data_and_indices(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "net.py"
    path.write_text(SELECTABLE)
    result = invoke("--fix", "--verify", "--no-cache", str(path))
    assert "x += " not in path.read_text(), result.output + result.stderr
    said = " ".join(result.stderr.split())
    assert "proven by example SelectableDense#inferred" in said
    assert "with inputs (4, 6), (4,)" in said


def test_a_positional_sequence_length_and_deep_nesting():
    positional = """
        class Masked(HybridBlock):
            def hybrid_forward(self, F, x, length):
                return F.SequenceMask(x, length, use_sequence_length=True, axis=1)
    """
    assert _shapes(positional)["Masked"][0] == ((4, 6), (4,))
    terms = " + ".join(["x"] * 1500)  # deeper than the walk, not than ast.parse
    deep = f"""
        class Deep(HybridBlock):
            def hybrid_forward(self, F, x, label):
                y = {terms}
                return F.pick(y, label)
    """
    assert _shapes(deep)["Deep"]  # no RecursionError: the uniform trials stand
