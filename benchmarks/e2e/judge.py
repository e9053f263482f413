"""Judge end-to-end cases under real MXNet 1.9.1: run in the MXNet venv by benchmarks/e2e/run.py.

    python judge.py JOB.json

JOB is {"cases": [{"name", "block", "calls", "original": FILE, "variants": {LABEL: FILE},
"examples": [...], "unseen": [...]}]}. Examples are in the ``[tool.hybridlint.examples]``
format and their arrays are drawn with hybridlint's own input maker (seed 0, as ``--verify``
draws them; unseen inputs with seed 1), so the judge sees the inputs the tool saw and others.

For every example the ORIGINAL is built (seeded), initialized and called eagerly: the reference
outputs and parameters. Then the original hybridized (is the block really failing?), and each
variant eagerly and hybridized, each a fresh instance with the reference parameters loaded by
structural name (a fix may add a constant parameter) and the same seed before its calls.
Prints one JSON line per case: {"name", "original_hybrid": [...], "variants": {LABEL:
{"eager": [...], "hybrid": [...]}}} with one verdict per example: "equal", "differs: ..." or
"error: ...". A verdict "reference: ..." means the original itself failed eagerly.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import random
import sys
import tempfile
import traceback
import warnings
from typing import Any, List

import numpy as np

RTOL, ATOL = 1e-5, 1e-6


def _seed(mx: Any) -> None:
    mx.random.seed(0)
    np.random.seed(0)
    random.seed(0)


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _to_mx(mx: Any, value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return mx.nd.array(value, dtype=value.dtype)
    if isinstance(value, list):
        return [_to_mx(mx, v) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_mx(mx, v) for v in value)
    return value


def _flatten(out: Any) -> List[np.ndarray]:
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _flatten(o)]
    if hasattr(out, "asnumpy"):
        return [out.asnumpy()]
    return [np.asarray(out)]


# Gluon's HybridBlock runs its traced graph here: an error raised below it after the deepest
# frame of the block's file (MXNet's shape inference of the whole graph, "Error in operator
# ...") happened after tracing, so no line of the block raised it.
_GRAPH_RUN = {"_call_cached_op"}


def _error(exc: BaseException, path: str) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    user = [i for i, f in enumerate(frames) if os.path.abspath(f.filename) == path]
    where = ""
    if user and not {f.name for f in frames[user[-1] + 1 :]} & _GRAPH_RUN:
        where = f"line {frames[user[-1]].lineno}"
    first = (str(exc).strip().splitlines() or [""])[0][:240]
    return f"{type(exc).__name__}: {first}" + (f" (at {where})" if where else "")


def _compare(reference: List[np.ndarray], got: List[np.ndarray]) -> str:
    if len(reference) != len(got):
        return f"differs: {len(got)} outputs, the original gives {len(reference)}"
    worst = 0.0
    for ref, out in zip(reference, got):
        if ref.shape != out.shape:
            return f"differs: shape {out.shape}, the original gives {ref.shape}"
        if ref.size == 0:
            continue
        a, b = ref.astype("float64"), out.astype("float64")
        if not np.allclose(b, a, rtol=RTOL, atol=ATOL, equal_nan=True):
            both = np.isfinite(a) & np.isfinite(b)
            diff = float(np.max(np.abs(a - b)[both])) if both.any() else float("inf")
            return f"differs: max abs diff {diff:.3g}"
        both = np.isfinite(a) & np.isfinite(b)
        if both.any():
            worst = max(worst, float(np.max(np.abs(a - b)[both])))
    return "equal"


class Judge:
    def __init__(self, mx: Any, case: dict, workdir: str) -> None:
        self.mx, self.case, self.workdir = mx, case, workdir
        self.modules = {}

    def module(self, label: str, path: str):
        if label not in self.modules:
            name = f"e2e_{abs(hash((self.case['name'], label)))}"
            with contextlib.redirect_stdout(sys.stderr):
                self.modules[label] = _load(path, name)
        return self.modules[label]

    def run(self, label: str, path: str, example: dict, inputs: list, params: str, hybrid: bool):
        mx = self.mx
        _seed(mx)
        from hybridlint.checker.inputs import build_children, config_kwargs

        module = self.module(label, path)
        kwargs = build_children(config_kwargs(example.get("kwargs", {})), vars(module))
        block = getattr(module, self.case["block"])(**kwargs)
        if params is None:
            block.initialize(mx.init.Uniform(0.5))
        else:
            if os.path.exists(params):
                # gluon's own loader: a block may override load_parameters with another
                # signature (gluonnlp's CacheCell(filename, ctx))
                mx.gluon.Block.load_parameters(block, params, allow_missing=True, ignore_extra=True)
            block.initialize(mx.init.Uniform(0.5))
        if hybrid:
            block.hybridize()
        _seed(mx)
        outs: List[np.ndarray] = []
        for _ in range(int(self.case.get("calls", 1))):
            outs.extend(_flatten(block(*_to_mx(mx, inputs))))
        mx.nd.waitall()
        return block, outs

    def judge(self) -> dict:
        from hybridlint.checker.inputs import make_arrays, to_spec

        case = self.case
        examples = [(e, 0) for e in case["examples"]] + [(e, 1) for e in case["unseen"]]
        result: dict = {"name": case["name"], "original_hybrid": [], "variants": {}}
        for label in case["variants"]:
            result["variants"][label] = {"eager": [], "hybrid": []}
        original = os.path.abspath(case["original"])
        for index, (example, seed) in enumerate(examples):
            inputs = make_arrays([to_spec(x) for x in example["inputs"]], seed)
            params = os.path.join(self.workdir, f"{index}.params")
            try:
                block, reference = self.run("original", original, example, inputs, None, False)
                if list(block.collect_params().keys()):
                    block.save_parameters(params)
            except BaseException as exc:  # noqa: BLE001 -- user code
                verdict = "reference: " + _error(exc, original)
                result["original_hybrid"].append(verdict)
                for label in case["variants"]:
                    result["variants"][label]["eager"].append(verdict)
                    result["variants"][label]["hybrid"].append(verdict)
                continue
            result["original_hybrid"].append(
                self.verdict("original", original, example, inputs, params, True, reference)
            )
            for label, path in case["variants"].items():
                path = os.path.abspath(path)
                for mode in ("eager", "hybrid"):
                    result["variants"][label][mode].append(
                        self.verdict(
                            label, path, example, inputs, params, mode == "hybrid", reference
                        )
                    )
        return result

    def verdict(self, label, path, example, inputs, params, hybrid, reference) -> str:
        try:
            _block, outs = self.run(label, path, example, inputs, params, hybrid)
        except BaseException as exc:  # noqa: BLE001 -- user code
            return "error: " + _error(exc, path)
        return _compare(reference, outs)


def main(argv: list) -> int:
    with open(argv[1]) as handle:
        job = json.load(handle)
    warnings.simplefilter("ignore")
    import mxnet as mx

    for case in job["cases"]:
        with tempfile.TemporaryDirectory() as workdir:
            try:
                result = Judge(mx, case, workdir).judge()
            except BaseException as exc:  # noqa: BLE001 -- report, go on with the next case
                result = {"name": case["name"], "crash": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
