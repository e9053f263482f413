"""HL007's fix safety where an operand may be a Python number (review of issue 20/21 work).

Eagerly gluon 1.9.1 passes a number input on as it is (`net(x, 2.0)` works) and NDArray
arithmetic takes numbers, while `F.broadcast_mul(2.0, x)` raises: a broadcast fix on an
operand that may be a number changes what working eager code does, so it is unsafe. An input
is proven an array only by a use that runs on every path before (or within the statement of)
the arithmetic, or in a simple statement after it that every working call runs with the input
still bound, and a name is judged by the assignments that may reach the read, so
`x = x * m` reads the input and `l = lam` is the input under another name.
"""

import pytest

from fix_support import backend_module
from hybridlint.linter import fix_source, lint_source

HEADER = "import mxnet as mx\nfrom mxnet.gluon import HybridBlock, nn\n\n\n"  # bound per backend when run

# a layer call on one branch proves nothing on the other
BRANCH = HEADER + (
    "class Net(HybridBlock):\n"
    "    def __init__(self, project=False):\n"
    "        super().__init__()\n"
    "        self.project = project\n"
    "        self.act = nn.Activation('sigmoid')\n\n"
    "    def hybrid_forward(self, F, x, s):\n"
    "        if self.project:\n"
    "            return self.act(s)\n"
    "        return x.sum(axis=1, keepdims=True) * s\n"
)
# the same use before the arithmetic on every path proves it
BEFORE = BRANCH.replace(
    "        if self.project:\n            return self.act(s)\n",
    "        t = self.act(s)\n",
)
# an input rebound by the very statement that reads it
REBOUND = HEADER + (
    "class Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x, m):\n"
    "        m = F.relu(m)\n"
    "        x = x * m.expand_dims(-1)\n"
    "        return x\n"
)
# an alias of an input forwarded into a helper
ALIAS = HEADER + (
    "class Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x, *args):\n"
    "        return self._f(F, x, *args)\n\n"
    "    def _f(self, F, x, lam):\n"
    "        l = lam\n"
    "        return x.sum(axis=1, keepdims=True) * l\n"
)
# a name assigned an array on every path before the read is an array
ASSIGNED = ALIAS.replace("l = lam\n", "l = F.relu(lam)\n")


def _one(body: str) -> str:
    """A block whose hybrid_forward(self, F, x, s) runs `body` (lines at 8 spaces)."""
    return HEADER + (
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, s):\n"
        + "".join(f"        {line}\n" for line in body.splitlines())
    )


KEEP = "x.sum(axis=1, keepdims=True)"
# second review: each of these took `s` for an array; each works eagerly with s = 2.0
REVIEW2 = {
    # a one-line body
    "one_line": HEADER
    + f"class Net(HybridBlock):\n    def hybrid_forward(self, F, x, s): return {KEEP} * s\n",
    # functions that take numbers, and attributes, prove nothing
    "maximum": _one(f"t = F.maximum(x, s)\nreturn {KEEP} * s"),
    "clip_keyword": _one(f"t = F.clip(x, a_min=0.0, a_max=s)\nreturn {KEEP} * s"),
    # names bound by unpacking a display or by a comprehension over one
    "unpacking": _one(f"a, b = s, x\nreturn {KEEP} * a"),
    "comprehension": _one(f"return sum([{KEEP} * w for w in (s,)])"),
}


@pytest.mark.parametrize("source", list(REVIEW2.values()), ids=list(REVIEW2))
def test_what_takes_numbers_proves_nothing(source):
    assert [f.fix for f in lint_source(source) if f.code == "HL007"] == ["unsafe"]


def test_an_operator_input_proves_an_array_and_a_call_s_items_are_trusted():
    """`F.relu(s)` raises eagerly for a number (MXNet asserts its array inputs), and a name
    unpacked from a call is what the call returns, trusted as `name = f()` is."""
    relu = _one(f"t = F.relu(s)\nreturn {KEEP} * s")
    assert [f.fix for f in lint_source(relu) if f.code == "HL007"] == ["safe"]
    split = _one(f"a, b = F.split(s, num_outputs=2, axis=1)\nreturn {KEEP} * a")
    assert [f.fix for f in lint_source(split) if f.code == "HL007"] == ["safe"]


@pytest.mark.parametrize(
    "source, fix",
    [
        (BRANCH, "unsafe"),
        (BEFORE, "safe"),
        (REBOUND, "unsafe"),
        (ALIAS, "unsafe"),
        (ASSIGNED, "safe"),
    ],
    ids=["branch", "before", "rebound", "alias", "assigned"],
)
def test_a_broadcast_fix_is_safe_only_where_every_path_makes_the_operand_an_array(source, fix):
    assert [f.fix for f in lint_source(source) if f.code == "HL007"] == [fix]


# a use after the read proves an array too when every working call runs it with the input
# (bisenet's ARM: `in_ = x; x = self.pool(x); ...; x * in_`), not past a branch, a return or a
# rebinding
LATER = {
    "after": (_one(f"r = {KEEP} * s\nt = F.relu(s)\nreturn r + t"), "safe"),
    "alias_then_rebound_by_its_use": (
        _one(f"in_ = s\ns = F.relu(s)\nreturn {KEEP} * in_ + s"),
        "safe",
    ),
    "after_a_branch": (
        _one(f"r = {KEEP} * s\nif x is None:\n    return r\nt = F.relu(s)\nreturn r + t"),
        "unsafe",
    ),
    "after_a_rebinding": (_one(f"r = {KEEP} * s\ns = 2 * x\nt = F.relu(s)\nreturn r"), "unsafe"),
    "unreachable": (_one(f"return {KEEP} * s\nt = F.relu(s)"), "unsafe"),
    "read_in_a_branch": (
        _one(f"if x is not None:\n    return {KEEP} * s\nt = F.relu(s)\nreturn t"),
        "unsafe",
    ),
}


@pytest.mark.parametrize("source, fix", list(LATER.values()), ids=list(LATER))
def test_a_later_use_every_working_call_runs_proves_an_array(source, fix):
    assert [f.fix for f in lint_source(source) if f.code == "HL007"] == [fix]


@pytest.mark.parametrize("backend", ["engine", pytest.param("mxnet", marks=pytest.mark.mxnet)])
@pytest.mark.parametrize("source", [BRANCH, REBOUND], ids=["branch", "rebound"])
def test_the_unsafe_fix_really_breaks_a_working_eager_call_with_a_number(source, backend):
    """With a number for the input the original runs eagerly and its broadcast fix raises:
    why the fix may not be safe (on MXNet 1.9.1 and on the engine)."""
    mx = backend_module(backend)
    fixed = fix_source(source, unsafe=True, select=["HL007"]).source
    assert fixed != source

    def run(code, *inputs):
        namespace = {"mx": mx, "HybridBlock": mx.gluon.HybridBlock, "nn": mx.gluon.nn}
        exec(compile(code.replace(HEADER, ""), "<fixture>", "exec"), namespace)
        net = namespace["Net"]()
        net.initialize()
        return net(*inputs)

    x = mx.nd.ones((2, 3, 4))
    args = (x, 2.0) if source is BRANCH else (2.0, mx.nd.ones((2, 3)))
    assert run(source, *args) is not None
    with pytest.raises(AssertionError, match="NDArray"):
        run(fixed, *args)


# the block's only input: gluon's forward refuses a call none of whose inputs holds an array
SOLE = HEADER + (
    "class Net(HybridBlock):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.beta = self.params.get('beta', shape=(1,), init='ones')\n\n"
    "    def hybrid_forward(self, F, x, beta):\n"
    "        return x * F.sigmoid(beta * x)\n"
)
SOLE_CASES = {
    "sole_input": (SOLE, "safe"),
    # a second input may carry the array while x is a number (`net(2.0, y)` works)
    "two_inputs": (SOLE.replace("F, x, beta)", "F, x, y, beta)"), "unsafe"),
    "star_args": (SOLE.replace("F, x, beta)", "F, x, *args, beta)"), "unsafe"),
    # a forward of its own may call hybrid_forward with anything
    "own_forward": (
        SOLE.replace(
            "    def hybrid_forward",
            "    def forward(self, x):\n        return "
            "super().forward(x)\n\n    def hybrid_forward",
        ),
        "unsafe",
    ),
    # a base that is not gluon's HybridBlock may have one
    "other_base": (
        SOLE.replace("class Net(HybridBlock)", "class Net(mx.gluon.nn.Dense)"),
        "unsafe",
    ),
    # a subclass calling it directly bypasses gluon's check of the inputs
    "called_by_a_subclass": (
        SOLE + "\n\nclass Sub(Net):\n    def hybrid_forward(self, F, x, beta):\n"
        "        return super().hybrid_forward(F, 2.0, beta=beta) + x\n",
        "unsafe",
    ),
}


@pytest.mark.parametrize("source, fix", list(SOLE_CASES.values()), ids=list(SOLE_CASES))
def test_the_only_input_of_a_block_is_an_array(source, fix):
    assert [f.fix for f in lint_source(source) if f.code == "HL007"] == [fix], source


@pytest.mark.parametrize("backend", ["engine", pytest.param("mxnet", marks=pytest.mark.mxnet)])
def test_a_block_called_without_an_array_input_raises(backend):
    """Why the only input is an array: MXNet 1.9.1 (and the engine) refuse the call before
    hybrid_forward runs, whatever the block's Parameters."""
    mx = backend_module(backend)
    namespace = {"mx": mx, "HybridBlock": mx.gluon.HybridBlock, "nn": mx.gluon.nn}
    exec(compile(SOLE.replace(HEADER, ""), "<fixture>", "exec"), namespace)
    net = namespace["Net"]()
    net.initialize()
    for value in (2.0, [1.0, 2.0], None):
        with pytest.raises(ValueError, match="must be one NDArray or one Symbol"):
            net(value)
    assert net(mx.nd.ones((2, 3))).shape == (2, 3)
