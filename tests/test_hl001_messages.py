"""HL001's report-only messages name what stops a rewrite (issue 20: "the tool says exactly
which line stops it and why")."""

from hybridlint.linter import fix_source, lint_source

HEAD = "class Net(HybridBlock):\n    def __init__(self, scale):\n        super().__init__()\n"
HEAD += "        self.scale = scale\n\n    def hybrid_forward(self, F, x):\n"


def hl001(body: str):
    return [f for f in lint_source(HEAD + body) if f.code == "HL001"]


def test_a_shape_in_num_outputs_says_it_is_an_operator_attribute():
    (finding,) = hl001("        return F.split(x, axis=2, num_outputs=x.shape[2] // self.scale)\n")
    assert finding.line == 7 and finding.fix is None
    assert "sets `num_outputs=`" in finding.message
    assert "no shape-free form exists" in finding.message
    assert "reshape codes" not in finding.message  # the generic idioms would mislead here


def test_a_shape_elsewhere_keeps_the_idioms():
    (finding,) = hl001("        return x.shape\n")
    assert "reshape codes" in finding.message and "operator attribute" not in finding.message


def test_the_code_0_also_in_a_fixed_namespace_reshape():
    """gluonts SNDense's helper has no F and calls nd.reshape: the code 0 is as exact there
    (the namespace is HL006's, which needs an F; the rule examples cannot show a fix that is
    needed but not enough, hence this test)."""
    source = (
        "from mxnet import nd\n\n\ndef helper(t):\n    return nd.reshape(t, [t.shape[0], -1])\n"
        "\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return helper(x)\n"
    )
    (finding,) = [f for f in lint_source(source) if f.code == "HL001"]
    assert finding.fix == "safe"
    fixed = fix_source(source, select=["HL001"]).source
    assert "return nd.reshape(t, [0, -1])" in fixed
