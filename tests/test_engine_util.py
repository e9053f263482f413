"""`mxnet.util` in the engine (engine/util.py): classic semantics only, numpy mode an engine
gap (NotImplementedError, "cannot verify"), GPU queries as MXNet built without CUDA, and the
environment helpers; compared with real MXNet 1.9.1 where it answers the same question."""

import pytest

import hybridlint.engine as mx
from hybridlint.engine import as_mxnet


def test_classic_semantics_and_numpy_mode_gap():
    assert mx.util.is_np_array() is False and mx.util.is_np_shape() is False
    assert mx.util.set_np_shape(False) is False
    with mx.util.np_shape(False), mx.util.np_array(False):
        assert not mx.util.is_np_shape()
    mx.util.reset_np()
    for call in (
        lambda: mx.util.set_np(),
        lambda: mx.util.set_np_shape(True),
        lambda: mx.util.np_shape().__enter__(),
        lambda: mx.util.np_array().__enter__(),
    ):
        with pytest.raises(NotImplementedError, match="numpy semantics"):
            call()


def test_use_np_fails_when_run_not_when_decorated():
    @mx.util.use_np
    def f(x):
        return x

    @mx.util.use_np
    class Block:
        def __init__(self):
            self.made = True

    with pytest.raises(NotImplementedError):
        f(1)
    with pytest.raises(NotImplementedError):
        Block()
    with pytest.raises(TypeError):
        mx.util.use_np(3)


def test_library_code_takes_the_classic_branch_under_as_mxnet():
    with as_mxnet():
        from mxnet.util import is_np_array
        import mxnet

        assert mxnet.util.get_gpu_count() == 0
        assert is_np_array() is False


@pytest.mark.mxnet
def test_answers_match_mxnet_without_cuda():
    mx_real = pytest.importorskip("mxnet")
    assert mx.util.get_gpu_count() == mx_real.util.get_gpu_count() == 0
    assert mx.util.is_np_array() == mx_real.util.is_np_array()
    assert mx.util.is_np_shape() == mx_real.util.is_np_shape()
    for lib in (mx_real, mx):
        with pytest.raises(lib.base.MXNetError, match="CUDA support"):
            lib.util.get_gpu_memory(0)
        with pytest.raises(ValueError, match="Expecting a gpu context"):
            lib.util.get_cuda_compute_capability(lib.cpu())
        assert lib.util.getenv("HYBRIDLINT_TEST_UNSET_VAR") is None
        lib.util.setenv("HYBRIDLINT_TEST_VAR_" + lib.__name__.replace(".", "_"), "7")
        assert lib.util.getenv("HYBRIDLINT_TEST_VAR_" + lib.__name__.replace(".", "_")) == "7"


def test_test_utils_device_queries_and_the_rest_is_a_gap():
    with as_mxnet():
        from mxnet import test_utils  # gluoncv 0.1's SyncBatchNorm, at build time

        assert list(test_utils.list_gpus()) == []
        assert test_utils.default_context() == mx.cpu()
        with pytest.raises(mx.base.EngineGap):
            test_utils.assert_almost_equal(1, 1)


@pytest.mark.mxnet
def test_test_utils_answers_match_mxnet_without_cuda():
    mx_real = pytest.importorskip("mxnet")
    assert list(mx.test_utils.list_gpus()) == list(mx_real.test_utils.list_gpus()) == []
    assert str(mx.test_utils.default_context()) == str(mx_real.test_utils.default_context())
