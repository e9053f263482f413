"""Hazards: const-array, eager-ns. Exact rewrite: yes.

Class-weighted softmax cross-entropy whose weights (a list given to __init__) become an
`nd.array` at every call; a params.get_constant built in __init__ is exact.
"""
from mxnet import gluon, nd


class WeightedSoftmaxCE(gluon.HybridBlock):
    """-w[label] * log softmax(pred)[label]."""

    def __init__(self, class_weights, **kwargs):
        super(WeightedSoftmaxCE, self).__init__(**kwargs)
        self._class_weights = class_weights

    def hybrid_forward(self, F, pred, label):
        logp = F.log_softmax(pred, axis=-1)
        loss = -F.pick(logp, label, axis=-1)
        weights = nd.take(nd.array(self._class_weights), label)
        return loss * weights


EXAMPLES = {"WeightedSoftmaxCE": {"kwargs": {"class_weights": [1.0, 2.0, 0.5]},
                                  "args": [[4, 3], {"shape": [4], "data": [0, 2, 1, 2]}]}}
