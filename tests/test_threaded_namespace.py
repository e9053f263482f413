"""A fix that needs F in a helper without one gives it one (`Rule.threads_namespace`,
rules/_namespace_param.py), and only then: an F-free form is kept where one exists."""

from hybridlint.linter import fix_source, lint_source

BLOCK = (
    "\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
    "        y = F.relu(x)\n        return {call}\n"
)


def _fixed(source: str, unsafe: bool = False) -> str:
    return fix_source(source, unsafe=unsafe).source


def test_a_module_helper_gets_f_from_its_hybrid_caller():
    source = (
        "import mxnet as mx\n\n\ndef centered(t):\n    return t - t.mean(axis=1, keepdims=True)\n"
        + BLOCK.format(call="centered(y)")
    )
    (finding,) = [f for f in lint_source(source) if f.code == "HL007"]
    assert finding.fix == "safe" and "`F=mx.nd` by default" in finding.message
    fixed = _fixed(source)
    assert "def centered(t, F=mx.nd):" in fixed
    assert "return F.broadcast_sub(t, t.mean(axis=1, keepdims=True))" in fixed
    assert "return centered(y, F=F)" in fixed


def test_a_method_helper_gets_f_only_as_an_unsafe_fix():
    source = (
        "from mxnet import nd\n\n\nclass Net(HybridBlock):\n"
        "    def _centered(self, t):\n        return t - t.mean(axis=1, keepdims=True)\n\n"
        "    def hybrid_forward(self, F, x):\n        return self._centered(F.relu(x))\n"
    )
    (finding,) = [f for f in lint_source(source) if f.code == "HL007"]
    assert finding.fix == "unsafe" and "a subclass may override" in finding.message
    assert "def _centered(self, t, F=nd):" in _fixed(source, unsafe=True)
    assert _fixed(source) == source


def test_no_f_is_given_without_an_eager_namespace_to_default_to():
    source = (
        "from mxnet.gluon import HybridBlock\n\n\ndef centered(t):\n"
        "    return t - t.mean(axis=1, keepdims=True)\n" + BLOCK.format(call="centered(y)")
    )
    (finding,) = [f for f in lint_source(source) if f.code == "HL007"]
    assert finding.fix is None


def test_f_free_forms_stay_f_free():
    source = (
        "import mxnet as mx\n\n\ndef flat(t, like):\n    return t.reshape(like.shape) + t.T\n"
        + BLOCK.format(call="flat(y, F.relu(y))")
    )
    fixed = _fixed(source)
    assert "def flat(t, like):" in fixed  # no F parameter
    assert "t.reshape_like(like)" in fixed and "t.transpose()" in fixed
