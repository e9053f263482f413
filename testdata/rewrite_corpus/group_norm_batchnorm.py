"""Hazards: creation-like. Exact rewrite: no (BatchNorm's moving statistics must be graph Variables: a created array, even a static F.zeros(4), fails hybridized with "Mutation target can only be Variable", and no Parameter can have a batch-dependent (B*G,) shape).

Group normalization through BatchNorm on a (1, B*G, -1) view (gluoncv2 style), with unit
gamma and zero beta made by F.ones/F.zeros(batch * groups) from the shape. First written as
exact (ones/zeros like a (B*G,) reduction of the view); checked on MXNet 1.9.1, the aux-state
inputs reject any computed array, so the block stays reported.
"""
from mxnet import gluon, init


class GroupNorm(gluon.HybridBlock):
    """Normalise each group of channels, then a per-channel affine transform."""

    def __init__(self, channels, num_groups, eps=1e-5, **kwargs):
        super(GroupNorm, self).__init__(**kwargs)
        self._groups = num_groups
        self._eps = eps
        with self.name_scope():
            self.gamma = self.params.get('gamma', shape=(1, channels, 1, 1), init=init.One())
            self.beta = self.params.get('beta', shape=(1, channels, 1, 1), init=init.Zero())

    def hybrid_forward(self, F, x, gamma, beta):
        batch = x.shape[0]
        grouped = x.reshape((1, -3, -1)).reshape((1, batch * self._groups, -1))
        normed = F.BatchNorm(grouped, F.ones(batch * self._groups), F.zeros(batch * self._groups),
                             F.zeros(batch * self._groups), F.ones(batch * self._groups),
                             eps=self._eps, use_global_stats=False, fix_gamma=False)
        normed = F.reshape_like(normed, x)
        return F.broadcast_add(F.broadcast_mul(normed, gamma), beta)


EXAMPLES = {"GroupNorm": {"kwargs": {"channels": 4, "num_groups": 2}, "args": [[2, 4, 3, 3]]}}
