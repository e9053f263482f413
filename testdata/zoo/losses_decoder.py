"""Detection losses and a box decoder (gluon.loss / GluonCV coder style).

Hybridize-safe as written: ``_apply_weighting(F, loss, ...)`` is a module-level helper whose
optional weights are tested against ``None`` (never the tensors themselves); the decoder
splits with ``F.split(x, 4)`` and indexes the outputs (``F.split(...)[0]`` included); the
box standard deviations are a tuple of floats set in ``__init__``; ``x = list(x)`` turns the
split outputs into a list that is indexed by ints.
"""
import numbers

from mxnet import gluon


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """Apply optional scalar `weight` and per-sample `sample_weight` (gluon.loss style)."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)

    if weight is not None:
        assert isinstance(weight, numbers.Number), "weight must be a number"
        loss = loss * weight

    return loss


class SoftmaxCELoss(gluon.HybridBlock):
    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, smoothing=0.0, **kwargs):
        super(SoftmaxCELoss, self).__init__(**kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits
        self._weight = weight
        self._batch_axis = batch_axis
        self._smoothing = smoothing

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
            if self._smoothing > 0:
                smooth = -F.mean(pred, axis=self._axis, keepdims=True)
                loss = (1 - self._smoothing) * loss + self._smoothing * smooth
        else:
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class SmoothL1Loss(gluon.HybridBlock):
    def __init__(self, rho=1.0, **kwargs):
        super(SmoothL1Loss, self).__init__(**kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, mask):
        pred = F.broadcast_mul(pred, mask)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(loss))
        return F.sum(loss, axis=0, exclude=True)


class NormalizedBoxCenterDecoder(gluon.HybridBlock):
    def __init__(self, stds=(0.1, 0.1, 0.2, 0.2), convert_anchor=True, clip=None, **kwargs):
        super(NormalizedBoxCenterDecoder, self).__init__(**kwargs)
        assert len(stds) == 4, "Box Encoder requires 4 std values."
        self._stds = stds
        self._clip = clip
        self._convert_anchor = convert_anchor

    def _corner_to_center(self, F, x):
        xmin, ymin, xmax, ymax = F.split(x, axis=-1, num_outputs=4)
        width = xmax - xmin
        height = ymax - ymin
        x = xmin + width * 0.5
        y = ymin + height * 0.5
        return [x, y, width, height]

    def hybrid_forward(self, F, x, anchors):
        if self._convert_anchor:
            a = self._corner_to_center(F, anchors)
        else:
            a = anchors.split(axis=-1, num_outputs=4)
        p = F.split(x, axis=-1, num_outputs=4)
        p = list(p)
        ox = F.broadcast_add(F.broadcast_mul(p[0] * self._stds[0], a[2]), a[0])
        oy = F.broadcast_add(F.broadcast_mul(p[1] * self._stds[1], a[3]), a[1])
        dw = p[2] * self._stds[2]
        dh = p[3] * self._stds[3]
        if self._clip:
            dw = F.minimum(dw, self._clip)
            dh = F.minimum(dh, self._clip)
        dw = F.exp(dw)
        dh = F.exp(dh)
        ow = F.broadcast_mul(dw, a[2]) * 0.5
        oh = F.broadcast_mul(dh, a[3]) * 0.5
        first = F.split(x, 2, axis=-1)[0]
        return F.concat(ox - ow, oy - oh, ox + ow, oy + oh, dim=-1), first


class DetectionLoss(gluon.HybridBlock):
    """Classification + box regression, with decoded boxes for monitoring."""

    def __init__(self, **kwargs):
        super(DetectionLoss, self).__init__(**kwargs)
        with self.name_scope():
            self.cls_loss = SoftmaxCELoss(smoothing=0.1)
            self.box_loss = SmoothL1Loss()
            self.decoder = NormalizedBoxCenterDecoder(clip=4.0)

    def hybrid_forward(self, F, cls_pred, cls_target, box_pred, box_target, anchors):
        # cls_pred (B, N, C), cls_target (B, N), box_pred/box_target (B, N, 4), anchors (1, N, 4)
        positive = F.expand_dims(cls_target > 0, axis=-1)
        cls = self.cls_loss(cls_pred, cls_target)
        box = self.box_loss(box_pred, box_target, positive)
        boxes, _ = self.decoder(box_pred, anchors)
        return cls + box, boxes


def build():
    return DetectionLoss(prefix='detloss_'), [(2, 6, 4), (2, 6), (2, 6, 4), (2, 6, 4),
                                               (1, 6, 4)]


def example_inputs(rng):
    anchors = rng.uniform(0, 0.5, size=(1, 6, 4))
    anchors[..., 2:] += 0.5  # xmax > xmin, ymax > ymin
    return [rng.normal(size=(2, 6, 4)).astype('float32'),
            rng.randint(0, 4, size=(2, 6)).astype('float32'),
            rng.normal(scale=0.5, size=(2, 6, 4)).astype('float32'),
            rng.normal(scale=0.5, size=(2, 6, 4)).astype('float32'),
            anchors.astype('float32')]
