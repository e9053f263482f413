"""Per-call Python overhead of a hybridized HybridBlock on top of its CachedOp.

Run: python benchmarks/gluon_call_overhead.py [--repeat N]
The seed tutorial's MLP (512-256-128-2, batch 1) is hybridized; the same forward is timed
three ways from this one run: the block call `net(x)`, the bare `CachedOp(*args)` it wraps,
and hand-written numpy (rounds interleaved, best round kept: the machine is shared). The
block's own overhead is also isolated by swapping the plan for a do-nothing callable, which
removes the numeric work and its noise. Prints microseconds per call and the ratio
net(x) / numpy (the project targets <= 1.3 for this case).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import hybridlint.engine as mx  # noqa: E402
from hybridize import best_times  # noqa: E402  (benchmarks/hybridize.py: this script's folder)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("-n", type=int, default=5000)
    args = ap.parse_args(argv)
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
    net.initialize()
    x_np = np.random.RandomState(0).uniform(-1, 1, size=(1, 512)).astype(np.float32)
    x = mx.nd.array(x_np)
    net.hybridize()
    net(x)
    net(x)
    op = net._cached_op
    cargs = [x if is_arg else p.data() for is_arg, p in net._cached_op_args]
    w1, b1, w2, b2, w3, b3 = [p.data().asnumpy() for p in net.collect_params().values()]
    w1t, w2t, w3t = w1.T, w2.T, w3.T

    def by_hand():
        h = np.maximum(x_np @ w1t + b1, 0)
        h = np.maximum(h @ w2t + b2, 0)
        return h @ w3t + b3

    np.testing.assert_allclose(net(x).asnumpy(), by_hand(), rtol=1e-4, atol=1e-6)
    t = best_times(
        {"block": lambda: net(x), "op": lambda: op(*cargs), "numpy": by_hand}, args.n, args.repeat
    )
    t_block, t_op, t_np = t["block"], t["op"], t["numpy"]

    def stub(*a):
        return a[0]

    net._cached_op = stub  # rebuild the lean path around a plan that does nothing
    net._fast = None
    net._maybe_enable_fast([0])
    s = best_times({"block": lambda: net(x), "stub": lambda: stub(*cargs)}, args.n * 4, args.repeat)
    print(
        "numpy %s, HybridBlock net(x) %.2f us, bare CachedOp %.2f us, numpy by hand %.2f us"
        % (np.__version__, t_block * 1e6, t_op * 1e6, t_np * 1e6)
    )
    print(
        "HybridBlock.__call__ overhead alone (plan stubbed out): %.2f us per call"
        % ((s["block"] - s["stub"]) * 1e6)
    )
    print("net(x) / numpy: %.2f  (target <= 1.3)" % (t_block / t_np))


if __name__ == "__main__":
    main()
