"""Judge end-to-end cases under real MXNet 1.9.1: run in the MXNet venv by benchmarks/e2e/run.py.

    python judge.py JOB.json WORKDIR [--training [--skip KEY,...]]

JOB is {"cases": [{"name", "block", "calls", "original": FILE, "variants": {LABEL: FILE},
"examples": [...], "unseen": [...]}]} with one case (run.py writes one job a case). Examples
are in the ``[tool.hybridlint.examples]`` format and their arrays are drawn with hybridlint's
own input maker (seed 0, as ``--verify`` draws them; unseen inputs with seed 1), so the judge
sees the inputs the tool saw and others.

Without ``--training``: for every example the ORIGINAL is built (seeded), initialized and
called eagerly: the reference outputs and parameters (kept in WORKDIR). Then the original
hybridized (is the block really failing?), and each variant eagerly and hybridized, each a
fresh instance with the reference parameters loaded by structural name (a fix may add a
constant parameter) and the same seed before its calls; a hybridized run that equals the
reference is also exported and read back with ``SymbolBlock.imports``. Prints one JSON line:
{"name", "original_hybrid": [...], "original_exported": [...], "variants": {LABEL: {"eager":
[...], "hybrid": [...], "exported": [...]}}} with one verdict per example: "equal",
"differs: ..." or "error: ...". A verdict "reference: ..." means the original itself failed
eagerly; "random: ..." that the hybridized block, run twice with the same seed and inputs, gave
two different outputs (MXNet's uninitialized memory: HybridBeamSearchSampler's while_loop
padding), so that input does not judge it.

With ``--training`` (after the first part, in a process of its own: MXNet can die in a
backward pass): a training step of each variant eagerly and hybridized, and of the original
hybridized, against the original's eager one under ``autograd.record()``, from the reference
parameters and the same seed; each float output is weighted by a fixed random array and
summed, and the outputs, the gradients of the float inputs and of every reference parameter
(by structural name) must all match. One JSON line a step, announced before it runs
(`Judge.training`). Its verdicts add "random: ..." (the original's step depends on the seed,
e.g. Dropout, and the variant differs: the draws cannot be matched, so the example is not
judged) and "reference: ..." (the original cannot take a training step, e.g. no float output).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import random
import sys
import traceback
import warnings
from typing import Any, List, Optional, Set

import numpy as np

RTOL, ATOL = 1e-5, 1e-6


_SEED = 0  # the training reference runs once more under another to see if it is random


def _seed(mx: Any) -> None:
    mx.random.seed(_SEED)
    np.random.seed(_SEED)
    random.seed(_SEED)


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


def _leaves(value: Any) -> List[Any]:
    """The NDArrays of a (nested) list or tuple, in order."""
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _leaves(v)]
    return [value] if hasattr(value, "asnumpy") else []


def _differing(first: List[np.ndarray], second: List[np.ndarray]) -> Set[int]:
    """The positions where two runs of one step gave different arrays."""
    return {i for i, (a, b) in enumerate(zip(first, second)) if _compare([a], [b]) != "equal"}


def _by_reference_names(
    grads: List[np.ndarray], names: List[str], n_inputs: int, reference_names: List[str]
) -> List[np.ndarray]:
    """A step's gradients in the reference's order: the inputs', then the parameters' by the
    reference's structural names (a parameter the rewrite lacks: an array no gradient equals)."""
    by_name = dict(zip(names, grads[n_inputs:]))
    return grads[:n_inputs] + [by_name.get(n, np.zeros((1,) * 7)) for n in reference_names]


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

    def build(self, label: str, path: str, example: dict, params: Optional[str], hybrid: bool):
        """A fresh instance of the case's block from `path`, seeded, with the reference
        parameters (`params`; None: initialized, for the reference itself), hybridized or not."""
        mx = self.mx
        _seed(mx)
        from hybridlint.checker.inputs import build_children, config_kwargs

        module = self.module(label, path)
        # a fresh name counter for every build: a block that registers children under their
        # auto names (autogluon's Warping: `register_child(t, name=t.name)`) then gets the
        # same structural parameter names in the original and in every variant
        with mx.name.NameManager():
            kwargs = build_children(config_kwargs(example.get("kwargs", {})), vars(module))
            block = getattr(module, self.case["block"])(**kwargs)
        if params is not None and os.path.exists(params):
            # gluon's own loader: a block may override load_parameters with another
            # signature (gluonnlp's CacheCell(filename, ctx))
            mx.gluon.Block.load_parameters(block, params, allow_missing=True, ignore_extra=True)
        block.initialize(mx.init.Uniform(0.5))
        if hybrid:
            block.hybridize()
        return block

    def run(self, label: str, path: str, example: dict, inputs: list, params, hybrid: bool):
        mx = self.mx
        block = self.build(label, path, example, params, hybrid)
        _seed(mx)
        outs: List[np.ndarray] = []
        for _ in range(int(self.case.get("calls", 1))):
            outs.extend(_flatten(block(*_to_mx(mx, inputs))))
        mx.nd.waitall()
        return block, outs

    def train(self, label: str, path: str, example: dict, inputs: list, params: str, hybrid: bool):
        """(outputs, gradients) of one training step: the block called under
        ``autograd.record()`` and the weighted sum of its float outputs differentiated, the
        gradients those of the float inputs, then of the parameters by structural name."""
        mx = self.mx
        block = self.build(label, path, example, params, hybrid)
        arrays = _to_mx(mx, inputs)
        leaves = [a for a in _leaves(arrays) if np.issubdtype(a.dtype, np.floating)]
        for leaf in leaves:
            leaf.attach_grad()
        _seed(mx)
        outs: List[Any] = []
        with mx.autograd.record():
            for _ in range(int(self.case.get("calls", 1))):
                outs.extend(_leaves(block(*arrays)))
            weights = np.random.RandomState(7)
            heads = [o for o in outs if np.issubdtype(o.dtype, np.floating)]
            loss = sum(
                (o * mx.nd.array(weights.uniform(-1, 1, o.shape), dtype=o.dtype)).sum()
                for o in heads
            )
        loss.backward()
        mx.nd.waitall()
        grads = [leaf.grad.asnumpy() for leaf in leaves]
        structural = block._collect_params_with_prefix()
        for name in sorted(structural):
            param = structural[name]
            # a parameter that takes no gradient, or one this call never used, is an empty
            # array of rank 7, which no real gradient equals
            used = param.grad_req != "null" and param._data is not None
            grads.append(param.grad().asnumpy() if used else np.zeros((0,) * 7))
        return [o.asnumpy() for o in outs], grads, sorted(structural)

    def train_verdict(self, label, path, example, inputs, params, hybrid, reference) -> str:
        """A variant's training step against the original's eager one (`train_reference`)."""
        if isinstance(reference, str):
            return reference
        ref_outs, ref_grads, ref_names, random, unstable = reference
        try:
            outs, grads, names = self.train(label, path, example, inputs, params, hybrid)
            _, again, _ = self.train(label, path, example, inputs, params, hybrid)
        except BaseException as exc:  # noqa: BLE001 -- user code
            return "error: " + _error(exc, path)
        verdict = _compare(ref_outs, outs)
        if verdict == "equal":
            n_inputs = len(ref_grads) - len(ref_names)
            if len(grads) - len(names) != n_inputs:
                return "differs: another number of float inputs"
            # a gradient MXNet does not define (an Embedding's or `pick`'s index input) is
            # whatever a buffer held: two alike runs of the original or of the rewrite
            # disagree on it, and it is not compared
            got, got_again = (
                _by_reference_names(g, names, n_inputs, ref_names) for g in (grads, again)
            )
            left_out = unstable | _differing(got, got_again)
            kept = [i for i in range(len(got)) if i not in left_out]
            verdict = _compare([ref_grads[i] for i in kept], [got[i] for i in kept])
            verdict = verdict.replace("differs:", "differs in gradients:")
        if verdict != "equal" and random:
            return "random: " + verdict
        return verdict

    def train_reference(self, original: str, example: dict, inputs: list, params: str):
        """The original's training step eagerly, whether it depends on the seed (run again
        under another seed: Dropout in training mode does), and which gradients it does not
        compute alike twice under one seed (not compared)."""
        try:
            outs, grads, names = self.train("original", original, example, inputs, params, False)
            same, same_grads, _ = self.train("original", original, example, inputs, params, False)
        except BaseException as exc:  # noqa: BLE001 -- user code
            return "reference: " + _error(exc, original)
        unstable = _differing(grads, same_grads)
        if _compare(outs, same) != "equal":
            return "reference: the original's training step differs from itself under one seed"
        global _SEED
        _SEED = 1
        try:
            again, again_grads, _ = self.train("original", original, example, inputs, params, False)
            stable = [i for i in range(len(grads)) if i not in unstable]
            random = (
                _compare(
                    outs + [grads[i] for i in stable], again + [again_grads[i] for i in stable]
                )
                != "equal"
            )
        except BaseException:  # noqa: BLE001 -- user code
            random = True
        finally:
            _SEED = 0
        return outs, grads, names, random, unstable

    def training(self, skip: set) -> None:
        """Print the training verdicts as JSON lines, each step announced first: MXNet can
        die in a backward pass (a segfault), and run.py then knows which step did, marks it
        and runs the rest again with `skip`. Steps, per input: ``I:reference`` (the original
        eagerly), ``I:original:hybrid`` (its baseline), ``I:LABEL:eager`` (the rewrite's own
        effect on a training step) and ``I:LABEL:hybrid`` (what the user trains)."""
        from hybridlint.checker.inputs import make_arrays, to_spec

        case = self.case
        examples = [(e, 0) for e in case["examples"]] + [(e, 1) for e in case["unseen"]]
        original = os.path.abspath(case["original"])
        steps = [("original", original, ("hybrid",))] + [
            (label, os.path.abspath(path), ("eager", "hybrid"))
            for label, path in case["variants"].items()
        ]
        for index, (example, seed) in enumerate(examples):
            params = os.path.join(self.workdir, f"{index}.params")
            inputs = make_arrays([to_spec(x) for x in example["inputs"]], seed)
            key = f"{index}:reference"
            if key in skip:
                reference: Any = "reference: crashed (the process died in this step)"
            else:
                _say({"start": key})
                reference = self.train_reference(original, example, inputs, params)
                _say({"done": key, "verdict": "equal"})
            for label, path, modes in steps:
                for mode in modes:
                    key = f"{index}:{label}:{mode}"
                    if key in skip:
                        continue
                    _say({"start": key})
                    verdict = self.train_verdict(
                        label, path, example, inputs, params, mode == "hybrid", reference
                    )
                    _say({"done": key, "verdict": verdict})

    def judge(self) -> dict:
        from hybridlint.checker.inputs import make_arrays, to_spec

        case = self.case
        examples = [(e, 0) for e in case["examples"]] + [(e, 1) for e in case["unseen"]]
        result: dict = {
            "name": case["name"],
            "original_hybrid": [],
            "original_exported": [],
            "variants": {},
        }
        for label in case["variants"]:
            result["variants"][label] = {"eager": [], "hybrid": [], "exported": []}
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
                result["original_exported"].append(verdict)
                for label in case["variants"]:
                    for mode in ("eager", "hybrid", "exported"):
                        result["variants"][label][mode].append(verdict)
                continue
            result["original_hybrid"].append(
                self.verdict(
                    "original",
                    original,
                    example,
                    inputs,
                    params,
                    True,
                    reference,
                    result["original_exported"],
                )
            )
            for label, path in case["variants"].items():
                path = os.path.abspath(path)
                row = result["variants"][label]
                for mode in ("eager", "hybrid"):
                    exports = row["exported"] if mode == "hybrid" else None
                    row[mode].append(
                        self.verdict(
                            label,
                            path,
                            example,
                            inputs,
                            params,
                            mode == "hybrid",
                            reference,
                            exports,
                        )
                    )
        return result

    def verdict(self, label, path, example, inputs, params, hybrid, reference, exports=None):
        """The run's verdict against the reference; a hybridized run that equals it is
        exported too, and the exported model's verdict appended to `exports` (else the run's
        own verdict, so that `exports` has one entry an input)."""
        try:
            block, outs = self.run(label, path, example, inputs, params, hybrid)
            verdict = _compare(reference, outs)
            if hybrid and verdict.startswith("differs: max abs diff"):
                # the same block, seed and inputs once more: outputs that change from run to
                # run are MXNet's (a while_loop's padding rows are uninitialized memory)
                _, again = self.run(label, path, example, inputs, params, hybrid)
                if _compare(outs, again) != "equal":
                    verdict = f"random: hybridized outputs change from run to run ({verdict})"
        except BaseException as exc:  # noqa: BLE001 -- user code
            block, verdict = None, "error: " + _error(exc, path)
        if exports is not None:
            equal = verdict == "equal"
            exports.append(self.exported(block, label, inputs, reference) if equal else verdict)
        return verdict

    def exported(self, block, label: str, inputs: list, reference: List[np.ndarray]) -> str:
        """What users deploy: the hybridized block written by `export` and read back by
        `SymbolBlock.imports`, called with the same inputs (MXNet names the graph's inputs
        `data`, or `data0`, `data1`, ... over the array arguments; an unused one is not in
        the file)."""
        mx = self.mx
        prefix = os.path.join(self.workdir, f"export-{label}")
        try:
            block.export(prefix)
            arrays = _leaves(_to_mx(mx, inputs))
            names = (
                {"data": arrays[0]}
                if len(arrays) == 1
                else {f"data{i}": a for i, a in enumerate(arrays)}
            )
            symbol_file = f"{prefix}-symbol.json"
            used = [n for n in mx.sym.load(symbol_file).list_inputs() if n in names]
            params = f"{prefix}-0000.params"
            imported = mx.gluon.SymbolBlock.imports(
                symbol_file, used, params if os.path.exists(params) else None
            )
            _seed(mx)
            outs: List[np.ndarray] = []
            for _ in range(int(self.case.get("calls", 1))):
                outs.extend(_flatten(imported(*[names[n] for n in used])))
            mx.nd.waitall()
        except BaseException as exc:  # noqa: BLE001 -- user code
            return "error: " + _error(exc, "")
        return _compare(reference, outs)


def _say(event: dict) -> None:
    print(json.dumps(event), flush=True)


def main(argv: list) -> int:
    """``judge.py JOB.json WORKDIR``: the inference verdicts, one JSON line per case; WORKDIR
    keeps each input's reference parameters for ``judge.py JOB.json WORKDIR --training
    [--skip KEY,...]``, which prints the training steps (see `Judge.training`)."""
    with open(argv[1]) as handle:
        job = json.load(handle)
    workdir = argv[2]
    warnings.simplefilter("ignore")
    import mxnet as mx

    case = job["cases"][0]
    if "--training" in argv:
        skip = set(argv[argv.index("--skip") + 1].split(",")) if "--skip" in argv else set()
        Judge(mx, case, workdir).training(skip)
        return 0
    try:
        result = Judge(mx, case, workdir).judge()
    except BaseException as exc:  # noqa: BLE001 -- report
        result = {"name": case["name"], "crash": f"{type(exc).__name__}: {exc}"}
    _say(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
