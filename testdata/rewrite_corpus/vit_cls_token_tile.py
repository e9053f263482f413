"""Hazards: tile-broadcast. Exact rewrite: yes.

ViT-style class token prepended to the patch sequence: the learned (1, 1, C) token is tiled
to the batch size read from the shape; F.broadcast_like(token, x, lhs_axes=(0,),
rhs_axes=(0,)) is exact.
"""
from mxnet import gluon, init


class ClassTokenConcat(gluon.HybridBlock):
    """Prepend a learned class token to (B, N, C) patch embeddings."""

    def __init__(self, units, **kwargs):
        super(ClassTokenConcat, self).__init__(**kwargs)
        with self.name_scope():
            self.cls_token = self.params.get('cls_token', shape=(1, 1, units), init=init.Normal(0.02))

    def hybrid_forward(self, F, x, cls_token):
        tokens = F.tile(cls_token, reps=(x.shape[0], 1, 1))
        return F.concat(tokens, x, dim=1)


EXAMPLES = {"ClassTokenConcat": {"kwargs": {"units": 4}, "args": [[3, 5, 4]]}}
