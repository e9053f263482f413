"""A span-extraction loss (question answering heads, e.g. gluon-nlp's BERT SQuAD loss): the
caller passes `label` as a list [start, end] of arrays. `label[0]` is a Python list index
that works eagerly and hybridized; rewriting it to F.slice_axis would break the real call."""
from mxnet import gluon


class SpanLoss(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def hybrid_forward(self, F, pred, label):
        pred = F.split(pred, axis=2, num_outputs=2)
        start_pred = pred[0].reshape((0, -3))
        start_label = label[0]
        end_pred = pred[1].reshape((0, -3))
        end_label = label[1]
        return (self._loss(start_pred, start_label) + self._loss(end_pred, end_label)) / 2
