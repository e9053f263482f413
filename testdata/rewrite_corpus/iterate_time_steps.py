"""Hazards: tensor-iteration. Exact rewrite: yes.

GluonTS-style decoder with a fixed prediction length iterating over a (T, B, C) tensor with
enumerate; T is the model's prediction_length, so F.split(x, num_outputs=T, axis=0,
squeeze_axis=True) is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class StepwiseDecoder(gluon.HybridBlock):
    """A separate Dense per horizon step, outputs stacked to (T, B, units)."""

    def __init__(self, prediction_length, units, **kwargs):
        super(StepwiseDecoder, self).__init__(**kwargs)
        with self.name_scope():
            self.heads = nn.HybridSequential()
            for _ in range(prediction_length):
                self.heads.add(nn.Dense(units))

    def hybrid_forward(self, F, x):
        outs = [self.heads[t](step) for t, step in enumerate(x)]
        return F.stack(*outs, axis=0)


EXAMPLES = {"StepwiseDecoder": {"kwargs": {"prediction_length": 3, "units": 2},
                                "args": [[3, 2, 4]]}}
