"""The seed tutorial's hybridize benchmark: hand-written numpy vs engine eager vs engine
hybridized (and real MXNet 1.9.1 eager / hybridized with static_alloc when importable).

Run: python benchmarks/hybridize.py [--repeat N]
     python benchmarks/hybridize.py --mxnet-python /path/to/mxnet-venv/bin/python
The first imports real MXNet in this process when it can, so the engine runs on MXNet's
numpy < 1.24 too; the second runs MXNet in its own interpreter and the engine on this one's
numpy (2.x for users without MXNet), rounds still interleaved. The header names numpy's BLAS:
the convolution figures follow it.
Prints one table of per-forward times and the ratios the project targets, from this one run:
  engine hybridized / numpy       <= 1.3   (MLP batch 1, batch 64, LeNet)
  engine hybridized / MXNet hyb.  <  1.0
  engine eager / MXNet eager      <= 0.5
and the peak intermediate memory of the hybridized plan vs eager execution.
Times are per forward, the best of `--repeat` interleaved rounds of N forwards each (the
machine is shared: short interleaved rounds and the minimum filter out other processes' load;
each round lasts about a millisecond; every variant runs at least the tutorial's 1000
forwards). The engine's and MXNet's rounds run in alternating phases, not interleaved with
each other: see `best_times`.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import hybridlint.engine as mx  # noqa: E402
from hybridlint.engine.executor import eager_peak_bytes  # noqa: E402


def timed_round(fn):
    """A round function for a local variant: seconds per call of `fn` over `n` calls."""

    def round_(n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t0) / n

    return round_


# A library's BLAS and OpenMP threads keep spinning for a while after its last call (OpenBLAS
# and libgomp both busy-wait before they sleep). On a 2-CPU machine, rounds of the engine and
# of MXNet interleaved a millisecond apart each ran against the other's spinning threads:
# measured on the benchmark machine, MXNet eager LeNet 1450-1520 us interleaved vs 1320-1360
# us phased, engine eager 825-850 vs 675-690 us. So the rounds are interleaved within each
# library, and the libraries alternate in phases with a pause between them.
PHASES = 8  # alternations of the engine's and MXNet's rounds
SETTLE_S = 0.3  # pause before each phase, longer than the spinning lasts


def best_times(rounds, n: int, repeat: int, phases: int = PHASES, settle: float = SETTLE_S):
    """Best per-call seconds of each variant over `repeat` rounds of `n` calls.
    `rounds` maps a name to `round(n) -> seconds per call` (local: `timed_round`; real MXNet
    in another interpreter: `MXNetServer.round`, timed inside that process). Variants whose
    name starts with "mx_" (real MXNet) and the others (the engine, numpy) run in separate
    phases, `settle` seconds apart; within a phase, their rounds are interleaved so that
    load from other processes hits them alike."""
    best = {name: float("inf") for name in rounds}
    for round_ in rounds.values():
        round_(1)
    groups = [
        g
        for g in (
            [k for k in rounds if not k.startswith("mx_")],
            [k for k in rounds if k.startswith("mx_")],
        )
        if g
    ]
    phases = max(1, min(phases, repeat))
    per_phase = -(-repeat // phases)
    for _ in range(phases):
        for group in groups:
            if len(groups) > 1:
                time.sleep(settle)
            for _ in range(per_phase):
                for name in group:
                    best[name] = min(best[name], rounds[name](n))
    return best


# ----------------------------------------------------------------------------- models


def mlp(lib):
    nn = lib.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    net.collect_params().initialize()
    return net


def lenet(lib):
    nn = lib.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
        net.add(nn.Conv2D(channels=16, kernel_size=5, activation="relu"))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
        net.add(nn.Dense(120, activation="relu"))
        net.add(nn.Dense(84, activation="relu"))
        net.add(nn.Dense(10))
    net.collect_params().initialize()
    return net


def params_of(net):
    return [p.data().asnumpy() for p in net.collect_params().values()]


# ----------------------------------------------------------------------------- numpy by hand


def numpy_mlp(params):
    w1, b1, w2, b2, w3, b3 = params
    w1t, w2t, w3t = w1.T, w2.T, w3.T

    def forward(x):
        h = np.maximum(x @ w1t + b1, 0)
        h = np.maximum(h @ w2t + b2, 0)
        return h @ w3t + b3

    return forward


def _conv_relu(x, w, b):
    """Valid 2-D convolution (stride 1): a strided im2col view, one batched matmul, bias and
    relu in place (the way one writes it by hand in numpy)."""
    n, c, hh, ww = x.shape
    o, _, kh, kw = w.shape
    oh, ow = hh - kh + 1, ww - kw + 1
    s = x.strides
    cols = np.lib.stride_tricks.as_strided(
        x, (n, c, kh, kw, oh, ow), (s[0], s[1], s[2], s[3], s[2], s[3])
    )
    y = np.matmul(w.reshape(o, -1), cols.reshape(n, c * kh * kw, oh * ow))
    y += b.reshape(o, 1)
    np.maximum(y, 0, out=y)
    return y.reshape(n, o, oh, ow)


def _maxpool2(x):
    """2x2/2 max pooling as the maximum of the four strided taps."""
    out = np.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2])
    np.maximum(out, x[:, :, 1::2, 0::2], out=out)
    return np.maximum(out, x[:, :, 1::2, 1::2], out=out)


def numpy_lenet(params):
    cw1, cb1, cw2, cb2, w1, b1, w2, b2, w3, b3 = params

    def forward(x):
        h = _maxpool2(_conv_relu(x, cw1, cb1))
        h = _maxpool2(_conv_relu(h, cw2, cb2))
        h = h.reshape(h.shape[0], -1)
        h = np.maximum(h @ w1.T + b1, 0)
        h = np.maximum(h @ w2.T + b2, 0)
        return h @ w3.T + b3

    return forward


# ----------------------------------------------------------------------------- runs


def real_nets(lib, build, params, x_np):
    """Real MXNet's eager and hybridized (static_alloc) nets with the engine's parameters,
    and its input."""
    nets = []
    for hybrid in (False, True):
        net = build(lib)
        for p, v in zip(net.collect_params().values(), params):
            p.set_data(lib.nd.array(v))
        if hybrid:
            net.hybridize(static_alloc=True, static_shape=True)
        nets.append(net)
    return nets[0], nets[1], lib.nd.array(x_np)


def forward_of(net, x):
    """A call that runs `net` on `x` to completion (MXNet computes asynchronously)."""
    return lambda: net(x).wait_to_read()


def run_case(
    label, build, numpy_forward, shape, n, repeat, real, server=None, settle: float = SETTLE_S
):
    rng = np.random.RandomState(0)
    x_np = rng.uniform(-1, 1, size=shape).astype(np.float32)
    row = {"case": label}

    net = build(mx)
    x = mx.nd.array(x_np)
    ref = net(x).asnumpy()
    params = params_of(net)
    fwd = numpy_forward(params)
    np.testing.assert_allclose(fwd(x_np), ref, rtol=1e-4, atol=1e-5)
    eager_net = build(mx)
    for p, v in zip(eager_net.collect_params().values(), params):
        p.set_data(mx.nd.array(v))
    net.hybridize(static_alloc=True, static_shape=True)
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    rounds = {
        "numpy": timed_round(lambda: fwd(x_np)),
        "eager": timed_round(lambda: eager_net(x)),
        "hybrid": timed_round(lambda: net(x)),
    }
    plan = next(iter(net._cached_op._cache.plans.values()))
    sym = net._cached_op._sym
    arrays = [x_np] + params
    row["mem_hybrid"] = plan.peak_bytes
    row["mem_eager"] = eager_peak_bytes(sym, arrays)

    if server is not None:
        outs = server.setup(build.__name__, params, x_np)
        for out in outs:
            np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
        rounds["mx_eager"] = server.round_fn("eager")
        rounds["mx_hybrid"] = server.round_fn("hybrid")
    elif real is not None:
        rnet, hnet, rx = real_nets(real, build, params, x_np)
        np.testing.assert_allclose(rnet(rx).asnumpy(), ref, rtol=1e-4, atol=1e-5)
        rounds["mx_eager"] = timed_round(lambda: rnet(rx).wait_to_read())
        rounds["mx_hybrid"] = timed_round(lambda: hnet(rx).wait_to_read())
    row.update(
        best_times(
            rounds,
            n,
            max(repeat, -(-1000 // n)),  # >= 1000 forwards each
            settle=settle,
        )
    )
    return row


# ----------------------------------------------------------------------------- MXNet elsewhere


class MXNetServer:
    """Real MXNet in another interpreter (`--mxnet-python`), driven over a pipe.

    MXNet 1.9.1 needs numpy < 1.24, whose bundled OpenBLAS (0.3.20) is about half as fast
    on small single-precision matmuls as numpy 2.x's; users of the engine, who have no MXNet,
    run numpy 2.x. This runs each side in its own environment and still interleaves the
    rounds: the child times its own forwards (no pipe in the figure) while this process
    waits, and vice versa. Parameters and inputs travel as .npy files (pickles of numpy
    arrays do not cross numpy 1.x/2.x)."""

    def __init__(self, python: str):
        import subprocess
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="hl-bench-")
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--serve-mxnet"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.version = self._ask({"cmd": "hello"})["version"]

    def _ask(self, msg):
        import json

        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the MXNet process exited (see its stderr above)")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError("MXNet process: " + answer["error"])
        return answer

    def setup(self, model, params, x_np):
        """Build MXNet's eager and hybridized nets there; returns their outputs."""
        paths = []
        for i, a in enumerate([x_np] + params):
            paths.append(os.path.join(self.dir, "a%d.npy" % i))
            np.save(paths[-1], a)
        answer = self._ask({"cmd": "setup", "model": model, "arrays": paths})
        return [np.load(p) for p in answer["outputs"]]

    def round_fn(self, variant):
        return lambda n: self._ask({"cmd": "round", "variant": variant, "n": n})["seconds"]

    def close(self):
        import shutil

        self.proc.stdin.close()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def serve_mxnet():
    """The child side of MXNetServer: one JSON command per line on stdin, one answer per
    line on stdout (MXNet's own output goes to stderr)."""
    import json
    import warnings

    out, sys.stdout = sys.stdout, sys.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mxnet as real
    nets = {}
    builders = {"mlp": mlp, "lenet": lenet}
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "hello":
                answer = {"version": real.__version__}
            elif msg["cmd"] == "setup":
                arrays = [np.load(p) for p in msg["arrays"]]
                rnet, hnet, rx = real_nets(real, builders[msg["model"]], arrays[1:], arrays[0])
                nets["eager"] = forward_of(rnet, rx)  # run by later "round" commands
                nets["hybrid"] = forward_of(hnet, rx)
                paths = []
                for name, fn in (("eager", rnet), ("hybrid", hnet)):
                    paths.append(msg["arrays"][0] + "." + name + ".npy")
                    np.save(paths[-1], fn(rx).asnumpy())
                answer = {"outputs": paths}
            else:
                answer = {"seconds": timed_round(nets[msg["variant"]])(msg["n"])}
        except Exception as err:  # noqa: BLE001 - reported to the parent, which stops
            answer = {"error": "%s: %s" % (type(err).__name__, err)}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def seed_memory():
    """The tutorial's a=ones(10); b=ones(10)*2; c=b*a; d=c+1 (a, b as graph inputs)."""
    a, b = mx.sym.var("a"), mx.sym.var("b")
    d = (b * a) + 1
    arrays = [np.ones(10, np.float32), np.ones(10, np.float32) * 2]
    op = mx.nd.CachedOp(d)
    op(*[mx.nd.array(x) for x in arrays])
    plan = next(iter(op._cache.plans.values()))
    return plan.peak_bytes, eager_peak_bytes(d, arrays)


def blas_info() -> str:
    """numpy's BLAS and its version: the eager and hybridized convolution times follow it
    (numpy 1.23, which MXNet pins, bundles OpenBLAS 0.3.20, whose small single-precision
    matmuls are about half as fast as numpy 2.x's OpenBLAS 0.3.31 on LeNet's shapes)."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return "%s %s" % (blas.get("name", "?"), blas.get("version", "?"))
    except (TypeError, KeyError):  # numpy < 1.26 has no mode="dicts"
        pass
    import glob
    import re

    libs = glob.glob(
        os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "*openblas*")
    )
    for lib in libs:
        m = re.search(r"openblas\w*?-r0-\w+\.(\d+\.\d+)", os.path.basename(lib))
        if m:
            return "openblas 0.%s" % m.group(1)
    return "BLAS unknown"


def fmt_us(t):
    return "%9.1f" % (t * 1e6) if t is not None else "        -"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=120)
    ap.add_argument("--no-mxnet", action="store_true", help="skip real MXNet even if installed")
    ap.add_argument(
        "--mxnet-python",
        metavar="PYTHON",
        help="run real MXNet in this interpreter (one with mxnet==1.9.1 and numpy "
        "< 1.24) instead of importing it here, so that the engine can run on this "
        "interpreter's numpy; the rounds stay interleaved",
    )
    ap.add_argument(
        "--settle",
        type=float,
        default=SETTLE_S,
        metavar="SECONDS",
        help="pause before each phase of the engine's or MXNet's rounds (default %(default)s)",
    )
    ap.add_argument("--serve-mxnet", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve_mxnet:
        return serve_mxnet()
    real = server = None
    if args.mxnet_python:
        try:
            server = MXNetServer(args.mxnet_python)
        except (OSError, RuntimeError) as err:
            ap.error(
                "--mxnet-python %s: cannot start real MXNet there: %s" % (args.mxnet_python, err)
            )
    elif not args.no_mxnet:
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import mxnet as real  # noqa: F811
        except ImportError:
            real = None
    # rounds of about a millisecond: short enough to fit between the scheduler's preemptions
    cases = [
        ("MLP 512-256-128-2, batch 1", mlp, numpy_mlp, (1, 512), 50),
        ("MLP 512-256-128-2, batch 64", mlp, numpy_mlp, (64, 512), 5),
    ]
    if hasattr(mx.nd, "Convolution") and hasattr(mx.nd, "Pooling"):
        cases.append(("LeNet, (16,1,28,28)", lenet, numpy_lenet, (16, 1, 28, 28), 2))
    rows = []
    for label, build, fwd, shape, n in cases:
        try:
            rows.append(
                run_case(label, build, fwd, shape, n, args.repeat, real, server, args.settle)
            )
        except Exception as err:  # noqa: BLE001 - report and continue with the other cases
            print("%s: FAILED: %s: %s" % (label, type(err).__name__, err))
    if server is not None:
        server.close()
        where = "MXNet %s in %s (its own numpy)" % (server.version, args.mxnet_python)
    else:
        where = "MXNet %s" % real.__version__ if real else "real MXNet not installed"
    print(
        "engine and hand-written numpy on numpy %s (%s); %s" % (np.__version__, blas_info(), where)
    )
    print(
        "\nper forward, microseconds (best of >= %d interleaved ~1 ms rounds, >= 1000 "
        "forwards per variant; engine and MXNet in %d alternating phases)" % (args.repeat, PHASES)
    )
    print(
        "%-30s %9s %9s %9s %9s %9s | %8s %8s %8s"
        % ("case", "numpy", "eager", "hybrid", "mx eager", "mx hyb", "hyb/np", "hyb/mxh", "eag/mxe")
    )
    for r in rows:
        mxe, mxh = r.get("mx_eager"), r.get("mx_hybrid")
        print(
            "%-30s %s %s %s %s %s | %8.2f %8s %8s"
            % (
                r["case"],
                fmt_us(r["numpy"]),
                fmt_us(r["eager"]),
                fmt_us(r["hybrid"]),
                fmt_us(mxe),
                fmt_us(mxh),
                r["hybrid"] / r["numpy"],
                "%.2f" % (r["hybrid"] / mxh) if mxh else "-",
                "%.2f" % (r["eager"] / mxe) if mxe else "-",
            )
        )
    print("\npeak intermediate memory (bytes; eager = every op allocates, freed after last use)")
    print("%-30s %12s %12s %8s" % ("case", "eager", "hybridized", "ratio"))
    hyb, eag = seed_memory()
    print("%-30s %12d %12d %8.2f" % ("seed: d = b*a + 1, 10 floats", eag, hyb, hyb / eag))
    for r in rows:
        print(
            "%-30s %12d %12d %8.2f"
            % (r["case"], r["mem_eager"], r["mem_hybrid"], r["mem_hybrid"] / r["mem_eager"])
        )


if __name__ == "__main__":
    main()
