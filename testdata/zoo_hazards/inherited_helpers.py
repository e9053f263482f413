"""Hazards in helper methods inherited from, or overridden in, another class of the module.

GluonNLP's attention cells are written this way: the base class's hybrid_forward calls
`self._compute_weight(F, ...)`, which each subclass defines; GluonCV heads call helpers that a
shared base class defines.

Expected findings, one per line as `* CODE line N `snippet``:

* HL001 line 26 `query.shape[-1]`: scaling by the key size read from `.shape`, in the subclass's `_compute_weight`
* HL001 line 32 `x.shape[0]`: flattening by the batch size, in a helper method of the base class
"""
from mxnet.gluon import HybridBlock


class AttentionCell(HybridBlock):
    def _compute_weight(self, F, query, key, mask=None):
        raise NotImplementedError

    def hybrid_forward(self, F, query, key, value=None, mask=None):
        att_weights = self._compute_weight(F, query, key, mask)
        return F.batch_dot(att_weights, key if value is None else value)


class DotProductAttentionCell(AttentionCell):
    def _compute_weight(self, F, query, key, mask=None):
        query = query / (query.shape[-1] ** 0.5)
        return F.softmax(F.batch_dot(query, key, transpose_b=True), axis=-1)


class _HeadBase(HybridBlock):
    def _flatten(self, F, x):
        return x.reshape((x.shape[0], -1))


class ClassHead(_HeadBase):
    def hybrid_forward(self, F, x):
        return F.softmax(self._flatten(F, x), axis=-1)
