"""Hazards: shape-scalar. Exact rewrite: yes.

Focal loss (GluonCV style) that one-hot encodes the labels with the class count read from
the prediction's shape; the class count is the num_class set in __init__.
"""
from mxnet import gluon


class FocalLoss(gluon.HybridBlock):
    """-alpha (1 - p)^gamma log(p) of the true class, summed over classes."""

    def __init__(self, num_class, alpha=0.25, gamma=2.0, **kwargs):
        super(FocalLoss, self).__init__(**kwargs)
        self._num_class = num_class
        self._alpha = alpha
        self._gamma = gamma

    def hybrid_forward(self, F, pred, label):
        prob = F.softmax(pred, axis=-1)
        one_hot = F.one_hot(label, pred.shape[-1])
        pt = F.sum(prob * one_hot, axis=-1)
        return -self._alpha * ((1 - pt) ** self._gamma) * F.log(pt + 1e-12)


EXAMPLES = {"FocalLoss": {"kwargs": {"num_class": 4},
                          "args": [[3, 4], {"shape": [3], "dtype": "float32", "data": [0, 3, 1]}]}}
