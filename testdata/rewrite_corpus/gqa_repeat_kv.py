"""Hazards: shape-scalar. Exact rewrite: yes.

Grouped-query attention: the key heads are repeated q_heads // kv_heads times, both read from
the shapes; the ratio is a model constant set in __init__.
"""
from mxnet import gluon


class GroupedQueryScores(gluon.HybridBlock):
    """Scores of (B, Hq, L, d) queries against (B, Hkv, L, d) keys repeated to Hq heads."""

    def __init__(self, q_heads, kv_heads, **kwargs):
        super(GroupedQueryScores, self).__init__(**kwargs)
        self._q_heads = q_heads
        self._kv_heads = kv_heads

    def hybrid_forward(self, F, q, k):
        k = F.repeat(k, repeats=q.shape[1] // k.shape[1], axis=1)
        q = q.reshape((-3, 0, 0))
        k = k.reshape((-3, 0, 0))
        scores = F.batch_dot(q, k, transpose_b=True)
        return scores.reshape((-4, -1, self._q_heads, 0, 0))


EXAMPLES = {"GroupedQueryScores": {"kwargs": {"q_heads": 4, "kv_heads": 2},
                                   "args": [[2, 4, 3, 5], [2, 2, 3, 5]]}}
