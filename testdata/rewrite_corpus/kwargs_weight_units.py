"""Hazards: shape-scalar. Exact rewrite: yes.

GluonNLP-style output projection that receives its parameters through `**kwargs` and reads
the number of output units from `kwargs['weight'].shape[0]`; a Symbol has no `.shape`, the
parameter's declared shape is static.
"""
from mxnet import gluon


class KwargsOutputProjection(gluon.HybridBlock):
    """FullyConnected over the last axis of (B, T, C) with parameters passed as keywords."""

    def __init__(self, units, in_units, **kwargs):
        super(KwargsOutputProjection, self).__init__(**kwargs)
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(units, in_units))
            self.bias = self.params.get('bias', shape=(units,), init='ones')

    def hybrid_forward(self, F, x, **kwargs):
        units = kwargs['weight'].shape[0]
        return F.FullyConnected(x, kwargs['weight'], kwargs['bias'], num_hidden=units,
                                flatten=False)


EXAMPLES = {
    "KwargsOutputProjection": {"kwargs": {"units": 4, "in_units": 3}, "args": [[2, 5, 3]]}
}
