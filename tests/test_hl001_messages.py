"""HL001's report-only messages name what stops a rewrite (issue 20: "the tool says exactly
which line stops it and why")."""

import pytest

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


def test_a_shape_deciding_a_python_branch_says_to_decide_it_when_built():
    """Blind round 16's BottleneckV2: `if self.channels != x.shape[1]:` needs the count before
    the graph exists; the idioms (reshape codes, like-ops) cannot express a branch."""
    (finding,) = hl001(
        "        if self.scale != x.shape[1]:\n            x = x * 2\n        return x\n"
    )
    assert finding.fix is None and "decides a Python `if`" in finding.message
    assert "constructor argument" in finding.message and "reshape codes" not in finding.message
    (finding,) = hl001("        while x.shape[1] > 2:\n            x = x * 2\n        return x\n")
    assert "decides a Python `while`" in finding.message
    (finding,) = hl001("        if self.scale:\n            return x.shape\n        return x\n")
    assert "reshape codes" in finding.message  # in the body, not the test: the idioms stand


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


GROUP_NORM = (
    "        y = x.expand_dims(0).reshape((0, 0, self.scale, -1)).reshape((1, -3, -1))\n"
    "        batch = x.shape[0]\n"
    "        return F.BatchNorm(y, F.ones(batch * self.scale), F.zeros(batch * self.scale),\n"
    "                           F.zeros(batch * self.scale), F.ones(batch * self.scale))\n"
)


def test_a_shape_sizing_batchnorm_statistics_says_why_nothing_helps():
    (finding,) = hl001(GROUP_NORM)
    assert finding.line == 8 and finding.fix is None
    assert "`moving_mean` of a BatchNorm" in finding.message


@pytest.mark.mxnet
def test_batchnorm_statistics_made_by_like_forms_fail_hybridized():
    """The reason the message gives, on MXNet 1.9.1: even `*_like` forms of the right shape
    cannot be a BatchNorm's moving statistics."""
    mx = pytest.importorskip("mxnet")

    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            y = x.reshape((1, -3, -1))
            stat = F.sum(y, axis=(0, 2))
            ones, zeros = F.ones_like(stat), F.zeros_like(stat)
            return F.BatchNorm(y, ones, zeros, zeros, ones)

    net = Net()
    net(mx.nd.ones((2, 3, 4))).asnumpy()  # eagerly fine
    net.hybridize()
    with pytest.raises(mx.base.MXNetError, match="Mutation target can only be Variable"):
        net(mx.nd.ones((2, 3, 4))).asnumpy()


def test_a_shape_passed_to_a_helper_says_it_arrives_as_a_number():
    body = "        n = x.shape[0]\n        return self._labels(F, n - 1)\n"
    (finding,) = hl001(body)
    assert finding.line == 7 and "passed to `self._labels(...)`" in finding.message


def test_a_tensor_built_from_a_shape_is_not_a_number_passed():
    """Only the number itself (or integer arithmetic of it) is what the helper receives."""
    body = "        return self._labels(F, F.ones(x.shape[0] % 2))\n"
    (finding,) = hl001(body)
    assert finding.fix is None and "passed to" not in finding.message


def test_a_tensor_bound_beside_the_shape_is_not_the_shape_passed_on():
    """`y = resize(y, height=z.shape[2])` binds a tensor: a later `self.head(y)` does not
    receive the shape's number (CRAFT's detector was told it did)."""
    body = (
        "        y = F.relu(x)\n"
        "        z = F.relu(x)\n"
        "        y = F.contrib.BilinearResize2D(y, height=z.shape[2] * 2, width=3)\n"
        "        return self.scale(y)\n"
    )
    (finding,) = hl001(body)
    assert "passed to `self.scale(...)`" not in finding.message
    bound = hl001("        n = x.shape[0] * 2\n        return self.scale(n)\n")
    assert [f.line for f in bound] == [7] and "passed to `self.scale(...)`" in bound[0].message


def test_hl004_says_broadcast_when_the_shapes_differ():
    """Blind round 10 (an STGCN loss): `mask /= F.mean(mask)` was told to become
    `mask = mask / ...`, which fails hybridized too ((B, ..) / (1,)); HL007 rewrites the `/`
    of that fix in the next pass, and the advice names the broadcast op."""
    source = HEAD + "        m = F.relu(x)\n        m /= F.mean(m)\n        return m\n"
    (finding,) = [f for f in lint_source(source) if f.code == "HL004"]
    assert "`m = F.broadcast_div(m, ...)`" in finding.message
    fixed = fix_source(source).source
    assert "m = F.broadcast_div(m, F.mean(m))" in fixed
    plain = HEAD + "        m = F.relu(x)\n        m += x\n        return m\n"
    (finding,) = [f for f in lint_source(plain) if f.code == "HL004"]
    assert "`m = m + ...`" in finding.message


def test_hl002_a_count_compared_with_a_tensor_is_no_control_flow():
    """Blind round 10 (a DBNet balanced loss): `rank < negative_count` with the count read by
    `.asscalar()` was called "Python control flow"; it is an elementwise comparison."""
    source = HEAD + (
        "        n = int(F.sum(x).asscalar())\n"
        "        rank = x.argsort(axis=1).argsort(axis=1)\n"
        "        return F.where(rank < n, x, F.zeros_like(x))\n"
    )
    (finding,) = [f for f in lint_source(source) if f.code == "HL002"]
    assert "it meets a tensor in `rank < n`" in finding.message
    assert "control flow" not in finding.message
    branch = (
        HEAD
        + "        n = int(F.sum(x).asscalar())\n        if n > 0:\n            x = x * 2\n        return x\n"
    )
    (finding,) = [f for f in lint_source(branch) if f.code == "HL002"]
    assert "control flow" in finding.message


def test_a_shape_in_an_assert_says_the_fix_deletes_it():
    """Blind round 11 (Gluon-Box's IOULoss): the finding offered "shape-free ops" while its fix
    deletes the assert; the message says what the fix does and why it is unsafe."""
    findings = hl001("        assert x.shape[-1] == 4\n        return F.relu(x)\n")
    assert [f.fix for f in findings] == ["unsafe"]
    assert "the fix deletes the assert" in findings[0].message
    assert "reshape codes" not in findings[0].message


@pytest.mark.parametrize(
    "body, says",
    [
        # blind round 15's CondConv: the loop count is the graph's structure
        (
            "        return sum([x * i for i in range(x.shape[1])])\n",
            "here it sizes `range(...)`",
        ),
        ("        print(x.shape)\n        return x\n", "here it is printed"),
        ("        if len(x.shape) == 4:\n            return x\n        return x * 2\n", "the rank"),
    ],
)
def test_a_shape_given_to_a_python_builtin_says_what_it_is_for(body, says):
    (finding,) = hl001(body)
    assert says in finding.message
    assert "does not follow a shape into another function" not in finding.message


def test_an_empty_tuple_in_hybrid_code_is_linted_not_an_internal_error():
    """MXFusion's Beta.draw_samples_impl binds `out_shape = ()`: the shape-flow analysis took the
    parentheses off the value it reads, which LibCST refuses for an empty tuple, and the whole
    file ended in "internal error while linting"."""
    (finding,) = hl001("        out_shape = ()\n        return F.zeros(x.shape)\n")
    assert finding.line == 8
    assert lint_source(HEAD + "        out_shape = ()\n        return F.zeros(out_shape)\n") == []
