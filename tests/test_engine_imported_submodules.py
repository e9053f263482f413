"""`import mxnet` registers the submodules MXNet 1.9.1's own `__init__` imports.

Code may look a submodule up in `sys.modules` without importing it: einops 0.3's
`get_backend` builds its NDArray backend only when `'mxnet.ndarray' in sys.modules`, and
otherwise raises "Tensor type unknown to einops". Under the engine (`as_mxnet`) only
`mxnet` itself was registered, so the eager run of einops' gluon layers failed there and
`--verify` blamed that line instead of the one MXNet fails at when hybridized."""

import sys

import pytest

from hybridlint.engine.compat import ENGINE_PACKAGE, as_mxnet
from mxnet_record import reference


def _top_level(mx) -> list:
    return sorted(k for k in sys.modules if k.startswith("mxnet.") and k.count(".") == 1)


def _engine_has(name: str) -> bool:
    module = f"{ENGINE_PACKAGE}.{name.split('.', 1)[1]}"
    try:
        __import__(module)
    except ImportError:
        return False
    return True


@pytest.mark.mxnet
def test_import_mxnet_registers_the_submodules_mxnet_does():
    want = reference(_top_level, ("submodules after import mxnet",))
    with as_mxnet() as mx:
        have = _top_level(mx)
    assert set(have) <= set(want)  # nothing MXNet does not register itself
    assert [name for name in want if _engine_has(name) and name not in have] == []
    assert "mxnet.ndarray" in have and "mxnet.symbol" in have


def test_a_backend_lookup_through_sys_modules_finds_the_ndarray_module():
    with as_mxnet():
        import mxnet

        array = mxnet.nd.ones((2,))
        module = sys.modules.get("mxnet.ndarray")
        assert module is not None and isinstance(array, module.NDArray)


def test_the_contrib_operators_import_from_mxnet_contrib_too():
    """`from mxnet.contrib.ndarray import BilinearResize2D` (CRAFT's detector imports it so):
    MXNet registers the contrib operators there as well; under the engine they are
    nd.contrib's, and mxnet.contrib.symbol's are sym.contrib's."""
    with as_mxnet() as mx:
        from mxnet.contrib.ndarray import BilinearResize2D
        from mxnet.contrib.symbol import BilinearResize2D as symbolic

        resized = BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), height=4, width=4)
        assert resized.shape == (1, 1, 4, 4)
        assert symbolic is mx.sym.contrib.BilinearResize2D
        assert mx.contrib.nd.BilinearResize2D is mx.nd.contrib.BilinearResize2D
