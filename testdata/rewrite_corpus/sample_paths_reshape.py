"""Hazards: reshape-codes. Exact rewrite: yes.

GluonTS-style sampling head: (B * S, T) sample paths reshaped to (B, S, T) with a target
built as `(-1, self.num_samples) + samples.shape[1:]`; codes (-4, -1, S, -2) are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class SamplePathsHead(gluon.HybridBlock):
    """Project repeated inputs to paths and group them per series."""

    def __init__(self, num_samples, horizon, **kwargs):
        super(SamplePathsHead, self).__init__(**kwargs)
        self.num_samples = num_samples
        with self.name_scope():
            self.proj = nn.Dense(horizon)

    def hybrid_forward(self, F, x):
        repeated = F.repeat(x, repeats=self.num_samples, axis=0)
        samples = self.proj(repeated)
        return samples.reshape(shape=(-1, self.num_samples) + samples.shape[1:])


EXAMPLES = {"SamplePathsHead": {"kwargs": {"num_samples": 3, "horizon": 4}, "args": [[2, 5]]}}
