"""linalg potrf/potri/trsm/trmm/syrk/sumlogdiag/extractdiag/makediag/extracttrian/maketrian/
inverse/det/slogdet: errors without MXNet; values, names and graph JSON against real MXNet 1.9.1
(eager and graph), batched and unbatched, over transpose/rightside/lower/offset."""

import itertools

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both

RNG = np.random.RandomState(37)


def _spd(*batch):
    a = RNG.rand(*batch, 3, 3)
    return (a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)).astype(np.float32)


def _f(*shape):
    return RNG.rand(*shape).astype(np.float32)


_L = np.linalg.cholesky(_spd(2).astype(np.float64)).astype(np.float32)
_U = np.ascontiguousarray(np.swapaxes(_L, -1, -2))
CASES = [
    ("linalg_potrf", [_spd(2)], {}),
    ("linalg_potrf", [_spd(2)], dict(lower=False)),
    ("linalg_potrf", [_spd()], {}),
    ("linalg_potri", [_L], {}),
    ("linalg_potri", [_U], dict(lower=False)),
]
for _tr, _low in itertools.product((False, True), (True, False)):
    _tri = _L if _low else _U
    CASES += [
        ("linalg_trsm", [_tri, _f(2, 3, 4)], dict(transpose=_tr, lower=_low, alpha=2.0)),
        ("linalg_trsm", [_tri, _f(2, 4, 3)], dict(transpose=_tr, lower=_low, rightside=True)),
        ("linalg_trmm", [_f(2, 3, 3), _f(2, 3, 4)], dict(transpose=_tr, lower=_low, alpha=0.5)),
        (
            "linalg_trmm",
            [_f(2, 3, 3), _f(2, 4, 3)],
            dict(transpose=_tr, lower=_low, rightside=True),
        ),
    ]
CASES += [
    ("linalg_syrk", [_f(2, 3, 4)], {}),
    ("linalg_syrk", [_f(3, 4)], dict(transpose=True, alpha=3.0)),
    ("linalg_sumlogdiag", [_spd(2)], {}),
    ("linalg_sumlogdiag", [_spd()], {}),
    ("linalg_inverse", [_spd(2)], {}),
    ("linalg_det", [_spd(2)], {}),
    ("linalg_det", [_f(3, 3)], {}),
    ("linalg_slogdet", [_f(2, 3, 3) - 0.5], {}),
]
for _off in (0, 1, -1):
    CASES += [
        ("linalg_extractdiag", [_f(2, 4, 4)], dict(offset=_off)),
        ("linalg_makediag", [_f(2, 3)], dict(offset=_off)),
    ]
for _off, _low in [(0, True), (-1, True), (0, False), (1, False)]:
    CASES += [
        ("linalg_extracttrian", [_f(2, 4, 4)], dict(offset=_off, lower=_low)),
        ("linalg_maketrian", [_f(2, 6)], dict(offset=_off, lower=_low)),
    ]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


def test_linalg_by_hand_and_errors():
    a = mx.nd.array(np.array([[4.0, 2.0], [2.0, 3.0]]))
    np.testing.assert_allclose(
        mx.nd.linalg.potrf(a).asnumpy(), [[2, 0], [1, np.sqrt(2)]], rtol=1e-6
    )
    np.testing.assert_allclose(mx.nd.linalg.det(a).asnumpy(), [8.0], rtol=1e-6)
    with pytest.raises(MXNetError, match="square"):
        mx.nd.linalg.inverse(mx.nd.ones((2, 3)))
    with pytest.raises(MXNetError, match="lapack"):
        mx.nd.linalg.potrf(mx.nd.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(MXNetError, match="lapack"):
        mx.nd.linalg.inverse(mx.nd.zeros((2, 2)))
    with pytest.raises(MXNetError, match="triangular number"):
        mx.nd.linalg.maketrian(mx.nd.ones((5,)))
