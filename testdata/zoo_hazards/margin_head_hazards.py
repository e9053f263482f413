"""Face-recognition margin head with `_` as namespace (insightface style code gone wrong).

Expected findings, one per line as `* CODE line N `snippet``:

* HL005 line 29 `mx.nd.array([1.0, 1.0, 2.0, 0.5])`: class weights built from a Python list in hybrid_forward
* HL005 line 30 `np.array([0.1, 0.2, 0.3, 0.4])`: a numpy array fed to an `_.` operator
* HL001 line 31 `_.zeros(x.shape)`: a zeros tensor shaped like x (fix: `_.zeros_like(x)`)
* HL001 line 32 `x.context`: the context of a tensor passed as ctx
* HL001 line 34 `nweight.T`: `.T` of a tensor
* HL008 line 35 `for row in x:`: iterating a tensor
* HL009 line 37 `logging.info('features %s', x)`: logging a tensor
"""
import logging

import mxnet as mx
import numpy as np
from mxnet import gluon


class MarginHead(gluon.HybridBlock):
    def __init__(self, classes=4, units=8, s=30.0, **kwargs):
        super(MarginHead, self).__init__(**kwargs)
        self._classes = classes
        self._s = s
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(classes, units))

    def hybrid_forward(self, _, x, label, weight):
        class_weight = mx.nd.array([1.0, 1.0, 2.0, 0.5])
        margins = _.broadcast_mul(_.one_hot(label, self._classes), np.array([0.1, 0.2, 0.3, 0.4]))
        acc = _.zeros(x.shape)
        noise = _.random.normal(0, 0.01, shape=(1, 8), ctx=x.context)
        nweight = _.L2Normalization(weight)
        cos = _.dot(_.L2Normalization(x), nweight.T)
        for row in x:
            acc = acc + row
        logging.info('features %s', x)
        logits = _.broadcast_mul(cos - margins, class_weight) * self._s
        return logits, _.broadcast_add(acc, noise)
