"""Transformer encoder layer with hazards in helpers (GluonNLP style code gone wrong).

Expected findings, one per line as `* CODE line N `snippet``:

* HL007 line 20 `x = x - mean`: `mean` reduced with keepdims=True, in the module-level helper `_layer_norm(F, ...)`
* HL007 line 22 `x / F.sqrt(var + eps)`: `var` reduced with keepdims=True; `eps` is the helper's default 1e-5
* HL009 line 40 `print(att)`: prints the attention weights once, while tracing (helper method `_attend`)
* HL009 line 41 `len(q)`: 1 under hybridize (the number of outputs), the batch size eagerly
* HL006 line 45 `nd.ones_like(x)`: `nd` is `import mxnet.ndarray as nd`
* HL001 line 46 `x.shape[1]`: positions from the sequence length of a tensor
* HL004 line 49 `h += self.ffn(h)`: in-place add on a tensor
"""
import mxnet.ndarray as nd
from mxnet import gluon
from mxnet.gluon import nn


def _layer_norm(F, x, gamma, beta, eps=1e-5):
    mean = F.mean(x, axis=-1, keepdims=True)
    x = x - mean
    var = F.mean(F.square(x), axis=-1, keepdims=True)
    x = x / F.sqrt(var + eps)
    return F.broadcast_add(F.broadcast_mul(x, gamma), beta)


class EncoderLayer(gluon.HybridBlock):
    def __init__(self, units=8, max_length=32, **kwargs):
        super(EncoderLayer, self).__init__(**kwargs)
        self._units = units
        self._max_length = max_length
        with self.name_scope():
            self.gamma = self.params.get('gamma', shape=(units,), init='ones')
            self.beta = self.params.get('beta', shape=(units,), init='zeros')
            self.pos_embed = nn.Embedding(max_length, units)
            self.ffn = nn.Dense(units, flatten=False)

    def _attend(self, F, q, k):
        score = F.batch_dot(q, k, transpose_b=True)
        att = F.softmax(score / (self._units ** 0.5), axis=-1)
        print(att)
        scale = 1.0 / len(q)
        return F.batch_dot(att, k) * scale

    def hybrid_forward(self, F, x, gamma, beta):
        mask = nd.ones_like(x)
        steps = F.arange(x.shape[1])
        h = F.broadcast_add(x, F.expand_dims(self.pos_embed(steps), axis=0)) * mask
        h = self._attend(F, h, h)
        h += self.ffn(h)
        return _layer_norm(F, h, gamma, beta)
