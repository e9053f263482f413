"""Hazards: tensor-iteration. Exact rewrite: yes.

GluonTS-style decoder with a fixed prediction length iterating over a (T, B, C) tensor with
enumerate; T is the model's prediction_length, so F.split(x, num_outputs=T, axis=0,
squeeze_axis=True) is exact.

StepwiseForecaster is the GluonTS-style parent that builds the decoder and calls it with its
encoder's output transposed to time-major (T, B, C): alone, an input that is only iterated
is taken for a list of arrays (issue 11's policy, gluon passes those the same way); the
parent's call site is what shows the decoder gets one tensor.
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


class StepwiseForecaster(gluon.HybridBlock):
    """Encodes (B, T, C) features per step and decodes them time-major."""

    def __init__(self, prediction_length=3, hidden=4, units=2, **kwargs):
        super(StepwiseForecaster, self).__init__(**kwargs)
        with self.name_scope():
            self.encoder = nn.Dense(hidden, flatten=False)
            self.decoder = StepwiseDecoder(prediction_length, units)

    def hybrid_forward(self, F, past):
        encoded = self.encoder(past)
        return self.decoder(F.transpose(encoded, axes=(1, 0, 2)))


# the parent is the call-site context of issue 11, not a measured block
CONTEXT = ("StepwiseForecaster",)

EXAMPLES = {"StepwiseDecoder": {"kwargs": {"prediction_length": 3, "units": 2},
                                "args": [[3, 2, 4]]}}
