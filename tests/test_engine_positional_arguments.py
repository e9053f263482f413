"""Positional and None arguments of the generated `mx.nd.X` / `mx.sym.X` functions.

MXNet 1.9.1 generates each operator function with every array argument first, optional ones
included (FullyConnected's and Convolution's `bias`, softmax's `length`), then the parameters
in the registry's order. A None at an array position is an input not given; anything else
that is not an array there raises AssertionError; `bias=None` by keyword is skipped too. The
engine reads the same signatures (hybridlint/mxnet_names.py), so user code that passes
`None` for a bias runs, and `softmax(x, -1)` fails, as in MXNet.

Each case's expected outcome is what MXNet 1.9.1 gives (the `mxnet`-marked test checks the
table against real MXNet, so it cannot drift from it).
"""

import numpy as np
import pytest

import hybridlint.engine as mx


def _x(lib):
    return lib.nd.array(np.ones((2, 4), dtype="float32"))


def _w(lib):
    return lib.nd.array(np.ones((3, 4), dtype="float32"))


def _image(lib):
    return lib.nd.array(np.ones((1, 2, 5, 5), dtype="float32"))


def _kernel(lib):
    return lib.nd.array(np.ones((3, 2, 3, 3), dtype="float32"))


# name -> (call on a library, expected: an output shape, list_arguments(), or an error start)
CASES = {
    "nd FullyConnected(x, w, None)": (
        lambda lib: lib.nd.FullyConnected(_x(lib), _w(lib), None, no_bias=True, num_hidden=3),
        (2, 3),
    ),
    "nd FullyConnected(bias=None)": (
        lambda lib: lib.nd.FullyConnected(_x(lib), _w(lib), bias=None, no_bias=True, num_hidden=3),
        (2, 3),
    ),
    "nd FullyConnected(x, w, None, 3)": (
        lambda lib: lib.nd.FullyConnected(_x(lib), _w(lib), None, 3, True),
        (2, 3),
    ),
    "nd Convolution(x, w, None)": (
        lambda lib: lib.nd.Convolution(
            _image(lib), _kernel(lib), None, no_bias=True, kernel=(3, 3), num_filter=3
        ),
        (1, 3, 3, 3),
    ),
    "sym Convolution(x, w, None)": (
        lambda lib: lib.sym.Convolution(
            lib.sym.var("x"), lib.sym.var("w"), None, no_bias=True, kernel=(3, 3), num_filter=3
        ),
        ["x", "w"],
    ),
    "sym FullyConnected(bias=None)": (
        lambda lib: lib.sym.FullyConnected(
            lib.sym.var("x"), lib.sym.var("w"), bias=None, no_bias=True, num_hidden=3
        ),
        ["x", "w"],
    ),
    "nd softmax(x, None)": (lambda lib: lib.nd.softmax(_x(lib), None), (2, 4)),
    "sym softmax(x, None)": (lambda lib: lib.sym.softmax(lib.sym.var("x"), None), ["x"]),
    "nd softmax(x, -1)": (
        lambda lib: lib.nd.softmax(_x(lib), -1),
        "AssertionError: Argument length must have NDArray type, but got -1",
    ),
    "sym softmax(x, -1)": (
        lambda lib: lib.sym.softmax(lib.sym.var("x"), -1),
        "AssertionError: Argument length must be Symbol instances, but got -1",
    ),
    "nd broadcast_mul(x, 2.0)": (
        lambda lib: lib.nd.broadcast_mul(_x(lib), 2.0),
        "AssertionError: Argument rhs must have NDArray type, but got 2.0",
    ),
    "nd clip(x, 0, 0.5)": (lambda lib: lib.nd.clip(_x(lib), 0, 0.5), (2, 4)),
    # operators taking `*data` (Concat, stack, add_n): every positional argument is an input
    "nd concat(x, x, 1)": (
        lambda lib: lib.nd.concat(_x(lib), _x(lib), 1),
        "AssertionError: Positional arguments must have NDArray type, but got 1",
    ),
    "nd concat(x, x, dim=1)": (lambda lib: lib.nd.concat(_x(lib), _x(lib), dim=1), (2, 8)),
    "nd concat([x, x], dim=1)": (
        lambda lib: lib.nd.concat([_x(lib), _x(lib)], dim=1),
        "AssertionError: Positional arguments must have NDArray type, but got [",
    ),
    "nd add_n(x, x, 2)": (
        lambda lib: lib.nd.add_n(_x(lib), _x(lib), 2),
        "AssertionError: Positional arguments must have NDArray type, but got 2",
    ),
    "sym stack(X, X, 0)": (
        lambda lib: lib.sym.stack(lib.sym.var("x"), lib.sym.var("y"), 0),
        "AssertionError: Positional arguments must be Symbol instances, but got 0",
    ),
    "sym concat([X, Y], dim=1)": (
        lambda lib: lib.sym.concat([lib.sym.var("x"), lib.sym.var("y")], dim=1),
        "AssertionError: Positional arguments must be Symbol instances, but got [",
    ),
    # a None before a given input: the symbol keeps each input in its own slot (MXNet passes
    # them by name), so `b` is the bias and the weight a new variable
    "sym FullyConnected(x, None, b)": (
        lambda lib: lib.sym.FullyConnected(
            lib.sym.var("x"), None, lib.sym.var("b"), num_hidden=3, name="fc"
        ),
        ["x", "fc_weight", "b"],
    ),
    "sym BatchNorm(x, None, beta)": (
        lambda lib: lib.sym.BatchNorm(lib.sym.var("x"), None, lib.sym.var("beta"), name="bn"),
        ["x", "bn_gamma", "beta"],
    ),
    "sym take(None, i)": (
        lambda lib: lib.sym.take(None, lib.sym.var("i"), name="tk"),
        ["tk_a", "i"],
    ),
    # an input given by position and by keyword: Python's TypeError in MXNet's signature
    "nd FullyConnected(x, None, weight=w)": (
        lambda lib: lib.nd.FullyConnected(_x(lib), None, weight=_w(lib), num_hidden=3),
        "TypeError: FullyConnected() got multiple values for argument 'weight'",
    ),
    "sym FullyConnected(x, None, weight=w)": (
        lambda lib: lib.sym.FullyConnected(
            lib.sym.var("x"), None, weight=lib.sym.var("w"), num_hidden=3
        ),
        "TypeError: FullyConnected() got multiple values for argument 'weight'",
    ),
}


# NDArray's fluent methods with MXNet 1.9.1's own signatures (not forwarded with **kwargs, as
# Symbol's are): an operator parameter there is a TypeError eagerly, while hybridized it works
CASES.update(
    {
        "nd x.broadcast_like(y)": (lambda lib: _x(lib)[:, :1].broadcast_like(_x(lib)), (2, 4)),
        "nd x.broadcast_like(y, lhs_axes=...)": (
            lambda lib: _x(lib)[:, :1].broadcast_like(_x(lib), lhs_axes=(1,), rhs_axes=(1,)),
            "TypeError: ",
        ),
        "sym x.broadcast_like(y, lhs_axes=...)": (
            lambda lib: lib.sym.var("t").broadcast_like(
                lib.sym.var("y"), lhs_axes=(1,), rhs_axes=(1,)
            ),
            ["t", "y"],
        ),
        "nd x.broadcast_to(shape=...)": (lambda lib: _x(lib)[:, :1].broadcast_to((2, 3)), (2, 3)),
        "nd x.expand_dims(1)": (lambda lib: _x(lib).expand_dims(1), (2, 1, 4)),
        "nd x.expand_dims(axis=1, name=...)": (
            lambda lib: _x(lib).expand_dims(axis=1, name="e"),
            "TypeError: ",
        ),
        "nd x.squeeze()": (lambda lib: _x(lib)[:, :1].squeeze(), (2,)),
        "nd x.squeeze(axis=1, name=...)": (
            lambda lib: _x(lib)[:, :1].squeeze(axis=1, name="s"),
            "TypeError: ",
        ),
        "nd x.flatten()": (lambda lib: _image(lib).flatten(), (1, 50)),
        "nd x.flatten(name=...)": (lambda lib: _image(lib).flatten(name="f"), "TypeError: "),
        "sym x.flatten(name=...)": (lambda lib: lib.sym.var("x").flatten(name="f"), ["x"]),
    }
)


# After the inputs and parameters MXNet's generated nd functions take `out`, then `name`
CASES.update(
    {
        "nd sqrt(x, y) writes y": (
            lambda lib: _same_array(lambda x, y: lib.nd.sqrt(x, y), lib),
            "out is y",
        ),
        "nd sqrt(x, y, 'n') writes y": (
            lambda lib: _same_array(lambda x, y: lib.nd.sqrt(x, y, "n"), lib),
            "out is y",
        ),
        "nd relu(x, 1)": (lambda lib: lib.nd.relu(_x(lib), 1), "TypeError: "),
        "nd softmax(x, None, -1)": (lambda lib: lib.nd.softmax(_x(lib), None, -1), (2, 4)),
        # an op with an optional input counts it too (FullyConnected's bias, SequenceMask's
        # length): `out` comes after every parameter
        "nd FullyConnected(x, w, None, 4, True, True, y) writes y": (
            lambda lib: _same_array(
                lambda x, y: lib.nd.FullyConnected(x, _w4(lib), None, 4, True, True, y), lib
            ),
            "out is y",
        ),
        "nd SequenceMask(x, None, False, 0.0, 0, y) writes y": (
            lambda lib: _same_array(
                lambda x, y: lib.nd.SequenceMask(x, None, False, 0.0, 0, y), lib
            ),
            "out is y",
        ),
        # every parameter is positional: a keyword for one a positional reaches is a clash
        "nd clip(x, 0, y, a_max=1)": (
            lambda lib: lib.nd.clip(_x(lib), 0, _x(lib), a_max=1),
            "TypeError: clip() got multiple values for argument 'a_max'",
        ),
        # an array in a parameter's place is no `out`: MXNet fails to parse it
        "nd BatchNorm(5 arrays, y)": (
            lambda lib: lib.nd.BatchNorm(*_batch_norm(lib), lib.nd.ones((1,))),
            "MXNetError: ",
        ),
        "nd sqrt(x, y, 'n', 1)": (
            lambda lib: lib.nd.sqrt(_x(lib), _x(lib), "n", 1),
            "TypeError: sqrt() takes from 0 to 3 positional arguments but 4 were given",
        ),
    }
)


def _w4(lib):
    return lib.nd.array(np.full((4, 4), 0.25, dtype="float32"))  # ones(2, 4) -> ones


def _batch_norm(lib):
    data = lib.nd.array(np.ones((2, 4, 3), dtype="float32"))
    ones, zeros = lib.nd.ones((4,)), lib.nd.zeros((4,))
    return data, ones, zeros, zeros, ones


def _same_array(call, lib):
    x, y = _x(lib), lib.nd.zeros((2, 4))
    result = call(x, y)
    return "out is y" if result is y and float(y.asnumpy()[0, 0]) == 1.0 else "a new array"


def outcome(call, lib):
    """The output's shape (nd), its arguments (sym), or "<Error>: <message>"."""
    try:
        result = call(lib)
    except Exception as error:  # noqa: BLE001 - the error is the outcome
        return "%s: %s" % (type(error).__name__, str(error).splitlines()[0])
    if isinstance(result, str):
        return result
    if hasattr(result, "list_arguments"):
        return result.list_arguments()
    return tuple(result.shape)


def _same(got, want):
    if isinstance(want, str):
        return isinstance(got, str) and got.startswith(want)
    return got == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_binds_arguments_as_mxnet_does(name):
    call, want = CASES[name]
    got = outcome(call, mx)
    assert _same(got, want), "%s: engine %r, MXNet 1.9.1 %r" % (name, got, want)


@pytest.mark.mxnet
@pytest.mark.parametrize("name", sorted(CASES))
def test_expected_outcomes_are_mxnets(name):
    m = pytest.importorskip("mxnet")
    call, want = CASES[name]
    got = outcome(call, m)
    assert _same(got, want), "%s: MXNet %r, table %r" % (name, got, want)


def test_positional_parameters_follow_mxnets_order():
    """`random_uniform(low, high, shape)`: MXNet's order, not the engine's declaration."""
    out = mx.nd.random_uniform(2.0, 3.0, (4, 5))
    assert out.shape == (4, 5)
    values = out.asnumpy()
    assert values.min() >= 2.0 and values.max() <= 3.0
