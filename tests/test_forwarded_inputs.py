"""Graph inputs forwarded through `*args` / `**kwargs` (rules/analysis.py, `_bind_call`,
`_forwarded_inputs`): the template method of rl-coach 1.0.1's HeadLoss,

    def hybrid_forward(self, F, x, *args, **kwargs):
        return self._loss_output(self.loss_forward(F, x, *args, **kwargs))

with a subclass overriding `loss_forward(self, F, new, old, target)`. gluon 1.9.1's
`HybridBlock.forward(x, *args)` calls `hybrid_forward(F, x, *args, **params)`: the items of
`*args` are inputs (Symbols once hybridized) and the keywords the block's Parameters, so the
override's parameters are inputs exactly like a hybrid_forward's own (checked with MXNet 1.9.1:
`mx.nd.stack` on them raises hybridized, `F.stack` gives the eager result).
"""

from typing import List, Tuple

import pytest

from hybridlint.linter import lint_source
from hybridlint.rules.analysis import TENSOR, UNKNOWN, Value
from hybridlint.rules.base import Rule
from hybridlint.rules.hl006_eager_namespace_op import EagerNamespaceOp

HEADER = "import mxnet as mx\nfrom mxnet.gluon import HybridBlock\n\n\n"


class Probe(Rule):
    code = "HL998"
    name = "probe"
    seen: List[Tuple[str, Value]] = []

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "probe":
            for arg in node.args:
                Probe.seen.append((self.facts.node.name.value, self.value(arg.value)))


def probe(source: str) -> List[Tuple[str, Value]]:
    Probe.seen = []
    lint_source(source, rules=[Probe])
    return list(Probe.seen)


def template(call: str, override: str, signature: str = "F, x, *args, **kwargs") -> str:
    """A base block whose hybrid_forward makes `call` and a subclass overriding the helper
    with the parameters and body of `override` (its first line is the parameter list)."""
    params, *body = override.splitlines()
    lines = "".join(f"        {line}\n" for line in body)
    return (
        HEADER + "class Base(HybridBlock):\n"
        f"    def hybrid_forward(self, {signature}):\n        return {call}\n\n"
        "    def loss_forward(self, F, x, *args, **kwargs):\n        raise NotImplementedError\n"
        "\n\nclass Loss(Base):\n"
        f"    def loss_forward(self, {params}):\n{lines}"
    )


STACK = "F, new, old, target\nv = (new - target).square()\nreturn mx.nd.stack(v, old)"


def hl006_lines(source: str) -> List[int]:
    return [f.line for f in lint_source(source, rules=[EagerNamespaceOp])]


@pytest.mark.parametrize(
    "call, reported",
    [
        ("self.loss_forward(F, x, *args, **kwargs)", True),
        ("self.loss_forward(F, x, *args)", True),
        ("self.loss_forward(F, *args, x)", False),  # where x goes is not known: nothing bound
    ],
    ids=["args-kwargs", "args", "positional-after-star"],
)
def test_the_override_of_a_forwarding_template_method_is_analysed(call, reported):
    source = template(call, STACK)
    assert hl006_lines(source) == ([source.count("\n")] if reported else [])


def test_the_explicit_inputs_form_reports_the_same_line():
    explicit = template("self.loss_forward(F, x, y, z)", STACK, signature="F, x, y, z")
    forwarded = template("self.loss_forward(F, x, *args, **kwargs)", STACK)
    assert hl006_lines(explicit) == hl006_lines(forwarded) == [explicit.count("\n")]


def kinds(source: str) -> List[Tuple[str, str, bool]]:
    return [(name, value.kind, value.assumed) for name, value in probe(source)]


def test_forwarded_parameters_follow_the_input_policy():
    override = "F, new, old, hidden, scale=2.0\nprobe(new, old, hidden, scale)\nreturn new"
    seen = kinds(template("self.loss_forward(F, x, *args)", override))
    # new is the named x; old an input taken by position; a list-like name and a default unknown
    assert seen == [
        ("loss_forward", TENSOR, True),
        ("loss_forward", TENSOR, True),
        ("loss_forward", UNKNOWN, False),
        ("loss_forward", UNKNOWN, False),
    ]


def test_a_forwarded_parameter_only_counted_and_indexed_is_a_list():
    override = "F, x, feats\nprobe(feats[0])\nreturn feats[len(feats) - 1]"
    # an item of a list of inputs may itself be a list: unknown (of an array: a tensor)
    assert kinds(template("self.loss_forward(F, x, *args)", override)) == [
        ("loss_forward", UNKNOWN, False)
    ]
    # an operator's argument: certain (use-based evidence, as for a hybrid_forward's input)
    array = override.replace("return feats[len(feats) - 1]", "return F.relu(feats)")
    assert kinds(template("self.loss_forward(F, x, *args)", array)) == [
        ("loss_forward", TENSOR, False)
    ]


def test_forwarded_kwargs_are_the_blocks_parameters():
    source = (
        HEADER + "class Base(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
        "        self.w = self.params.get('w', shape=(3,))\n\n"
        "    def hybrid_forward(self, F, x, *args, **kwargs):\n"
        "        return self.loss_forward(F, x, *args, **kwargs)\n\n\n"
        "class Loss(Base):\n    def loss_forward(self, F, x, y, w):\n        probe(y, w)\n"
        "        return x\n"
    )
    values = [value for _, value in probe(source)]
    assert [(v.kind, v.assumed) for v in values] == [(TENSOR, True), (TENSOR, False)]
    assert values[1].shape == (3,) and values[1].shape_reason == "parameter"


@pytest.mark.parametrize(
    "call, before",
    [
        ("self.loss_forward(F, x, *args)", "args = args[1:]\n"),  # rebound: other values
        ("self.loss_forward(F, x, *self.extra)", ""),  # not the inputs
        ("self.loss_forward(F, x, *list(args))", ""),  # not a plain forward
    ],
    ids=["rebound", "attribute", "call"],
)
def test_other_starred_values_bind_nothing(call, before):
    override = "F, new, old, target\nprobe(old)\nreturn new"
    source = template(call, override)
    if before:
        source = source.replace("        return self", f"        {before}        return self")
    assert kinds(source) == [("loss_forward", UNKNOWN, False)]


def test_forwarding_goes_on_through_a_helper_and_stops_at_a_mixed_call():
    source = (
        HEADER + "class Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x, *args):\n        return self.mid(F, x, *args)\n\n"
        "    def mid(self, F, x, *rest):\n        return self.last(F, x, *rest)\n\n"
        "    def last(self, F, x, y):\n        probe(y)\n        return x\n"
    )
    assert kinds(source) == [("last", TENSOR, True)]
    mixed = source.replace(
        "return self.mid(F, x, *args)", "return self.mid(F, x, *args) + self.mid(F, x, 3)"
    )
    assert kinds(mixed) == [("last", UNKNOWN, False)]


MIXUP = (
    HEADER + "class Mix(HybridBlock):\n"
    "    def hybrid_forward(self, F, *inputs):\n"
    "        if self.aux:\n            return self._aux(F, *inputs)\n"
    "        return self._mix(F, *inputs)\n\n"
    "    def _aux(self, F, p1, p2, label, lam):\n"
    "        return self._mix(F, p1, label, lam) + self._mix(F, p2, label, lam)\n\n"
    "    def _mix(self, F, pred, label, lam):\n"
    "        loss = -F.pick(pred, label, axis=1, keepdims=True)\n"
    "        return lam * loss + (1 - lam) * loss\n"
)


def test_a_forwarded_input_may_be_a_number_so_broadcast_fixes_on_it_are_unsafe():
    """gluoncv's MixSoftmaxCrossEntropyLoss: eagerly gluon 1.9.1 passes a float `lam` on as it
    is, and `F.broadcast_mul(0.3, loss)` raises where `0.3 * loss` worked; `_mix` is reached
    by forwarding and by `_aux` passing its forwarded inputs on by name."""
    findings = [f for f in lint_source(MIXUP) if f.code == "HL007"]
    assert [(f.line, f.fix) for f in findings] == [(16, "unsafe"), (16, "unsafe")]
    # one call passing an array is not enough: the forwarding call may still pass a number
    explicit = MIXUP.replace("self._mix(F, p1, label, lam)", "self._mix(F, p1, label, F.relu(p1))")
    assert [f.fix for f in lint_source(explicit) if f.code == "HL007"] == ["unsafe", "unsafe"]
    # no call forwarding an input: a helper's parameter as before (safe)
    alone = explicit.replace("return self._mix(F, *inputs)", "return inputs[0]")
    alone = alone.replace("self._mix(F, p2, label, lam)", "self._mix(F, p2, label, F.relu(p2))")
    assert [f.fix for f in lint_source(alone) if f.code == "HL007"] == ["safe", "safe"]


def test_an_input_passed_on_by_name_may_be_a_number_so_broadcast_fixes_on_it_are_unsafe():
    """The same mixup with named inputs: hybrid_forward passes its input `lam` to the helper by
    name. Eagerly `net(pred, l1, l2, 0.3)` works (gluon passes the float on), and the broadcast
    fix would raise, so the fix is unsafe; a helper argument the caller computed with an op
    (`F.relu(pred)`) is an array, and the fix stays safe."""
    named = (
        HEADER + "class Mix(HybridBlock):\n"
        "    def hybrid_forward(self, F, pred, label, lam):\n"
        "        return self._mix(F, pred, label, lam)\n\n"
        "    def _mix(self, F, pred, label, lam):\n"
        "        loss = -F.pick(pred, label, axis=1, keepdims=True)\n"
        "        return lam * loss + (1 - lam) * loss\n"
    )
    assert [f.fix for f in lint_source(named) if f.code == "HL007"] == ["unsafe", "unsafe"]
    computed = named.replace(
        "self._mix(F, pred, label, lam)", "self._mix(F, pred, label, F.relu(lam))"
    )
    assert [f.fix for f in lint_source(computed) if f.code == "HL007"] == ["safe", "safe"]
