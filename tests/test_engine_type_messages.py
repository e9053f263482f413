"""The engine's "type ... not supported" errors name the classes as MXNet 1.9.1 does.

Blind round 13: a module-level NDArray multiplied with a Symbol (reconet's LuminanceLoss,
`x * RGB_LUMIN_FACTOR`) made `--verify` print `TypeError: type <class
'hybridlint.engine.ndarray.ndarray.NDArray'> not supported`: the engine's module path, which
the user's code never imports. MXNet prints `mxnet.ndarray.ndarray.NDArray`."""

import pytest

import hybridlint.engine as engine


def _messages(mx):
    """The TypeError texts of the mixes a hybridized block meets: Symbol with an NDArray on
    either side, through the operators and through mx.sym's function form."""
    x, c = mx.sym.var("x"), mx.nd.ones((2,))
    found = []
    for mix in (lambda: x * c, lambda: x - c, lambda: mx.sym.maximum(x, c)):
        with pytest.raises(TypeError) as caught:
            mix()
        found.append(str(caught.value))
    return found


def test_engine_names_mxnet_classes():
    messages = _messages(engine)
    assert all("hybridlint" not in m for m in messages), messages
    assert "type <class 'mxnet.ndarray.ndarray.NDArray'> not supported" in messages[0]


@pytest.mark.mxnet
def test_real_mxnet_prints_the_same():
    mx = pytest.importorskip("mxnet")
    assert _messages(engine) == _messages(mx)


def _number_results(mx):
    """mx.sym's two-operand functions given two numbers: MXNet answers in Python."""
    return [getattr(mx.sym, name)(2, 3) for name in ("maximum", "minimum", "pow", "power", "hypot")]


def test_engine_answers_two_numbers_in_python():
    assert _number_results(engine) == [3, 2, 8, 8, pytest.approx(13**0.5)]


@pytest.mark.mxnet
def test_real_mxnet_answers_two_numbers_alike():
    mx = pytest.importorskip("mxnet")
    assert _number_results(engine) == pytest.approx(_number_results(mx))
