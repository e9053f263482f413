"""Hazards: param-data, broadcast-arith. Exact rewrite: yes.

Knowledge-distillation head dividing by a learned temperature fetched with
`self.temperature.data()` (an NDArray that cannot meet a Symbol); the `temperature`
argument Gluon passes to hybrid_forward and F.broadcast_div are exact.
"""
from mxnet import gluon, init


class TemperatureSoftmax(gluon.HybridBlock):
    """softmax(logits / T) with a learned scalar temperature T."""

    def __init__(self, **kwargs):
        super(TemperatureSoftmax, self).__init__(**kwargs)
        with self.name_scope():
            self.temperature = self.params.get('temperature', shape=(1,), init=init.Constant(2.0))

    def hybrid_forward(self, F, logits, temperature):
        return F.softmax(logits / self.temperature.data(), axis=-1)


EXAMPLES = {"TemperatureSoftmax": {"args": [[2, 5]]}}
