"""Label smoothing with integer class ids (a correct block: nothing to fix, equal)."""
from mxnet import gluon


class SmoothedNLL(gluon.HybridBlock):
    def __init__(self, classes=5, epsilon=0.1, **kwargs):
        super().__init__(**kwargs)
        self._classes = classes
        self._epsilon = epsilon

    def hybrid_forward(self, F, logits, label):
        target = F.one_hot(label, self._classes) * (1 - self._epsilon) \
            + self._epsilon / self._classes
        return -(F.log_softmax(logits, axis=-1) * target).sum(axis=-1)
