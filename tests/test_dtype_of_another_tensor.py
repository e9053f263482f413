"""`a.astype(b.dtype)` on a Symbol: why HL001 reports it without a fix (issue 20, gluoncv's
SoftmaxCrossEntropyLoss: `F.SoftmaxOutput(pred, label.astype(pred.dtype), ...)`).

A Symbol has no dtype, and MXNet 1.9.1 has no operator that casts one array to another's
dtype: `Cast`/`amp_cast` take the dtype as a Python value, the `*_like` ops copy values and
dtype of the same array, `_identity_with_attr_like_rhs` needs equal dtypes, and
`amp_multicast` casts to the widest float, leaving integers alone. Nor does the consumer make
the cast unneeded: hybridized, SoftmaxOutput requires the label's dtype to be the data's. The
candidates are checked on real MXNet 1.9.1 below, so the decision is revisited if one of these
facts changes.
"""

import numpy as np
import pytest

from fix_support import lint_source

LOSS = """\
class Net(HybridBlock):
    def hybrid_forward(self, F, pred, label):
        return F.SoftmaxOutput(pred, label.astype(pred.dtype), multi_output=True)
"""


def test_astype_of_another_tensors_dtype_is_reported_without_a_fix():
    findings = [f for f in lint_source(LOSS) if f.code == "HL001"]
    assert [(f.line, f.fix) for f in findings] == [(3, None)]
    assert "dtype" in findings[0].message


@pytest.mark.mxnet
def test_mxnet_amp_multicast_is_not_a_cast_to_the_other_dtype():
    """int32 stays int32 beside float32; float64 stays float64 beside float32."""
    mx = pytest.importorskip("mxnet")
    for a, b in (("int32", "float32"), ("float64", "float32"), ("float32", "float16")):
        out = mx.nd.amp_multicast(
            mx.nd.array([1, 2], dtype=a), mx.nd.array([1, 2], dtype=b), num_outputs=2
        )[0]
        assert np.dtype(out.dtype) != np.dtype(b), (a, b)


@pytest.mark.mxnet
def test_mxnet_identity_like_rhs_needs_equal_dtypes():
    mx = pytest.importorskip("mxnet")
    with pytest.raises(mx.base.MXNetError):
        mx.nd._internal._identity_with_attr_like_rhs(
            mx.nd.array([1, 2], dtype="int32"), mx.nd.array([1, 2], dtype="float32")
        ).wait_to_read()


@pytest.mark.mxnet
def test_mxnet_softmax_output_needs_the_label_in_the_data_dtype_when_hybridized():
    mx = pytest.importorskip("mxnet")
    out = mx.sym.SoftmaxOutput(mx.sym.var("d"), mx.sym.var("l"), multi_output=True)
    with pytest.raises(mx.base.MXNetError, match="uniform type"):
        out.infer_type(d="float32", l="int32")
