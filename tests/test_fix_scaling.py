"""Issue 22 item 4: ``--fix`` in time linear in the file. What changed for speed must not change
what is written: the line diff that picks the lines to wrap is exact, and a file of many blocks
is fixed as each block alone is (benchmarks/fix_speed.py measures the time; no test does)."""

import random
import textwrap
from typing import List

from hybridlint.linter import fix_source, lint_source
from hybridlint.rules.base import Rule
from hybridlint.wrap import _changes

BLOCK = textwrap.dedent("""\


    class Unit{index}(HybridBlock):
        def hybrid_forward(self, F, x, y):
            out = self.output_projection_with_a_long_name(x[:, 1:3], y)  # keep
            out += y
            return nd.relu(out)
""")
HEADER = "from mxnet import nd\nfrom mxnet.gluon import HybridBlock\n"


def apply(a, b, opcodes):
    """``a`` edited by the opcodes (everything between them equal), as difflib's are applied."""
    out, last = [], 0
    for tag, i1, i2, j1, j2 in opcodes:
        assert tag in ("replace", "delete", "insert") and i1 >= last
        assert (tag == "insert") == (i1 == i2) and (tag == "delete") == (j1 == j2)
        out += a[last:i1] + b[j1:j2]
        last = i2
    return out + a[last:]


def test_line_changes_rebuild_the_new_text_from_the_old():
    rng = random.Random(2204)
    for _ in range(400):
        # few distinct lines: many repeats, few unique anchors (where diffs go wrong)
        a = [rng.choice("abcdefgh") + "\n" for _ in range(rng.randint(0, 60))]
        b = list(a)
        for _ in range(rng.randint(0, 6)):
            at = rng.randint(0, len(b))
            new = [rng.choice("abcdefghxyz") + "\n" for _ in range(rng.randint(0, 3))]
            b[at : at + rng.randint(0, 3)] = new
        opcodes = _changes(a, b, 0, len(a), 0, len(b))
        assert apply(a, b, opcodes) == b


def test_unchanged_text_has_no_changes_and_unique_lines_anchor_the_rest():
    a = [f"line {i}\n" for i in range(1000)] + ["same\n"] * 50
    assert _changes(a, a, 0, len(a), 0, len(a)) == []
    b = list(a)
    b[10], b[500] = "changed 10\n", "changed 500\n"
    assert _changes(a, b, 0, len(a), 0, len(b)) == [
        ("replace", 10, 11, 10, 11),
        ("replace", 500, 501, 500, 501),
    ]


def test_many_blocks_are_fixed_and_wrapped_as_each_block_alone():
    one = fix_source(HEADER + BLOCK.format(index=0), line_length=60).source
    many = fix_source(HEADER + "".join(BLOCK.format(index=i) for i in range(150)), line_length=60)
    assert len(many.applied) == 300
    cut = one.index("\n\n\nclass") + 1
    body = one[cut:]
    assert many.source == one[:cut] + "".join(body.replace("Unit0", f"Unit{i}") for i in range(150))
    assert "output_projection_with_a_long_name(\n" in many.source  # wrapped, each time


class Probe(Rule):
    """Records each ``probe(...)`` call the analysis visits: which spans it was given."""

    code = "HL998"
    name = "probe"
    seen: List[str] = []

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "probe":
            Probe.seen.append(node.args[0].value.evaluated_value)


def test_many_related_classes_and_called_helpers_are_all_analysed():
    """The spans chosen for analysis (now in linear time): bases and subclasses of a hybrid
    block, transitively, and the module functions it calls, across many classes; unrelated
    classes and functions are not analysed."""
    parts = [HEADER]
    for i in range(200):
        parts.append(
            f"\n\ndef helper{i}(F, x):\n    probe('helper{i}')\n    return x\n"
            f"\n\ndef unused{i}(F, x):\n    probe('unused{i}')\n"
            f"\n\nclass Base{i}(HybridBlock):\n    def step(self, F, x):\n"
            f"        probe('base{i}')\n"
            f"\n\nclass Net{i}(Base{i}):\n    def hybrid_forward(self, F, x):\n"
            f"        return helper{i}(F, self.step(F, x))\n"
            f"\n\nclass Sub{i}(Net{i}):\n    def step(self, F, x):\n        probe('sub{i}')\n"
            f"\n\nclass Other{i}(HybridBlock):\n    def step(self, F, x):\n"
            f"        probe('other{i}')\n"
        )
    Probe.seen = []
    lint_source("".join(parts), "m.py", rules=[Probe])
    assert sorted(Probe.seen) == sorted(
        f"{kind}{i}" for kind in ("helper", "base", "sub") for i in range(200)
    )
