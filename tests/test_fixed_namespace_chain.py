"""Blind round 16 (yolov4's YoloLayer): an `nd.*` call on what `nd.concat(*parts)` of a list
of tensors returns is reported by the first lint, not only after --fix rewrote the concat."""

from hybridlint.linter import fix_source, lint_source

SOURCE = (
    "from mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass B(nn.HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n        parts = [x, x]\n"
    "        y = nd.concat(*parts, dim=1)\n        return nd.sigmoid(y)\n"
)


def test_an_eager_op_on_the_concat_of_a_starred_tensor_list_is_reported_at_once():
    found = [(f.line, f.code, f.fix) for f in lint_source(SOURCE)]
    assert found == [(8, "HL006", "safe"), (9, "HL006", "safe")]
    fixed = fix_source(SOURCE).source
    assert "F.concat(*parts, dim=1)" in fixed and "F.sigmoid(y)" in fixed


def test_a_starred_list_of_unknown_items_stays_unknown():
    source = SOURCE.replace("parts = [x, x]", "parts = self.names")
    assert [f.line for f in lint_source(source) if f.code == "HL006"] == []
