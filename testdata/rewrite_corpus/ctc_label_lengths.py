"""Hazards: creation-like, shape-scalar. Exact rewrite: yes.

CTC loss wrapper (OCR style) whose lengths are F.full((batch,), length) with both numbers
from the shapes; ones_like of a column times the shape_array entry gives the same lengths.
"""
from mxnet import gluon


class CTCLossFullLength(gluon.HybridBlock):
    """CTC loss with every prediction and label sequence at full length."""

    def hybrid_forward(self, F, pred, label):
        pred_len = F.full((pred.shape[0],), pred.shape[1])
        label_len = F.full((label.shape[0],), label.shape[1])
        return F.ctc_loss(F.transpose(pred, axes=(1, 0, 2)), label, pred_len, label_len,
                          use_data_lengths=True, use_label_lengths=True, blank_label='last')


EXAMPLES = {"CTCLossFullLength": {"args": [[2, 6, 5], {"shape": [2, 3], "data": [
    0, 1, 2, 3, 1, 0]}]}}
