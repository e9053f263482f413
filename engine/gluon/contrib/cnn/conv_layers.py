"""MXNet 1.9.1's `gluon.contrib.cnn` layers: DeformableConvolution and
ModulatedDeformableConvolution. Each holds a plain Convolution that predicts the offsets (and,
for DCNv2, the masks: sigmoid * 2) from the input, then runs the contrib op
(engine/ops/deformable.py) with MXNet's parameter names, shapes and initializers."""

from .... import symbol
from ....base import numeric_types
from ...block import HybridBlock
from ...nn import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


class _Deformable(HybridBlock):
    """The shared constructor: offset conv parameters, the deformable conv's weight/bias."""

    _OFFSETS_PER_TAP = 2

    def __init__(
        self,
        channels,
        kernel_size,
        strides,
        padding,
        dilation,
        groups,
        num_deformable_group,
        layout,
        use_bias,
        in_channels,
        activation,
        weight_initializer,
        bias_initializer,
        offset_weight_initializer,
        offset_bias_initializer,
        offset_use_bias,
        op_name,
        adj,
        prefix,
        params,
    ):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            assert layout in ("NCHW", "NHWC"), "Only supports 'NCHW' and 'NHWC' layout for now"
            if isinstance(kernel_size, numeric_types):
                kernel_size = (kernel_size,) * 2
            if isinstance(strides, numeric_types):
                strides = (strides,) * len(kernel_size)
            if isinstance(padding, numeric_types):
                padding = (padding,) * len(kernel_size)
            if isinstance(dilation, numeric_types):
                dilation = (dilation,) * len(kernel_size)
            self._op_name = op_name
            taps = kernel_size[0] * kernel_size[1] * num_deformable_group
            self.offset_split_index = 2 * taps
            self._kwargs_offset = {
                "kernel": kernel_size,
                "stride": strides,
                "dilate": dilation,
                "pad": padding,
                "num_filter": self._OFFSETS_PER_TAP * taps,
                "num_group": groups,
                "no_bias": not offset_use_bias,
                "layout": layout,
            }
            self._kwargs_deformable_conv = {
                "kernel": kernel_size,
                "stride": strides,
                "dilate": dilation,
                "pad": padding,
                "num_filter": channels,
                "num_group": groups,
                "num_deformable_group": num_deformable_group,
                "no_bias": not use_bias,
                "layout": layout,
            }
            if adj:
                self._kwargs_offset["adj"] = adj
                self._kwargs_deformable_conv["adj"] = adj
            weight_shape = [0] * (len(kernel_size) + 2)
            weight_shape[0] = channels
            weight_shape[2] = kernel_size[0]
            weight_shape[3] = kernel_size[1]
            self._make_params(
                weight_shape,
                use_bias,
                channels,
                weight_initializer,
                bias_initializer,
                layout,
                in_channels,
                kernel_size,
                offset_weight_initializer,
                offset_bias_initializer,
                offset_use_bias,
            )
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _offset_params(self, layout, in_channels, kernel_size, weight_init, bias_init, use_bias):
        dshape = [0] * (len(kernel_size) + 2)
        dshape[layout.find("N")] = 1
        dshape[layout.find("C")] = in_channels
        offset = symbol.Convolution(symbol.var("data", shape=dshape), **self._kwargs_offset)
        shapes = offset.infer_shape_partial()[0]
        self.offset_weight = self.params.get(
            "offset_weight", shape=shapes[1], init=weight_init, allow_deferred_init=True
        )
        self.offset_bias = (
            self.params.get(
                "offset_bias", shape=shapes[2], init=bias_init, allow_deferred_init=True
            )
            if use_bias
            else None
        )

    def _conv_params(self, weight_shape, use_bias, channels, weight_init, bias_init):
        self.deformable_conv_weight = self.params.get(
            "deformable_conv_weight", shape=weight_shape, init=weight_init, allow_deferred_init=True
        )
        self.deformable_conv_bias = (
            self.params.get(
                "deformable_conv_bias", shape=(channels,), init=bias_init, allow_deferred_init=True
            )
            if use_bias
            else None
        )

    def _offsets(self, F, x, offset_weight, offset_bias):
        if offset_bias is None:
            return F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        return F.Convolution(x, offset_weight, offset_bias, cudnn_off=True, **self._kwargs_offset)

    def __repr__(self) -> str:
        s = "{name}({mapping}, kernel_size={kernel}, stride={stride}"
        len_kernel_size = len(self._kwargs_deformable_conv["kernel"])
        if self._kwargs_deformable_conv["pad"] != (0,) * len_kernel_size:
            s += ", padding={pad}"
        if self._kwargs_deformable_conv["dilate"] != (1,) * len_kernel_size:
            s += ", dilation={dilate}"
        if self._kwargs_deformable_conv["num_group"] != 1:
            s += ", groups={num_group}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act:
            s += ", {}".format(self.act)
        s += ")"
        shape = self.deformable_conv_weight.shape
        return s.format(
            name=self.__class__.__name__,
            mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]),
            **self._kwargs_deformable_conv,
        )


class DeformableConvolution(_Deformable):
    """2-D deformable convolution (Dai et al. 2017), offsets from a zero-initialised conv."""

    def __init__(
        self,
        channels,
        kernel_size=(1, 1),
        strides=(1, 1),
        padding=(0, 0),
        dilation=(1, 1),
        groups=1,
        num_deformable_group=1,
        layout="NCHW",
        use_bias=True,
        in_channels=0,
        activation=None,
        weight_initializer=None,
        bias_initializer="zeros",
        offset_weight_initializer="zeros",
        offset_bias_initializer="zeros",
        offset_use_bias=True,
        op_name="DeformableConvolution",
        adj=None,
        prefix=None,
        params=None,
    ):
        super().__init__(
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            num_deformable_group,
            layout,
            use_bias,
            in_channels,
            activation,
            weight_initializer,
            bias_initializer,
            offset_weight_initializer,
            offset_bias_initializer,
            offset_use_bias,
            op_name,
            adj,
            prefix,
            params,
        )

    def _make_params(
        self,
        weight_shape,
        use_bias,
        channels,
        weight_init,
        bias_init,
        layout,
        in_channels,
        kernel_size,
        offset_weight_init,
        offset_bias_init,
        offset_use_bias,
    ):
        # MXNet registers the offset conv's parameters first here
        self._offset_params(
            layout, in_channels, kernel_size, offset_weight_init, offset_bias_init, offset_use_bias
        )
        self._conv_params(weight_shape, use_bias, channels, weight_init, bias_init)

    def hybrid_forward(
        self,
        F,
        x,
        offset_weight,
        deformable_conv_weight,
        offset_bias=None,
        deformable_conv_bias=None,
    ):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        if deformable_conv_bias is None:
            act = F.contrib.DeformableConvolution(
                data=x,
                offset=offset,
                weight=deformable_conv_weight,
                name="fwd",
                **self._kwargs_deformable_conv,
            )
        else:
            act = F.contrib.DeformableConvolution(
                data=x,
                offset=offset,
                weight=deformable_conv_weight,
                bias=deformable_conv_bias,
                name="fwd",
                **self._kwargs_deformable_conv,
            )
        if self.act:
            act = self.act(act)
        return act

    def _alias(self) -> str:
        return "deformable_conv"


class ModulatedDeformableConvolution(_Deformable):
    """2-D modulated deformable convolution (DCNv2, Zhu et al. 2018): the offset conv also
    predicts one mask per tap, used as sigmoid(mask) * 2."""

    _OFFSETS_PER_TAP = 3

    def __init__(
        self,
        channels,
        kernel_size=(1, 1),
        strides=(1, 1),
        padding=(0, 0),
        dilation=(1, 1),
        groups=1,
        num_deformable_group=1,
        layout="NCHW",
        use_bias=True,
        in_channels=0,
        activation=None,
        weight_initializer=None,
        bias_initializer="zeros",
        offset_weight_initializer="zeros",
        offset_bias_initializer="zeros",
        offset_use_bias=True,
        op_name="ModulatedDeformableConvolution",
        adj=None,
        prefix=None,
        params=None,
    ):
        super().__init__(
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            num_deformable_group,
            layout,
            use_bias,
            in_channels,
            activation,
            weight_initializer,
            bias_initializer,
            offset_weight_initializer,
            offset_bias_initializer,
            offset_use_bias,
            op_name,
            adj,
            prefix,
            params,
        )

    def _make_params(
        self,
        weight_shape,
        use_bias,
        channels,
        weight_init,
        bias_init,
        layout,
        in_channels,
        kernel_size,
        offset_weight_init,
        offset_bias_init,
        offset_use_bias,
    ):
        # and the deformable conv's first here
        self._conv_params(weight_shape, use_bias, channels, weight_init, bias_init)
        self._offset_params(
            layout, in_channels, kernel_size, offset_weight_init, offset_bias_init, offset_use_bias
        )

    def hybrid_forward(
        self,
        F,
        x,
        offset_weight,
        deformable_conv_weight,
        offset_bias=None,
        deformable_conv_bias=None,
    ):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
        mask = F.slice_axis(offset, axis=1, begin=self.offset_split_index, end=None)
        mask = F.sigmoid(mask) * 2
        if deformable_conv_bias is None:
            act = F.contrib.ModulatedDeformableConvolution(
                data=x,
                offset=offset_t,
                mask=mask,
                weight=deformable_conv_weight,
                name="fwd",
                **self._kwargs_deformable_conv,
            )
        else:
            act = F.contrib.ModulatedDeformableConvolution(
                data=x,
                offset=offset_t,
                mask=mask,
                weight=deformable_conv_weight,
                bias=deformable_conv_bias,
                name="fwd",
                **self._kwargs_deformable_conv,
            )
        if self.act:
            act = self.act(act)
        return act

    def _alias(self) -> str:
        return "modulated_deformable_conv"

    __repr__ = HybridBlock.__repr__  # MXNet gives this layer no repr of its own
