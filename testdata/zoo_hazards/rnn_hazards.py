"""A GRU-style decoder with data-dependent loops (sockeye/d2l style code gone wrong).

Expected findings, one per line as `* CODE line N `snippet``:

* HL002 line 18 `.asscalar()`: reading values in the module-level helper `_keep_ratio(F, mask)`
* HL008 line 43 `for t in range(inputs.shape[1])`: a Python loop over the length of a tensor ...
* HL001 line 43 `range(inputs.shape[1])`: ... read from `.shape`
* HL003 line 44 `inputs[:, t]`: a time step picked by indexing
* HL007 line 48 `out * F.expand_dims(mask, axis=-1)`: (B, T, H) times (B, T, 1) without broadcast_mul
* HL008 line 48 `if F.sum(mask) > 0 else out`: a ternary decided by a tensor value
* HL003 line 50 `out[0] = 0`: slice assignment
"""
from mxnet import gluon
from mxnet.gluon import nn


def _keep_ratio(F, mask):
    return float(F.mean(mask).asscalar())


class GRUDecoder(gluon.HybridBlock):
    def __init__(self, hidden=6, **kwargs):
        super(GRUDecoder, self).__init__(**kwargs)
        self._hidden = hidden
        with self.name_scope():
            self.i2h = nn.Dense(3 * hidden, flatten=False)
            self.h2h = nn.Dense(3 * hidden, flatten=False)

    def _step(self, F, x, h):
        i2h = self.i2h(x)
        h2h = self.h2h(h)
        i_r, i_z, i_n = F.split(i2h, num_outputs=3, axis=-1)
        h_r, h_z, h_n = F.split(h2h, num_outputs=3, axis=-1)
        r = F.sigmoid(i_r + h_r)
        z = F.sigmoid(i_z + h_z)
        n = F.tanh(i_n + r * h_n)
        return (1 - z) * n + z * h

    def hybrid_forward(self, F, inputs, mask):
        first = self.i2h(F.slice_axis(inputs, axis=1, begin=0, end=1).reshape((0, -1)))
        h = F.zeros_like(F.slice_axis(first, axis=-1, begin=0, end=self._hidden))
        outputs = []
        for t in range(inputs.shape[1]):
            x = inputs[:, t]
            h = self._step(F, x, h)
            outputs.append(h)
        out = F.stack(*outputs, axis=1)
        out = out * F.expand_dims(mask, axis=-1) if F.sum(mask) > 0 else out
        ratio = _keep_ratio(F, mask)
        out[0] = 0
        return out * ratio
