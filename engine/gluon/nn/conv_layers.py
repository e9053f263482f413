"""Convolution and pooling layers with MXNet 1.9.1's attributes and weight-shape inference.

The weight shape is inferred, as in MXNet, by building the op on a partially known data
shape and asking `infer_shape_partial`; unknown dims stay 0 until the first forward pass.
"""

from ... import symbol
from ...compat import proxy_of
from ...base import numeric_types
from ..block import HybridBlock
from ..parameter import _check
from .activations import Activation, _activate_fresh

__all__ = [
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "ReflectionPad2D",
]


def _infer_weight_shape(op_name: str, data_shape, kwargs):
    data = symbol.var("data", shape=data_shape)
    sym = getattr(proxy_of(symbol), op_name)(data, **kwargs)
    return sym.infer_shape_partial()[0]


def _tuple(value, n: int):
    return (value,) * n if isinstance(value, numeric_types) else value


class _Conv(HybridBlock):
    """Shared body of Conv*D and Conv*DTranspose."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides,
        padding,
        dilation,
        groups,
        layout,
        in_channels=0,
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        op_name="Convolution",
        adj=None,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            strides = _tuple(strides, len(kernel_size))
            padding = _tuple(padding, len(kernel_size))
            dilation = _tuple(dilation, len(kernel_size))
            self._op_name = op_name
            self._kwargs = {
                "kernel": kernel_size,
                "stride": strides,
                "dilate": dilation,
                "pad": padding,
                "num_filter": channels,
                "num_group": groups,
                "no_bias": not use_bias,
                "layout": layout,
            }
            if adj is not None:
                self._kwargs["adj"] = adj
            dshape = [0] * (len(kernel_size) + 2)
            dshape[layout.find("N")] = 1
            dshape[layout.find("C")] = in_channels
            wshapes = _infer_weight_shape(op_name, dshape, self._kwargs)
            self.weight = self.params.get(
                "weight", shape=wshapes[1], init=weight_initializer, allow_deferred_init=True
            )
            if use_bias:
                self.bias = self.params.get(
                    "bias", shape=wshapes[2], init=bias_initializer, allow_deferred_init=True
                )
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            act = getattr(F, self._op_name)(x, weight, name="fwd", **self._kwargs)
        else:
            act = getattr(F, self._op_name)(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            act = _activate_fresh(self.act, act)  # in place when it can be
        return act

    def _alias(self) -> str:
        return "conv"

    def __repr__(self) -> str:
        s = "{name}({mapping}, kernel_size={kernel}, stride={stride}"
        n = len(self._kwargs["kernel"])
        if self._kwargs["pad"] != (0,) * n:
            s += ", padding={pad}"
        if self._kwargs["dilate"] != (1,) * n:
            s += ", dilation={dilate}"
        if hasattr(self, "out_pad") and self.out_pad != (0,) * n:
            s += ", output_padding={out_pad}".format(out_pad=self.out_pad)
        if self._kwargs["num_group"] != 1:
            s += ", groups={num_group}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += ", {}".format(self.act)
        s += ")"
        shape = self.weight.shape
        return s.format(
            name=self.__class__.__name__,
            mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]),
            **self._kwargs,
        )


def _conv_init(
    self,
    ndim,
    layouts,
    channels,
    kernel_size,
    strides,
    padding,
    dilation,
    groups,
    layout,
    activation,
    use_bias,
    weight_initializer,
    bias_initializer,
    in_channels,
    kwargs,
    default_op,
    output_padding=None,
):
    if len(layouts) == 1:
        _check(layout in layouts, "Only supports '%s' layout for now" % layouts[0])
    else:
        _check(
            layout in layouts,
            "Only supports %s layout for now" % " and ".join("'%s'" % x for x in layouts),
        )
    kernel_size = _tuple(kernel_size, ndim)
    _check(len(kernel_size) == ndim, "kernel_size must be a number or a list of %d ints" % ndim)
    op_name = kwargs.pop("op_name", default_op)
    if output_padding is not None:
        output_padding = _tuple(output_padding, ndim)
        _check(
            len(output_padding) == ndim,
            "output_padding must be a number or a list of %d ints" % ndim,
        )
        _Conv.__init__(
            self,
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            in_channels,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            op_name=op_name,
            adj=output_padding,
            **kwargs,
        )
        self.outpad = output_padding
    else:
        _Conv.__init__(
            self,
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            in_channels,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            op_name,
            **kwargs,
        )


class Conv1D(_Conv):
    """1-D convolution (NCW)."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=1,
        padding=0,
        dilation=1,
        groups=1,
        layout="NCW",
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        in_channels=0,
        **kwargs,
    ):
        _conv_init(
            self,
            1,
            ("NCW",),
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            kwargs,
            "Convolution",
        )


class Conv2D(_Conv):
    """2-D convolution (NCHW or NHWC)."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1),
        padding=(0, 0),
        dilation=(1, 1),
        groups=1,
        layout="NCHW",
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        in_channels=0,
        **kwargs,
    ):
        _conv_init(
            self,
            2,
            ("NCHW", "NHWC"),
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            kwargs,
            "Convolution",
        )


class Conv3D(_Conv):
    """3-D convolution (NCDHW or NDHWC)."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1, 1),
        padding=(0, 0, 0),
        dilation=(1, 1, 1),
        groups=1,
        layout="NCDHW",
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        in_channels=0,
        **kwargs,
    ):
        _conv_init(
            self,
            3,
            ("NCDHW", "NDHWC"),
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            kwargs,
            "Convolution",
        )


class Conv1DTranspose(_Conv):
    """1-D transposed convolution (Deconvolution)."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=1,
        padding=0,
        output_padding=0,
        dilation=1,
        groups=1,
        layout="NCW",
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        in_channels=0,
        **kwargs,
    ):
        _conv_init(
            self,
            1,
            ("NCW",),
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            kwargs,
            "Deconvolution",
            output_padding,
        )


class Conv2DTranspose(_Conv):
    """2-D transposed convolution (Deconvolution)."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1),
        padding=(0, 0),
        output_padding=(0, 0),
        dilation=(1, 1),
        groups=1,
        layout="NCHW",
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        in_channels=0,
        **kwargs,
    ):
        _conv_init(
            self,
            2,
            ("NCHW", "NHWC"),
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            kwargs,
            "Deconvolution",
            output_padding,
        )


class Conv3DTranspose(_Conv):
    """3-D transposed convolution (Deconvolution)."""

    def __init__(
        self,
        channels,
        kernel_size,
        strides=(1, 1, 1),
        padding=(0, 0, 0),
        output_padding=(0, 0, 0),
        dilation=(1, 1, 1),
        groups=1,
        layout="NCDHW",
        activation=None,
        use_bias=True,
        weight_initializer=None,
        bias_initializer="zeros",
        in_channels=0,
        **kwargs,
    ):
        _conv_init(
            self,
            3,
            ("NCDHW", "NDHWC"),
            channels,
            kernel_size,
            strides,
            padding,
            dilation,
            groups,
            layout,
            activation,
            use_bias,
            weight_initializer,
            bias_initializer,
            in_channels,
            kwargs,
            "Deconvolution",
            output_padding,
        )


class _Pooling(HybridBlock):
    """Shared body of the pooling layers (`Pooling` op, prefix `pool0_`)."""

    def __init__(
        self,
        pool_size,
        strides,
        padding,
        ceil_mode,
        global_pool,
        pool_type,
        layout,
        count_include_pad=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        strides = _tuple(strides, len(pool_size))
        padding = _tuple(padding, len(pool_size))
        self._kwargs = {
            "kernel": pool_size,
            "stride": strides,
            "pad": padding,
            "global_pool": global_pool,
            "pool_type": pool_type,
            "layout": layout,
            "pooling_convention": "full" if ceil_mode else "valid",
        }
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self) -> str:
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        s = "{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}"
        s += ", global_pool={global_pool}, pool_type={pool_type}, layout={layout})"
        return s.format(
            name=self.__class__.__name__,
            ceil_mode=self._kwargs["pooling_convention"] == "full",
            **self._kwargs,
        )


_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _pool_size(pool_size, ndim: int, layout: str):
    _check(
        layout in _LAYOUTS[ndim],
        "Only %s and %s layouts are valid for %dD Pooling" % (_LAYOUTS[ndim] + (ndim,)),
    )
    pool_size = _tuple(pool_size, ndim)
    _check(len(pool_size) == ndim, "pool_size must be a number or a list of %d ints" % ndim)
    return pool_size


class MaxPool1D(_Pooling):
    """1-D max pooling."""

    def __init__(
        self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False, **kwargs
    ):
        super().__init__(
            _pool_size(pool_size, 1, layout),
            strides,
            padding,
            ceil_mode,
            False,
            "max",
            layout,
            **kwargs,
        )


class MaxPool2D(_Pooling):
    """2-D max pooling."""

    def __init__(
        self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW", ceil_mode=False, **kwargs
    ):
        super().__init__(
            _pool_size(pool_size, 2, layout),
            strides,
            padding,
            ceil_mode,
            False,
            "max",
            layout,
            **kwargs,
        )


class MaxPool3D(_Pooling):
    """3-D max pooling."""

    def __init__(
        self,
        pool_size=(2, 2, 2),
        strides=None,
        padding=0,
        ceil_mode=False,
        layout="NCDHW",
        **kwargs,
    ):
        super().__init__(
            _pool_size(pool_size, 3, layout),
            strides,
            padding,
            ceil_mode,
            False,
            "max",
            layout,
            **kwargs,
        )


class AvgPool1D(_Pooling):
    """1-D average pooling."""

    def __init__(
        self,
        pool_size=2,
        strides=None,
        padding=0,
        layout="NCW",
        ceil_mode=False,
        count_include_pad=True,
        **kwargs,
    ):
        super().__init__(
            _pool_size(pool_size, 1, layout),
            strides,
            padding,
            ceil_mode,
            False,
            "avg",
            layout,
            count_include_pad,
            **kwargs,
        )


class AvgPool2D(_Pooling):
    """2-D average pooling."""

    def __init__(
        self,
        pool_size=(2, 2),
        strides=None,
        padding=0,
        ceil_mode=False,
        layout="NCHW",
        count_include_pad=True,
        **kwargs,
    ):
        super().__init__(
            _pool_size(pool_size, 2, layout),
            strides,
            padding,
            ceil_mode,
            False,
            "avg",
            layout,
            count_include_pad,
            **kwargs,
        )


class AvgPool3D(_Pooling):
    """3-D average pooling."""

    def __init__(
        self,
        pool_size=(2, 2, 2),
        strides=None,
        padding=0,
        ceil_mode=False,
        layout="NCDHW",
        count_include_pad=True,
        **kwargs,
    ):
        super().__init__(
            _pool_size(pool_size, 3, layout),
            strides,
            padding,
            ceil_mode,
            False,
            "avg",
            layout,
            count_include_pad,
            **kwargs,
        )


def _global(ndim: int, layout: str):
    _check(
        layout in _LAYOUTS[ndim],
        "Only %s and %s layouts are valid for %dD Pooling" % (_LAYOUTS[ndim] + (ndim,)),
    )
    return (1,) * ndim


class GlobalMaxPool1D(_Pooling):
    """Max over the whole width."""

    def __init__(self, layout="NCW", **kwargs):
        super().__init__(_global(1, layout), None, 0, True, True, "max", layout, **kwargs)


class GlobalMaxPool2D(_Pooling):
    """Max over the whole spatial plane."""

    def __init__(self, layout="NCHW", **kwargs):
        super().__init__(_global(2, layout), None, 0, True, True, "max", layout, **kwargs)


class GlobalMaxPool3D(_Pooling):
    """Max over the whole volume."""

    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__(_global(3, layout), None, 0, True, True, "max", layout, **kwargs)


class GlobalAvgPool1D(_Pooling):
    """Average over the whole width."""

    def __init__(self, layout="NCW", **kwargs):
        super().__init__(_global(1, layout), None, 0, True, True, "avg", layout, **kwargs)


class GlobalAvgPool2D(_Pooling):
    """Average over the whole spatial plane."""

    def __init__(self, layout="NCHW", **kwargs):
        super().__init__(_global(2, layout), None, 0, True, True, "avg", layout, **kwargs)


class GlobalAvgPool3D(_Pooling):
    """Average over the whole volume."""

    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__(_global(3, layout), None, 0, True, True, "avg", layout, **kwargs)


class ReflectionPad2D(HybridBlock):
    """Reflection padding of the two spatial axes."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        _check(len(padding) == 8, "padding must be a number or 8 ints")
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
