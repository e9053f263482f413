"""`mxnet.contrib`'s operator namespaces: MXNet registers every contrib operator a second time
in `mxnet.contrib.ndarray` and `mxnet.contrib.symbol` (`from mxnet.contrib.ndarray import
BilinearResize2D` is how some model code imports one). Here they are the engine's
`nd.contrib` and `sym.contrib` themselves, so both spellings reach one registry. The rest of
`mxnet.contrib` (amp, onnx, quantization, text, ...) is not in the engine: code using it cannot
be verified on the engine (the `as_mxnet` proxies say so)."""

import sys

from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol

nd = ndarray
sym = symbol
# `import mxnet.contrib.ndarray` finds its engine module by this name (engine/compat.py)
sys.modules[__name__ + ".ndarray"] = ndarray
sys.modules[__name__ + ".symbol"] = symbol

__all__ = ["ndarray", "symbol", "nd", "sym"]
