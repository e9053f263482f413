"""Hazards: helper-static, shape-scalar. Exact rewrite: yes.

A loss whose static helper normalises by the batch size read from the shape, called through
the class (`BatchNormalizedLoss._batch_mean(F, loss)`); F.mean over axis 0 is exact.
"""
from mxnet import gluon


class BatchNormalizedLoss(gluon.HybridBlock):
    """Sum over the batch of sigmoid BCE divided by the batch size."""

    @staticmethod
    def _batch_mean(F, loss):
        return F.sum(loss, axis=0) / loss.shape[0]

    def hybrid_forward(self, F, pred, label):
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type='softrelu')
        return BatchNormalizedLoss._batch_mean(F, loss)


EXAMPLES = {"BatchNormalizedLoss": {"args": [[4, 3], {"shape": [4, 3], "data": [
    0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1]}]}}
