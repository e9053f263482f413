"""A review of `--verify`'s inferred examples and the new resize/array rewrites found these;
each test fails on the code before its fix."""

import textwrap

from hybridlint.checker import CheckerSession, verify_fixes
from hybridlint.checker.inferred import infer_examples
from hybridlint.checker.report import EquivalenceReport
from hybridlint.linter import fix_source, lint_source

_HEAD = textwrap.dedent(
    """\
    from mxnet.gluon import HybridBlock, nn


    class Head(HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.conv = nn.Conv2D(3, 1, in_channels=3)

        def hybrid_forward(self, F, x, size):
            x = self.conv(x)
            return F.contrib.BilinearResize2D(x, height=size[0], width=size[1]){comment}


    class Net(HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.pool = nn.MaxPool2D(2)
            self.head = Head()

        def hybrid_forward(self, F, x):
            size = x.shape[2:]
            y = self.pool(x)
            return self.head(y, size)
    """
)


def test_a_noqa_on_the_childs_resize_keeps_both_halves_of_the_rewrite_out():
    # the parent's half alone (`size = x`) broke the block even eagerly, and HL100 then
    # removed the noqa the child's half no longer used
    source = _HEAD.format(comment="  # noqa: HL001")
    fixed = fix_source(source, "a.py", unsafe=True)
    assert fixed.source == source
    assert [(f.code, f.fix) for f in lint_source(source, "a.py")] == [("HL001", None)]
    both = fix_source(_HEAD.format(comment=""), "a.py", unsafe=True).source
    assert "size = x\n" in both and "isinstance(size, (list, tuple))" in both


def test_the_tuple_branch_stays_a_sequence_after_a_shape_read_in_it():
    # a `.shape` earlier in the branch had the analysis read `size[0]` in the statement's
    # env: a safe HL003 slice rewrite would break the callers that pass a tuple
    source = textwrap.dedent(
        """\
        from mxnet.gluon import HybridBlock


        class Head(HybridBlock):
            def hybrid_forward(self, F, x, size):
                return (F.contrib.BilinearResize2D(x.shape, height=size[0], width=size[1])
                        if isinstance(size, (list, tuple))
                        else F.contrib.BilinearResize2D(x, like=size, mode='like'))


        class Net(HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.head = Head()

            def hybrid_forward(self, F, x):
                return self.head(F.relu(x), x)
        """
    )
    assert [f.code for f in lint_source(source, "a.py")] == ["HL001"]


def test_hl005_reads_the_annotation_only_of_an_argument_kept_as_given():
    source = textwrap.dedent(
        """\
        from typing import Callable
        import mxnet as mx
        from mxnet.gluon import HybridBlock


        class Act(HybridBlock):
            def __init__(self, act: Callable[[mx.nd.NDArray], mx.nd.NDArray] = mx.nd.relu, **kwargs):
                super().__init__(**kwargs)
                self.act = act

            def hybrid_forward(self, F, x):
                return self.act(x)


        class Scale(HybridBlock):
            def __init__(self, scale: mx.nd.NDArray = mx.nd.ones((1,)) * 2, **kwargs):
                super().__init__(**kwargs)
                scale = float(scale.asscalar())
                self.scale = scale

            def hybrid_forward(self, F, x):
                return x * self.scale
        """
    )
    assert [f for f in lint_source(source, "a.py") if f.code == "HL005"] == []


def test_with_inferred_examples_a_safe_fix_beside_an_unsafe_one_no_example_ran_is_applied():
    # B cannot be built without arguments (`length`: no stated type, not a count's name):
    # its line holds a safe HL001 fix and an unsafe
    # HL005 one; the unsafe one waits for an example, the safe one is checked alone, as in a
    # file without examples (it was left out with the unsafe one: worse than --fix)
    source = textwrap.dedent(
        """\
        import mxnet as mx
        from mxnet.gluon import HybridBlock


        class A(HybridBlock):
            def hybrid_forward(self, F, x):
                return x * F.ones(x.shape)


        class B(HybridBlock):
            def __init__(self, spec, **kwargs):  # no name or use to guess it from
                super().__init__(**kwargs)
                self.mean = mx.nd.array([0.5] * spec)

            def hybrid_forward(self, F, x):
                return F.broadcast_add(F.zeros(x.shape), self.mean)
        """
    )
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(source, "a.py", [], session=session)
    assert outcome.labels == ["A#inferred"]
    verdicts = {(p.finding.line, p.finding.code): p.verdict for p in outcome.proofs}
    assert verdicts[(16, "HL001")] == "expression-level"
    assert verdicts[(16, "HL005")] == "not-run"
    assert "F.zeros(x.shape)" not in outcome.source


def test_a_candidate_that_times_out_ends_its_blocks_search():
    source = "class Slow(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n"
    batches = []

    def run(batch):
        batches.append(len(batch))
        return [EquivalenceReport("cannot_run", stage="timeout") for _ in batch]

    assert infer_examples(source, [], run) == [] and batches == [1]
