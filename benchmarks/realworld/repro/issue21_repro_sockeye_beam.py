# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""sockeye 2.3.17 beam-search blocks, eager vs hybridized (MXNet 1.9.1), shapes as BeamSearch.forward builds them."""

import sys
import os
import types
import numpy as np
from mxnet import nd

sys.modules["portalocker"] = types.ModuleType("portalocker")
sys.path.insert(0, os.path.expanduser("~/.cache/hybridlint-realworld/src/sockeye-2.3.17"))
import sockeye.beam_search as bs

rs = np.random.RandomState(0)
N, V = 6, 7


def cmp(name, make, inputs):
    outs = []
    for hyb in (False, True):
        b = make()
        b.initialize()
        if hyb:
            b.hybridize()
        try:
            o = b(*inputs)
            outs.append([x.asnumpy() for x in (o if isinstance(o, (list, tuple)) else [o])])
        except Exception as e:
            outs.append(type(e).__name__ + ": " + str(e).splitlines()[0][:150])
    e, h = outs
    print(
        name,
        e if isinstance(e, str) else "eager ok",
        "|",
        h
        if isinstance(h, str)
        else ("hybrid equal" if all(np.allclose(a, b) for a, b in zip(e, h)) else "hybrid DIFFERS"),
    )


inf = np.inf
unk = nd.zeros((N, V))
unk[:, 1] = inf
pad = nd.full((N, V - 1), val=inf)
eos = nd.full((N, V), val=inf)
eos[:, 2] = 0
fin = nd.array([0, 1, 0, 0, 1, 0], dtype="int32")
ina = nd.array([0, 0, 0, 1, 0, 0], dtype="int32")
cmp(
    "UpdateScores",
    bs.UpdateScores,
    [
        nd.array(rs.uniform(size=(N, V))),
        fin,
        ina,
        nd.array(rs.uniform(size=(N, 1))),
        nd.array([1, 2, 3, 4, 3, 2], dtype="int32"),
        nd.array([3, 3, 3, 4, 4, 4], dtype="int32"),
        unk,
        pad,
        eos,
    ],
)
scorer = lambda: bs.CandidateScorer(1.0, 0.0, 1.0)
cmp(
    "CandidateScorer(bp)",
    scorer,
    [
        nd.array(rs.uniform(size=(N, 1))),
        nd.array(rs.randint(1, 5, size=(N, 1))),
        nd.array(rs.randint(1, 5, size=(N, 1))),
    ],
)
cmp(
    "SortNormalizeAndUpdateFinished(bp)",
    lambda: bs.SortNormalizeAndUpdateFinished("float32", 0, 2, bs.CandidateScorer(0.5, 1.0, 1.0)),
    [
        nd.array([0, 0, 2, 3, 5, 4], dtype="int32"),
        nd.array([2, 0, 3, 2, 4, 5], dtype="int32"),
        fin,
        nd.array(rs.uniform(size=(N, 1))),
        nd.array([1, 2, 3, 4, 3, 2], dtype="int32"),
        nd.array(rs.randint(1, 5, size=(N, 1)), dtype="float32"),
    ],
)
cmp("GreedyTop1", bs.GreedyTop1, [nd.array(rs.uniform(size=(1, V)))])
