"""NDArray's `broadcast_to` / `broadcast_like` methods against MXNet 1.9.1.

In MXNet 1.9.1 the NDArray methods are Python, not the operators: `x.broadcast_to(shape)` may
add leading axes (read as 1s) and takes every size literally (a 0 fails, where the operator
`nd.broadcast_to(x, shape=(0, 3))` keeps that dim), and `x.broadcast_like(y)` is
`x.broadcast_to(y.shape)` (no `lhs_axes`/`rhs_axes`: those are the operator's). Code that
relies on either runs or fails eagerly in the engine exactly where MXNet does; the table is
checked against real MXNet by the `mxnet`-marked test.
"""

import numpy as np
import pytest

import hybridlint.engine as engine


def _ones(lib, shape):
    return lib.nd.array(np.ones(shape, dtype="float32"))


# name -> (call on a library, expected output shape, or the error's type name)
CASES = {
    "method adds a leading axis": (
        lambda lib: _ones(lib, (3, 1)).broadcast_to((2, 3, 3)),
        (2, 3, 3),
    ),
    "method, same rank": (lambda lib: _ones(lib, (1, 3)).broadcast_to((2, 3)), (2, 3)),
    "method takes 0 literally": (
        lambda lib: _ones(lib, (1, 1, 4)).broadcast_to((2, 3, 0)),
        "ValueError",
    ),
    "method, fewer axes": (lambda lib: _ones(lib, (2, 3)).broadcast_to((3,)), "ValueError"),
    "method, a dim not 1": (lambda lib: _ones(lib, (2, 3)).broadcast_to((4, 3)), "ValueError"),
    "operator keeps a dim for 0": (
        lambda lib: lib.nd.broadcast_to(_ones(lib, (1, 1, 4)), shape=(2, 3, 0)),
        (2, 3, 4),
    ),
    "like-method adds a leading axis": (
        lambda lib: _ones(lib, (3, 1)).broadcast_like(_ones(lib, (2, 3, 3))),
        (2, 3, 3),
    ),
    "like-method takes no axes": (
        lambda lib: _ones(lib, (1, 4)).broadcast_like(
            _ones(lib, (2, 4)), lhs_axes=(0,), rhs_axes=(0,)
        ),
        "TypeError",
    ),
    "like-operator with axes": (
        lambda lib: lib.nd.broadcast_like(
            _ones(lib, (1, 1, 4)), _ones(lib, (3, 5)), lhs_axes=(0,), rhs_axes=(0,)
        ),
        (3, 1, 4),
    ),
}


def _outcome(lib, name):
    call, _ = CASES[name]
    try:
        return tuple(call(lib).shape)
    except Exception as error:  # noqa: BLE001 - the error's kind is the outcome
        return type(error).__name__


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_engine_broadcasts_as_mxnet_does(name):
    assert _outcome(engine, name) == CASES[name][1]


@pytest.mark.mxnet
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_table_is_mxnets(name):
    mx = pytest.importorskip("mxnet")
    assert _outcome(mx, name) == CASES[name][1]
