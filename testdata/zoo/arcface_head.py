"""ArcFace-style margin classifier (insightface style), namespace parameter named ``_``.

Hybridize-safe as written: features and class centres are L2-normalised, the margin is added
to the target logit through ``pick``/``one_hot`` arithmetic, the weight's shape is read from
the Parameter, and the scale and margins are Python floats set in ``__init__``.
"""
import math

from mxnet import gluon


class ArcMarginHead(gluon.HybridBlock):
    def __init__(self, classes, in_units, s=64.0, m=0.5, easy_margin=False, **kwargs):
        super(ArcMarginHead, self).__init__(**kwargs)
        self._classes = classes
        self.s = s
        self.m = m
        self.cos_m = math.cos(m)
        self.sin_m = math.sin(m)
        self.th = math.cos(math.pi - m)
        self.mm = math.sin(math.pi - m) * m
        self.easy_margin = easy_margin
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(classes, in_units), init='xavier')

    def hybrid_forward(self, _, embedding, label, weight):
        nembedding = _.L2Normalization(embedding, mode='instance')
        nweight = _.L2Normalization(weight, mode='instance')
        cos_t = _.FullyConnected(nembedding, nweight, no_bias=True,
                                 num_hidden=self.weight.shape[0])
        cos_t = _.clip(cos_t, -1.0 + 1e-7, 1.0 - 1e-7)
        zy = _.pick(cos_t, label, axis=1)
        sin_t = _.sqrt(1.0 - zy * zy)
        cos_tm = zy * self.cos_m - sin_t * self.sin_m
        if self.easy_margin:
            cond = _.relu(zy)
        else:
            cond = _.relu(zy - self.th)
        keep = zy - self.mm
        new_zy = _.where(cond, cos_tm, keep)
        diff = _.expand_dims(new_zy - zy, axis=1)
        gt_one_hot = _.one_hot(label, depth=self._classes, on_value=1.0, off_value=0.0)
        body = _.broadcast_mul(gt_one_hot, diff)
        logits = (cos_t + body) * self.s
        return logits


def build():
    return ArcMarginHead(classes=6, in_units=8, prefix='arc_'), [(4, 8), (4,)]


def example_inputs(rng):
    return [rng.normal(size=(4, 8)).astype('float32'),
            rng.randint(0, 6, size=(4,)).astype('float32')]
