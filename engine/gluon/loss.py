"""`gluon.loss`: the loss HybridBlocks of MXNet 1.9.1 that need no special operator.

User code subclasses `Loss` and combines these in hybrid_forward, so they follow MXNet's
formulas, defaults, reprs and reductions (mean over every axis but `batch_axis`), and MXNet's
own hazards: PoissonNLLLoss(compute_full=True) updates in place and SDMLLoss reads `.shape`, so
both fail hybridized as they do in MXNet. A loss the engine lacks raises NotImplementedError
through the module's __getattr__.
"""

import numpy as np

from .. import ndarray
from ..base import numeric_types
from ..compat import proxy_of
from .block import HybridBlock

__all__ = [
    "Loss",
    "L2Loss",
    "L1Loss",
    "SigmoidBinaryCrossEntropyLoss",
    "SigmoidBCELoss",
    "SoftmaxCrossEntropyLoss",
    "SoftmaxCELoss",
    "KLDivLoss",
    "HuberLoss",
    "HingeLoss",
    "SquaredHingeLoss",
    "LogisticLoss",
    "TripletLoss",
    "PoissonNLLLoss",
    "CosineEmbeddingLoss",
    "CTCLoss",
    "SDMLLoss",
]

_ND = proxy_of(ndarray)  # the F of eager calls


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numeric_types):
            raise AssertionError("weight must be a number")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    if F is _ND:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class: a scalar `weight` and the `batch_axis` kept by the final reduction."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self) -> str:
        return "{name}(batch_axis={_batch_axis}, w={_weight})".format(
            name=self.__class__.__name__, **self.__dict__
        )

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """weight/2 * (label - pred)^2, averaged per sample."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L1Loss(Loss):
    """|label - pred|, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = _apply_weighting(F, F.abs(label - pred), self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross entropy on logits (numerically stable form) or on probabilities."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = (
                    pred
                    - pred * label
                    + log_weight * (F.Activation(-F.abs(pred), act_type="softrelu") + F.relu(-pred))
                )
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
            else:
                loss = -(
                    F.broadcast_mul(F.log(pred + eps) * label, pos_weight)
                    + F.log(1.0 - pred + eps) * (1.0 - label)
                )
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """-log softmax(pred)[label] (sparse labels) or -sum(label * log softmax(pred))."""

    def __init__(
        self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs
    ):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -(pred * label).sum(axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return loss.mean(axis=self._batch_axis, exclude=True)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """label * (log(label) - pred), pred being log-probabilities unless from_logits=False."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class HuberLoss(Loss):
    """Smooth L1: quadratic below rho, linear above."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho, (0.5 / self._rho) * F.square(loss))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class HingeLoss(Loss):
    """max(0, margin - pred * label) with labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class SquaredHingeLoss(Loss):
    """max(0, margin - pred * label)^2."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class LogisticLoss(Loss):
    """log(1 + exp(-pred * label)) with signed or binary labels."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if self._label_format not in ["signed", "binary"]:
            raise ValueError(
                "label_format can only be signed or binary, recieved %s." % label_format
            )

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class TripletLoss(Loss):
    """max(0, |pos - pred|^2 - |neg - pred|^2 + margin)."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(
            F.square(positive - pred) - F.square(negative - pred),
            axis=self._batch_axis,
            exclude=True,
        )
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Poisson negative log likelihood, averaged over all elements."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            # in place, as MXNet 1.9.1's own loss.py writes it: hybridized, `*=` on a Symbol
            # raises NotImplementedForSymbol there, so a block using this option fails alike
            stirling_factor = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            stirling_factor *= target > 1  # hybridlint: ignore[HL004]: MXNet's own
            loss += stirling_factor  # hybridlint: ignore[HL004]: MXNet's own
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """1 - cos(x1, x2) for label 1, max(0, cos - margin) for label -1."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        z_array = F.array([0]) if F is _ND else F.zeros((1, 1))
        cos_sim_b = F.broadcast_maximum(z_array, y_minus_1 * (cos_sim - self._margin), axis=1)
        loss = cos_sim_a + cos_sim_b
        return _apply_weighting(F, loss, self._weight, sample_weight)

    def _cosine_similarity(self, F, x, y, axis=-1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        x_dot_y = F.sum(x * y, axis=axis).reshape((-1, 1))
        eps_arr = F.array([1e-12]) if F is _ND else F.full((1, 1), 1e-12)
        return x_dot_y / F.broadcast_maximum(x_norm * y_norm, eps_arr)


class CTCLoss(Loss):
    """Connectionist Temporal Classification loss over `pred` (`layout` NTC or TNC) and
    `label` (`label_layout` NT or TN), the blank being the last class, with optional lengths."""

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        assert layout in ["NTC", "TNC"], (
            "Only 'NTC' and 'TNC' layouts for pred are supported. Got: %s" % layout
        )
        assert label_layout in ["NT", "TN"], (
            "Only 'NT' and 'TN' layouts for label are supported. Got: %s" % label_layout
        )
        self._layout = layout
        self._label_layout = label_layout
        batch_axis = label_layout.find("N")
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(
        self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None
    ):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)  # the operator takes time first
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(
            pred,
            label,
            pred_lengths,
            label_lengths,
            use_data_lengths=pred_lengths is not None,
            use_label_lengths=label_lengths is not None,
            blank_label="last",
        )
        return _apply_weighting(F, loss, self._weight, sample_weight)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss of two aligned minibatches (batch, dim): the
    KL divergence between the softmax of minus the pairwise squared distances and labels that
    put 1 - `smoothing_parameter` on each row's own pair. Like MXNet 1.9.1's, it reads the
    inputs' `.shape` and `.context`, so hybridized it fails (AttributeError on a Symbol)."""

    def __init__(self, smoothing_parameter=0.3, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        """(batch, batch) squared Euclidean distances between the rows of x1 and of x2."""
        assert x1.shape == x2.shape  # hybridlint: ignore[HL001]: MXNet's own
        batch_size, dim = x1.shape  # hybridlint: ignore[HL001]: MXNet's own
        rows = x1.expand_dims(1).broadcast_to([batch_size, batch_size, dim])
        cols = x2.expand_dims(0).broadcast_to([batch_size, batch_size, dim])
        return ((rows - cols) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size):
        gold = F.eye(batch_size)
        off = (1 - gold) * self.smoothing_parameter / (batch_size - 1)
        return gold * (1 - self.smoothing_parameter) + off

    def _loss(self, F, x1, x2):
        batch_size = x1.shape[0]  # hybridlint: ignore[HL001]: MXNet's own
        labels = self._compute_labels(F, batch_size)
        distances = self._compute_distances(x1, x2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        # the KL divergence averaged over each row's pairs (MXNet 1.9.1 no longer scales it)
        context = distances.context  # hybridlint: ignore[HL001]: MXNet's own
        return self.kl_loss(log_probabilities, labels.as_in_context(context))

    def hybrid_forward(self, F, x1, x2):
        return self._loss(F, x1, x2)


def __getattr__(name):
    """Losses the engine lacks say so."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..base import engine_not_implemented

    engine_not_implemented("gluon.loss." + name)
