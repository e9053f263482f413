"""`x[key] = value` with array values, differential against real MXNet 1.9.1 (recorded in
tests/recordings/test_engine_setitem.npz for machines without it).

MXNet broadcasts an array value to the indexed region without its integer axes, (1,) when
every axis is an integer: the (1,) NDArray that `x[b, k, 0]` returns can be put back there,
so `pts[b, k, 0] += d` works (gluoncv2's HeatmapMaxDetBlock tune loop), where numpy 2 says
"setting an array element with a sequence"."""

import numpy as np
import pytest

import hybridlint.engine as mx
from mxnet_record import reference


def _base(m):
    return m.nd.arange(24).reshape((2, 3, 4))


CASES = [
    # every axis an integer: a (1,) value, a (1, 1) one, one from NDArray indexing
    ("one element from (1,)", lambda m, x: x.__setitem__((0, 1, 2), m.nd.array([5.0]))),
    ("one element from (1, 1)", lambda m, x: x.__setitem__((1, 2, 3), m.nd.array([[5.0]]))),
    ("one element from numpy (1,)", lambda m, x: x.__setitem__((0, 0, 0), np.array([7.0]))),
    ("one element from numpy 0-d", lambda m, x: x.__setitem__((0, 0, 1), np.array(7.0))),
    ("one element, negative index", lambda m, x: x.__setitem__((-1, -1, -1), x[0, 0, 3])),
    ("one element of a row", lambda m, x: x[0, 1].__setitem__(2, m.nd.array([9.0]))),
    ("one element from (2,)", lambda m, x: x.__setitem__((0, 1, 2), m.nd.array([5.0, 6.0]))),
    ("one element from (2, 1)", lambda m, x: x.__setitem__((0, 1, 2), m.nd.array([[5.0], [6.0]]))),
    # integer axes among slices: the value broadcasts to what they leave
    ("row from (1,)", lambda m, x: x.__setitem__((0, 1), m.nd.array([1.0]))),
    ("row from (1, 4)", lambda m, x: x.__setitem__((0, 1), m.nd.ones((1, 4)))),
    ("row from (1, 1, 4)", lambda m, x: x.__setitem__((0, 1), m.nd.ones((1, 1, 4)))),
    ("column slice", lambda m, x: x.__setitem__((slice(None), 1, slice(1, 3)), m.nd.ones((2, 1)))),
    ("strided", lambda m, x: x.__setitem__((1, slice(None, None, 2)), m.nd.ones((4,)) * 3)),
    ("ellipsis", lambda m, x: x.__setitem__((Ellipsis, 0), m.nd.array([[1.0, 2.0, 3.0]]))),
    ("row from (3,)", lambda m, x: x.__setitem__((0, 1), m.nd.array([1.0, 2.0, 3.0]))),
    ("row from (2, 4)", lambda m, x: x.__setitem__((0, 1), m.nd.ones((2, 4)))),
    ("whole array from (3, 4)", lambda m, x: x.__setitem__(slice(None), m.nd.ones((3, 4)) * 2)),
]


def _run(m, setter):
    x = _base(m)
    try:
        setter(m, x)
    except ValueError as err:
        return "ValueError: " + str(err)
    return x


def _in_place_add(m):
    """HeatmapMaxDetBlock's tune step: x[b, k, 0] += (hm[py, px + 1] - hm[py, px - 1]).sign()."""
    pts, hm = _base(m), m.nd.arange(12).reshape((3, 4))
    for b in range(2):
        for k in range(3):
            pts[b, k, 0] += (hm[k, 2] - hm[k, 0]).sign() * 0.25
            pts[b, k, 1] -= (hm[k, 1] * 0 + 1) * 2
    return pts


@pytest.mark.mxnet
@pytest.mark.parametrize("name, setter", CASES, ids=[c[0] for c in CASES])
def test_setitem_matches_mxnet(name, setter):
    want = reference(lambda m: _run(m, setter), (name, setter))
    got = _run(mx, setter)
    if isinstance(want, str):
        assert got == want
    else:
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.mxnet
def test_in_place_add_on_one_element_matches_mxnet():
    want = reference(_in_place_add, "in place add")
    np.testing.assert_array_equal(_in_place_add(mx).asnumpy(), want)


def test_one_element_takes_a_one_element_array_without_mxnet():
    x = mx.nd.zeros((2, 3))
    x[1, 2] = mx.nd.array([4.0])
    x[0, 0] += x[1, 2] * 2
    np.testing.assert_array_equal(x.asnumpy(), [[8, 0, 0], [0, 0, 4]])
    with pytest.raises(ValueError, match=r"remapped shapes\[original->remapped\]: \(2,\)"):
        x[0, 1] = mx.nd.array([1.0, 2.0])
