"""`ClassFacts.container_units`: a container child whose every added layer is a flattening
Dense of one width gives that width to each layer a loop meets (HL007's soft tree)."""

import textwrap

import libcst as cst

from hybridlint.rules.analysis import analyze


def widths(init_body: str) -> dict:
    source = textwrap.dedent(
        """
        class Net(HybridBlock):
            def __init__(self, classes):
                super().__init__()
        {body}
            def hybrid_forward(self, F, x):
                return x
        """
    ).format(body=textwrap.indent(textwrap.dedent(init_body), " " * 8))
    module = cst.parse_module(source)
    classes = [n for n in module.body if isinstance(n, cst.ClassDef)]
    facts = analyze(classes, []).classes["Net"]
    return {attr: facts.item_units_of(attr) for attr in facts.container_units}


def test_one_width_per_container_or_none():
    found = widths(
        """
        self.one = nn.HybridSequential()
        self.wide = nn.HybridSequential()
        self.mixed = nn.HybridSequential()
        self.other = nn.HybridSequential()
        self.kept = nn.HybridSequential()
        for _ in range(3):
            self.one.add(nn.Dense(1))
            self.wide.add(nn.Dense(classes))
            self.mixed.add(nn.Dense(1))
            self.other.add(nn.Dense(1), nn.Activation('relu'))
            self.kept.add(nn.Dense(4, flatten=False))
        self.mixed.add(nn.Dense(10))
        """
    )
    assert found == {"one": 1, "wide": "units:classes"}


def test_a_layer_of_one_width_gives_a_certain_array_of_that_width():
    from tests.test_analysis import net, probe

    init = "self.gates = nn.HybridSequential()\nfor _ in range(3):\n    self.gates.add(nn.Dense(1))"
    body = (
        "for g in self.gates:\n    probe(g(x))\nprobe(self.gates[0](x))\nprobe(self.gates[1:](x))"
    )
    seen = probe(net(body, init=init))
    certain = [value for value, _, _ in seen[:2]]
    assert all(v.kind == "tensor" and not v.assumed for v in certain)
    assert all(v.form is not None and v.form[1][1][1] == 1 for v in certain)  # rank 2: (B, 1)
    assert seen[2][0].assumed and seen[2][0].form is None  # a slice runs several layers
