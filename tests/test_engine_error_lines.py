"""Every error a hybridized block raises names the user's source line: shape and type
inference (normalisation blocks included, also under deferred initialisation), constant
folding, and a kernel failing while the compiled plan runs (engine/executor.py). The line is
in the message ("created at file:line: text") and on the exception (`source_line`), which is
what the checker reads."""

import inspect

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.gluon import nn

HERE = __file__


def _line_of(marker: str) -> int:
    """The line number of the statement carrying `# <marker>` in this file."""
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return next(i + 1 for i, text in enumerate(lines) if text.rstrip().endswith("# " + marker))


class _Norm(mx.gluon.HybridBlock):
    def __init__(self, norm, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(4, 1)
            self.norm = norm

    def hybrid_forward(self, F, x):
        y = self.conv(x)
        return self.norm(y)  # norm-call


class _Potrf(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.linalg.potrf(x - 10)  # runtime-failure


class _Folded(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        bad = F.linalg.potrf(F.zeros((2, 2)) - 1)  # folded-failure
        return F.broadcast_add(x, bad)


class _Types(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.elemwise_add(x, F.cast(x, "float16"))  # type-failure


def _check(err, marker):
    line = _line_of(marker)
    assert "created at {}:{}".format(HERE, line) in str(err)
    filename, lineno, text = err.source_line
    assert (filename, lineno) == (HERE, line) and ("# " + marker) in text


@pytest.mark.parametrize(
    "norm",
    [
        lambda: nn.BatchNorm(in_channels=3),
        lambda: nn.InstanceNorm(in_channels=3),
        lambda: nn.LayerNorm(axis=1, in_channels=3),
        lambda: nn.GroupNorm(num_groups=3),
    ],
    ids=["BatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm"],
)
def test_normalisation_shape_mismatch_names_the_line(norm):
    net = _Norm(norm())
    net.initialize()
    net.hybridize()
    with pytest.raises((ValueError, mx.base.MXNetError)) as info:
        net(mx.nd.ones((1, 2, 5, 5)))
    _check(info.value, "norm-call")


def test_kernel_failure_while_the_plan_runs_names_the_line():
    net = _Potrf()
    net.hybridize()
    good = np.eye(2, dtype=np.float32)[None] * 20 + 10  # x - 10 is positive definite
    np.testing.assert_allclose(
        net(mx.nd.array(good)).asnumpy(), np.linalg.cholesky(good - 10), rtol=1e-5
    )
    with pytest.raises(mx.base.MXNetError) as info:
        net(mx.nd.array(np.eye(2, dtype=np.float32)[None]))  # the same plan, bad values
    assert "Error in operator " in str(info.value) and "positive definite" in str(info.value)
    _check(info.value, "runtime-failure")


def test_constant_folding_failure_names_the_line():
    net = _Folded()
    net.hybridize()
    with pytest.raises(mx.base.MXNetError) as info:
        net(mx.nd.ones((2, 2)))
    _check(info.value, "folded-failure")


def test_type_mismatch_names_the_line():
    net = _Types()
    net.hybridize()
    with pytest.raises(mx.base.MXNetError) as info:
        net(mx.nd.ones((2, 2)))
    _check(info.value, "type-failure")


def test_graph_kernels_failing_outside_user_code_keep_their_message():
    """A CachedOp built from a hand-made Symbol: the node is named, no source line invented."""
    with mx.name.NameManager():
        sym = mx.sym.linalg.potrf(mx.sym.var("a"))
    op = mx.nd.CachedOp(sym)
    with pytest.raises(mx.base.MXNetError, match="Error in operator potrf0"):
        op(mx.nd.array(-np.eye(2, dtype=np.float32)))


class _BadParam(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.FullyConnected(x, num_hidden=3, no_bias=True, foo=1)  # trace-failure


class _NdOnly(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x.asnumpy()  # symbol-failure


def test_op_call_refused_while_tracing_names_the_line():
    net = _BadParam()
    net.hybridize()
    with pytest.raises(mx.base.MXNetError, match="unknown parameter 'foo'") as info:
        net(mx.nd.ones((2, 4)))
    _check(info.value, "trace-failure")


def test_symbol_only_errors_keep_mxnets_text_and_carry_the_line():
    net = _NdOnly()
    net.hybridize()
    with pytest.raises(mx.base.NotImplementedForSymbol) as info:
        net(mx.nd.ones((2, 4)))
    assert str(info.value) == (
        "Function asnumpy is not implemented for Symbol and only available in NDArray."
    )
    filename, lineno, text = info.value.source_line
    assert (filename, lineno) == (HERE, _line_of("symbol-failure"))
