"""Losses written the way mxnet.gluon.loss writes them: hybridize-safe as written.

``_reshape_like(F, x, y)`` reads ``y.shape`` only in the branch ``if F is ndarray:`` (eager,
``ndarray`` being ``from mxnet import ndarray``); the cosine similarity divides two column
vectors made by ``reshape((-1, 1))``; creation of a constant differs per namespace through a
ternary on ``F is ndarray``; optional weights are tested against None.
"""
import numbers

from mxnet import ndarray
from mxnet.gluon import HybridBlock


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        assert isinstance(weight, numbers.Number), "weight must be a number"
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """Reshapes x to the same shape as y."""
    if F is ndarray:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    def __init__(self, weight, batch_axis, **kwargs):
        super(Loss, self).__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super(L2Loss, self).__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class CosineEmbeddingLoss(Loss):
    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super(CosineEmbeddingLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        z_array = F.array([0]) if F is ndarray else F.zeros((1, 1))
        cos_sim_b = F.broadcast_maximum(z_array, y_minus_1 * (cos_sim - self._margin), axis=1)
        loss = cos_sim_a + cos_sim_b
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return loss

    def _cosine_similarity(self, F, x, y, axis=-1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        x_dot_y = F.sum(x * y, axis=axis).reshape((-1, 1))
        eps_arr = F.array([1e-12]) if F is ndarray else F.full((1, 1), 1e-12)
        return x_dot_y / F.broadcast_maximum(x_norm * y_norm, eps_arr)


class TripletLoss(Loss):
    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(TripletLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred),
                     axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class LossSuite(HybridBlock):
    def __init__(self, **kwargs):
        super(LossSuite, self).__init__(**kwargs)
        with self.name_scope():
            self.l2 = L2Loss()
            self.cosine = CosineEmbeddingLoss(margin=0.1)
            self.triplet = TripletLoss(margin=0.5)

    def hybrid_forward(self, F, a, b, c, label):
        return self.l2(a, b), self.cosine(a, b, label), self.triplet(a, b, c)


def build():
    return LossSuite(prefix='losses_'), [(4, 6), (4, 6), (4, 6), (4,)]


def example_inputs(rng):
    return [rng.normal(size=(4, 6)).astype('float32') for _ in range(3)] + \
        [rng.choice([-1.0, 1.0], size=(4,)).astype('float32')]
