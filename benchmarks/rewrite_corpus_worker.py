"""Run one corpus block under MXNet (real, or the bundled engine) and report what happened.

Started by benchmarks/rewrite_corpus.py and tests/test_rewrite_corpus.py in a subprocess with
a timeout, because it imports and runs user code. It is kept free of hybridlint imports (except
the engine, for `--backend engine`) so that it runs on the MXNet venv's numpy 1.23.

    python rewrite_corpus_worker.py JOB.json

JOB is {"roots": [DIR...], "cls": NAME, "example": {...}, "backend": "mxnet"|"engine",
"workdir": DIR, "steps": [{"name", "module", "mode", "params"}...]} where mode is

* ``reference``: seed, build, ``initialize(Xavier)``, call eagerly; save the outputs and the
  parameters (``save_parameters``: structural names) in the workdir. Inputs are drawn from
  ``numpy.random.RandomState(0)`` (the same stream on numpy 1.x and 2.x, so every step and
  backend sees the same data);
* ``eager`` / ``hybrid``: seed, build a fresh block, ``load_parameters(params,
  allow_missing=True, ignore_extra=True)`` (a fix may add or drop a parameter, e.g. a new
  ``params.get_constant``), initialize what is left, optionally ``hybridize()``, call on the
  saved inputs and save the outputs.

Each step prints one JSON line as soon as it ends (so a hang loses only the hanging step):
{"job": id, "step", "ok", "error", "outputs": file}. {"jobs": [job...]} runs several jobs in
one process (the corpus test: one MXNet import for all blocks). Several calls per example
(``"calls": n``) catch state kept between calls.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import random
import sys
import traceback
import warnings
from typing import Any

import numpy as np


def _mxnet(backend: str):
    """Import mxnet, or the bundled engine as mxnet (whose as_mxnet() stays active)."""
    if backend == "engine":
        import hybridlint.engine

        _mxnet.ctx = hybridlint.engine.as_mxnet()  # type: ignore[attr-defined]
        _mxnet.ctx.__enter__()  # type: ignore[attr-defined]
    import mxnet

    return mxnet


def _seed(mx: Any) -> None:
    mx.random.seed(0)
    np.random.seed(0)
    random.seed(0)


def make_inputs(spec: list, rng: np.random.RandomState) -> list:
    """Numpy inputs from an EXAMPLES "args" list (see testdata/rewrite_corpus/README.md)."""
    out = []
    for item in spec:
        if isinstance(item, dict) and "value" in item:
            out.append(("value", item["value"]))
        elif isinstance(item, dict) and "list" in item:
            out.append(("list", make_inputs(item["list"], rng)))
        elif isinstance(item, dict):
            dtype = item.get("dtype", "float32")
            shape = tuple(item["shape"])
            if "data" in item:
                arr = np.asarray(item["data"], dtype=dtype).reshape(shape)
            elif np.dtype(dtype).kind in "iu":
                arr = rng.randint(item.get("low", 0), item.get("high", 5), size=shape).astype(dtype)
            elif item.get("positive"):
                arr = rng.uniform(0.5, 2.0, size=shape).astype(dtype)
            else:
                arr = rng.normal(size=shape).astype(dtype)
            out.append(("array", arr))
        else:
            out.append(("array", rng.normal(size=tuple(item)).astype("float32")))
    return out


def _to_mx(mx: Any, inputs: list) -> list:
    args = []
    for kind, val in inputs:
        if kind == "value":
            args.append(val)
        elif kind == "list":
            args.append(_to_mx(mx, val))
        else:
            args.append(mx.nd.array(val, dtype=val.dtype))
    return args


def _flatten(out: Any) -> list:
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _flatten(o)]
    if hasattr(out, "asnumpy"):
        return [out.asnumpy()]
    return [np.asarray(out)]


def _save_flat(path: str, arrays: list) -> None:
    np.savez(path, *arrays)


def _build(mx: Any, module: str, cls: str, example: dict):
    _seed(mx)
    block = getattr(importlib.import_module(module), cls)(**example.get("kwargs", {}))
    return block


def _run(block: Any, mx: Any, inputs: list, calls: int) -> list:
    outs: list = []
    for _ in range(calls):
        outs.extend(_flatten(block(*_to_mx(mx, inputs))))
    mx.nd.waitall()
    return outs


def run_step(mx: Any, job: dict, step: dict, state: dict) -> dict:
    example, work = job["example"], job["workdir"]
    calls = int(example.get("calls", 1))
    block = _build(mx, step["module"], job["cls"], example)
    if step["mode"] == "reference":
        block.initialize(mx.init.Xavier())
        state["inputs"] = make_inputs(example.get("args", []), np.random.RandomState(0))
        outs = _run(block, mx, state["inputs"], calls)
        if list(block.collect_params().keys()):
            # MXNet 1.9.1 saves no parameters as an empty list, which load_parameters cannot
            # read (AttributeError: 'list' object has no attribute 'keys'): a block the fix
            # gave its first parameter (a constant) has nothing to load then.
            block.save_parameters(os.path.join(work, "reference.params"))
    else:
        params = step.get("params") or os.path.join(work, "reference.params")
        if "inputs" not in state:
            state["inputs"] = make_inputs(example.get("args", []), np.random.RandomState(0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # A block without parameters loads nothing (the engine refuses an empty file).
            if os.path.exists(params) and list(block.collect_params().keys()):
                block.load_parameters(params, allow_missing=True, ignore_extra=True)
            block.initialize(mx.init.Xavier())
        if step["mode"] == "hybrid":
            block.hybridize()
        outs = _run(block, mx, state["inputs"], calls)
    path = os.path.join(work, step["name"] + ".npz")
    _save_flat(path, outs)
    return {"outputs": path}


def run_job(mx: Any, job: dict) -> None:
    """Run a job's steps in order, printing one JSON line per step."""
    state: dict = {}
    roots = [os.path.abspath(r) for r in job["roots"]]
    for step in job["steps"]:
        result = {
            "job": job.get("id"),
            "step": step["name"],
            "ok": False,
            "error": None,
            "outputs": None,
        }
        try:
            with contextlib.redirect_stdout(sys.stderr):
                result.update(run_step(mx, job, step, state), ok=True)
        except BaseException as exc:  # user code: anything can happen, report it
            tb = traceback.extract_tb(exc.__traceback__)
            where = next(
                (
                    f"{os.path.basename(f.filename)}:{f.lineno}"
                    for f in reversed(tb)
                    if any(os.path.abspath(f.filename).startswith(r) for r in roots)
                ),
                "",
            )
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            result["error"] = f"{type(exc).__name__}: {first}" + (f" (at {where})" if where else "")
        print(json.dumps(result), flush=True)


def main(argv: list) -> int:
    """JOB.json holds one job, or {"jobs": [...]} run one after the other in this process."""
    with open(argv[1]) as fh:
        spec = json.load(fh)
    jobs = spec["jobs"] if "jobs" in spec else [spec]
    for root in reversed(jobs[0]["roots"]):
        sys.path.insert(0, root)
    warnings.simplefilter("ignore")
    mx = _mxnet(jobs[0].get("backend", "mxnet"))
    for job in jobs:
        run_job(mx, job)
    ctx = getattr(_mxnet, "ctx", None)
    if ctx is not None:
        ctx.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
