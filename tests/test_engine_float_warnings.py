"""MXNet computes inf and NaN silently; numpy warns for the same values. The engine's kernels
(eager and in compiled plans) stay silent, as MXNet does, while the user's numpy keeps its
warnings: the filter is scoped to the engine's modules (engine/__init__.py). Checked in a
fresh interpreter, as a user's session runs (pytest swaps the warning filters per test)."""

import subprocess
import sys
import textwrap

import hybridlint.engine as mx

SCRIPT = textwrap.dedent("""
    import numpy as np
    import hybridlint.engine as mx

    x = mx.nd.array([-1.0, 0.0, 1.0, np.inf])

    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.log(x) + F.sqrt(x) * (1 / x)

    assert np.isneginf(mx.nd.log(x).asnumpy()[1])
    assert np.isinf((x / mx.nd.zeros((4,))).asnumpy()[2])
    net = Net()
    net.hybridize()
    assert np.isnan(net(x).asnumpy()[0])
    print("engine done", flush=True)
    np.log(np.zeros(1))  # the user's own numpy
""")


def test_engine_kernels_are_silent_and_the_user_s_numpy_is_not():
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "engine done"
    warned = [line for line in run.stderr.splitlines() if "RuntimeWarning" in line]
    assert warned and all("divide by zero encountered in log" in w for w in warned)
    assert len(warned) == 1, run.stderr


def test_a_string_key_is_mxnet_s_value_error():
    try:
        mx.nd.ones((2, 3))["a"]
    except ValueError as err:
        assert "does not support slicing with key a" in str(err)
    else:
        raise AssertionError("no error")
