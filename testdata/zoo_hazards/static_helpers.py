"""Hazards in @staticmethod / @classmethod helpers (GluonCV style code gone wrong).

Expected findings, one per line as `* CODE line N `snippet``:

* HL001 line 25 `x.shape[0]`: flattening by the batch size in a static helper `_flatten(F, x)`
* HL003 line 29 `x[:, 0]`: the first channel by indexing in a class-method helper
* HL001 line 33 `x.shape[1]`: a static helper called through the class name (`PoolHead._width(F, x)`)
* HL003 line 39 `x[:, :, 0]`: a static helper of another module class (`Pick._first_row(F, x)`)
"""
from mxnet.gluon import HybridBlock, nn


class PoolHead(HybridBlock):
    def __init__(self, classes=4, **kwargs):
        super(PoolHead, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        gate = F.sigmoid(self._first_channel(F, x))
        return self.fc(self._flatten(F, F.broadcast_mul(x, gate)))

    @staticmethod
    def _flatten(F, x):
        return x.reshape((x.shape[0], -1))

    @classmethod
    def _first_channel(cls, F, x):
        return F.expand_dims(x[:, 0], axis=1)

    @staticmethod
    def _width(F, x):
        return x.shape[1]


class Pick(HybridBlock):
    @staticmethod
    def _first_row(F, x):
        return x[:, :, 0]

    def hybrid_forward(self, F, x):
        return F.slice_axis(Pick._first_row(F, x), axis=1, begin=0, end=PoolHead._width(F, x))
