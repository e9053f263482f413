"""The public checks: check_block, check_fix, check_file, check_expression.

They only describe jobs; user code runs in the session's worker (or a forked child for live
objects), never in the calling process.
"""

from __future__ import annotations

import inspect
import os
import textwrap
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple

from .inputs import Example, ExampleError, InputSpec, examples_from_config, to_spec
from .loader import BACKENDS
from .report import EquivalenceReport
from .session import CheckerSession, run_forked, shared_session


def _job_options(backend: str, rtol: float, atol: float, seed: int) -> dict:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    return dict(backend=backend, rtol=float(rtol), atol=float(atol), seed=int(seed))


def _specs(inputs: Iterable[Any]) -> List[InputSpec]:
    specs = [to_spec(x) for x in inputs]
    if not specs:
        raise ExampleError("give at least one input (a shape like (2, 3), a spec or an array)")
    return specs


def check_block(
    block_or_factory: Any,
    *inputs: Any,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    backend: str = "engine",
    seed: int = 0,
    kwargs: Optional[Mapping] = None,
    timeout: Optional[float] = None,
    session: Optional[CheckerSession] = None,
) -> EquivalenceReport:
    """Run a block eagerly, hybridized and through export/imports; compare the outputs.

    `block_or_factory` is a HybridBlock class (or a function returning a block), called with
    `kwargs`; a class or function defined at module level is re-imported from its file in the
    worker under `backend`. A live block instance or a closure is checked in a forked child
    on the MXNet it was built with (report.backend says which; a note says so when that is
    not the requested backend). Inputs are shapes, InputSpecs or arrays.
    """
    options = _job_options(backend, rtol, atol, seed)
    specs = _specs(inputs)
    session = session or shared_session()
    source = _module_source(block_or_factory)
    if source is not None:
        filename, text, qualname = source
        job = dict(
            options,
            kind="block",
            source=text,
            filename=filename,
            target=qualname,
            label=f"{filename}::{qualname}",
            inputs=specs,
            kwargs=dict(kwargs or {}),
        )
        return session.run(job, timeout)
    label = _label(block_or_factory)
    return run_forked(
        lambda: _check_live(block_or_factory, specs, dict(kwargs or {}), options, label),
        label,
        backend,
        session.timeout if timeout is None else timeout,
        session.memory_mb,
        session.limits,
    )


def _module_source(obj: Any):
    """(file, text, qualname) when `obj` can be re-imported by name from its file."""
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return None
    if getattr(obj, "__module__", None) == "__main__":
        return None  # re-importing a script would run it again: check it live
    qualname = getattr(obj, "__qualname__", "")
    if "<" in qualname:  # <locals>, <lambda>
        return None
    filename = _file_of(obj)
    if filename is None or not os.path.isfile(filename):
        return None
    try:
        with open(filename, encoding="utf-8") as handle:
            return filename, handle.read(), qualname
    except (OSError, TypeError, UnicodeDecodeError):
        return None


def _label(obj: Any) -> str:
    kind = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    return getattr(kind, "__qualname__", repr(obj))


def _check_live(obj: Any, specs, kwargs: dict, options: dict, label: str) -> EquivalenceReport:
    """In the forked child: check a live block (or the block a closure makes)."""
    import importlib

    from .inputs import make_arrays
    from .jobs import Failed, check_built_block

    block = obj(**kwargs) if inspect.isclass(obj) or inspect.isfunction(obj) else obj
    used = _framework_of(block)
    if used is None:
        return EquivalenceReport(
            "cannot_run",
            target=label,
            backend=options["backend"],
            stage="build",
            reason=f"{label} is not a Gluon Block (got {type(block).__name__})",
        )
    mx = importlib.import_module("hybridlint.engine" if used == "engine" else "mxnet")
    notes = (
        []
        if used == options["backend"]
        else [
            f"the block was built with {used}, so it was checked on {used}, not "
            f"{options['backend']}; pass the class to check it on {options['backend']}"
        ]
    )

    def initialised():
        from .execute import seed_everything

        seed_everything(mx, options["seed"])
        block.initialize()
        return block

    files = {f for f in (_file_of(type(block)), _file_of(obj)) if f}
    base = dict(target=label, backend=used, notes=notes)
    try:
        return check_built_block(
            mx,
            initialised,
            make_arrays(specs, options["seed"]),
            base,
            files,
            options["rtol"],
            options["atol"],
            seed=options["seed"],
            fresh=False,  # a live instance cannot be built again
        )
    except Failed as failed:  # the same verdict a block checked by name gets
        return failed.report


def _framework_of(block: Any) -> Optional[str]:
    for cls in type(block).__mro__:
        module = cls.__module__ or ""
        if cls.__name__ == "Block" and module.startswith("hybridlint.engine"):
            return "engine"
        if cls.__name__ == "Block" and module.startswith("mxnet"):
            return "mxnet"
    return None


def _file_of(obj: Any) -> Optional[str]:
    """The file defining a function or class (also when its module is not in sys.modules)."""
    code = getattr(obj, "__code__", None)
    if code is None and inspect.isclass(obj):
        code = next((v.__code__ for v in vars(obj).values() if hasattr(v, "__code__")), None)
    if code is not None:
        return code.co_filename
    try:
        return inspect.getsourcefile(obj)
    except TypeError:
        return None


def check_fix(
    original_source: str,
    fixed_source: str,
    target: str,
    inputs: Sequence[Any],
    *,
    kwargs: Optional[Mapping] = None,
    path: str = "<string>",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    backend: str = "engine",
    seed: int = 0,
    timeout: Optional[float] = None,
    session: Optional[CheckerSession] = None,
) -> EquivalenceReport:
    """Original eager vs fixed eager vs fixed hybridized (and exported), same parameters.

    The original is built and initialised with `seed`; its parameter values are given by
    name to the fixed block (constants a fix adds keep their own values). Each of the three
    runs is a fresh instance called the same seeded sequence of calls, compared call for
    call (see jobs._fix_job).
    """
    job = dict(
        _job_options(backend, rtol, atol, seed),
        kind="fix",
        original=original_source,
        fixed=fixed_source,
        filename=path,
        target=target,
        label=f"{path}::{target}",
        inputs=_specs(inputs),
        kwargs=dict(kwargs or {}),
    )
    return (session or shared_session()).run(job, timeout)


def check_source(
    source: str,
    path: str,
    examples: Sequence[Example],
    *,
    backend: str = "engine",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    session: Optional[CheckerSession] = None,
    timeout: Optional[float] = None,
) -> List[EquivalenceReport]:
    """check_block for each example of a source text (the file need not exist on disk)."""
    options = _job_options(backend, rtol, atol, seed)
    session = session or shared_session()
    reports = []
    for example in examples:
        job = dict(
            options,
            kind="block",
            source=source,
            filename=path,
            target=example.target,
            label=f"{path}::{example.target}",
            inputs=example.specs(),
            kwargs=dict(example.kwargs),
        )
        reports.append(session.run(job, timeout))
    return reports


def check_file(
    path: str,
    examples: Optional[Any] = None,
    *,
    backend: str = "engine",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    session: Optional[CheckerSession] = None,
    timeout: Optional[float] = None,
) -> List[EquivalenceReport]:
    """Check every block of a file that has example inputs.

    `examples`: a list of Example, or {"Class": [shape, ...]} / {"Class": {"inputs": [...],
    "kwargs": {...}}}; None reads the examples of the nearest configuration file.
    A file that cannot be read gives one `cannot_run` report.
    """
    from hybridlint.files import SourceDecodeError, SourceReadError, read_source

    try:
        source = read_source(path).text
    except (SourceReadError, SourceDecodeError) as exc:
        return [
            EquivalenceReport(
                "cannot_run",
                target=path,
                backend=backend,
                stage="read",
                reason=f"cannot read {path}: {exc}",
            )
        ]
    chosen = _normalise_examples(path, examples)
    return check_source(
        source,
        path,
        chosen,
        backend=backend,
        rtol=rtol,
        atol=atol,
        seed=seed,
        session=session,
        timeout=timeout,
    )


def _normalise_examples(path: str, examples: Any) -> List[Example]:
    if examples is None:
        return examples_from_pyproject(path)
    if isinstance(examples, Mapping):
        out = []
        for name, value in examples.items():
            entry = value if isinstance(value, Mapping) else {"inputs": list(value)}
            out.extend(examples_from_config({f"{path}::{name}": entry})[path])
        return out
    out = list(examples)
    if not all(isinstance(e, Example) for e in out):
        raise ExampleError("examples must be Example objects or a {Class: inputs} mapping")
    return out


def examples_from_pyproject(path: str) -> List[Example]:
    """Examples for `path` from `[tool.hybridlint.examples]` of the file that configures it:
    the nearest hybridlint.toml (its `[examples]`) or pyproject.toml with a `[tool.hybridlint]`
    table, the same file the linter reads its settings from (`config.find_config_file`), whose
    name this function keeps for the API's sake. A pyproject.toml without the table
    (a sub-package's packaging metadata, say) is skipped, as ruff skips one without
    `[tool.ruff]`. Unreadable or invalid TOML raises `config.ConfigError`."""
    from hybridlint.config import find_config_file, tool_table

    candidate = find_config_file([path])
    if candidate is None:
        return []
    table = tool_table(candidate)
    folder = os.path.dirname(candidate)
    rel = os.path.relpath(os.path.abspath(path), folder).replace(os.sep, "/")
    found = examples_from_config(table.get("examples", {}))
    return [
        e
        for key, items in found.items()
        if os.path.normpath(key).replace(os.sep, "/") == rel
        for e in items
    ]


EXPRESSION_TEMPLATE = """\
from mxnet import gluon
{imports}

class ExpressionBlock(gluon.HybridBlock):
    def hybrid_forward(self, {namespace}, {args}):
{prelude}        return {expression}
"""


def expression_source(
    expression: str,
    names: Sequence[str],
    namespace: str = "F",
    imports: Sequence[str] = (),
    prelude: str = "",
) -> str:
    """A hybrid_forward returning `expression` of the tensors `names`, after the statement
    `prelude` (a fix of one statement: `x += y` run, then `x` returned)."""
    body = textwrap.dedent(expression).strip()
    if "\n" in body:
        # kept line by line inside parentheses: a backslash continuation or a comment in the
        # expression stays valid there (joined into one line, neither would)
        body = "(" + body + "\n)"
    statement = textwrap.indent(textwrap.dedent(prelude).strip() + "\n", " " * 8) if prelude else ""
    return EXPRESSION_TEMPLATE.format(
        args=", ".join(names),
        expression=body,
        namespace=namespace,
        imports="\n".join(imports),
        prelude=statement,
    )


def check_expression(
    original: str,
    fixed: str,
    shapes: Mapping[str, Any],
    *,
    backend: str = "engine",
    seed: int = 0,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    namespace: str = "F",
    imports: Sequence[str] = (),
    session: Optional[CheckerSession] = None,
    timeout: Optional[float] = None,
    preludes: Tuple[str, str] = ("", ""),
) -> EquivalenceReport:
    """Expression-level fix check: `original` eager vs `fixed` eager and hybridized.
    `preludes`: a statement each version runs before returning its expression.

    `shapes` maps each tensor name in the expressions to its shape (or InputSpec / array);
    the namespace is `F`, e.g. check_expression("x[:, 1]", "F.squeeze(F.slice_axis(x, axis=1,
    begin=1, end=2), axis=1)", {"x": (2, 3)}). Used when a fixed file has no examples, and by
    the rules' property tests.
    """
    names = list(shapes)
    for name in names:
        if not name.isidentifier():
            raise ExampleError(f"{name!r} is not a valid tensor name")
    return check_fix(
        expression_source(original, names, namespace, imports, preludes[0]),
        expression_source(fixed, names, namespace, imports, preludes[1]),
        "ExpressionBlock",
        [shapes[n] for n in names],
        path="<expression>",
        backend=backend,
        seed=seed,
        rtol=rtol,
        atol=atol,
        session=session,
        timeout=timeout,
    )
