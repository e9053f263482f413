"""Examples inferred from the code, for a file no example configures.

Most users never write examples, and without one `--verify` can only check a fix as one
expression on generated shapes: an unsafe fix (most of HL001's) is then left out, however
plainly right it is. So for a file with no configured example, the checker infers some:

* the block is built as the code itself builds it: with the literal arguments of a call in
  the same file (`InterpolationBlock(scale_factor=8)` in a parent's `__init__`), or with none,
  `Net()`, when every parameter of its `__init__` has a default;
* failing both, with arguments guessed for its required parameters (guesses.py): from the
  type the code states (an annotation, or a numpy/Google-style docstring entry `channels :
  int`; an int named as a size is that size of the trial input), else, with no stated type,
  from the name (`batch_size`, `height`, `mean`, `eos_id`, `num_classes`) or the use
  (`mx.nd.array(mean)`). An int is the trial input's channel count (its axis 1:
  `in_channels` must match the input; the trials' own, then 16), except one named as a step
  or a count of groups or layers (`stride`, `groups`, `num_layers`): 1; a float 0.1, a bool
  False, a type that admits None (`tuple of 2 int or None`) None. A parameter nothing tells
  (`backbone`, `layout : str`) leaves the block without an example. The notes say the
  arguments were guessed;
* its inputs are the required arguments of `hybrid_forward` after `F` that are not its
  parameters (the names `self.<name> = self.params.get(...)` or `Parameter(...)` registers);
  optional ones (`sample_weight=None`) are left out;
* each input gets a random float32 array whose rank is what the code reads off it (`n, c, h,
  w = x.shape` is rank 4, `x.shape[2]` at least 3), else ranks 2, 4, 3 in turn; an input the
  body relates to another (a `pick` index, a `SequenceMask` length: input_shapes.py) gets
  its shape from that one's, tried first.

A candidate becomes an example only when the *original* block runs eagerly on it: the eager
run is the reference, so an input it rejects judges nothing. The first such candidate of each
block is kept. Everything `--verify` then says about these examples is what it says about a
configured one; the notes and HL903 name them "inferred" so that a user knows which input was
run and can configure a real one (`[tool.hybridlint.examples]`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from ..mxnet_facts import LAYER_PARAMETERS, NDARRAY_ONLY_ATTRIBUTES
from . import guesses
from .input_shapes import Shape, dependent_inputs, derive_shapes
from .inputs import Example, InputSpec
from .report import EquivalenceReport
from .wire import value_to_wire

# One shape per rank: small, every dimension different (a swapped axis shows), spatial sizes
# divisible by 2, 4 and 8 (downscaling blocks), channels 3 (an RGB image).
SHAPES: Dict[int, Tuple[int, ...]] = {
    1: (6,),
    2: (4, 6),
    3: (2, 4, 6),
    4: (2, 3, 8, 8),
    5: (2, 3, 4, 8, 8),
}
DEFAULT_RANKS = (2, 4, 3, 1)
# The same with 16 channels, tried after SHAPES when the constructor's channel count is a
# guess: a block may divide it (`int(in_channels / 4)` branches, an SE block's reduction 16),
# and 3 channels then build a layer of none.
WIDE: Dict[int, Tuple[int, ...]] = {r: s[:1] + (16,) + s[2:] for r, s in SHAPES.items() if r > 1}
# per block; a candidate the original rejects costs an eager run (milliseconds), the first it
# takes one check (eager, hybridized, export)
MAX_CANDIDATES = 8
MAX_SHAPES = 5  # candidate input shapes per way of building the block
MAX_UNIFORM = 3  # of which every input at one trial rank
MAX_CALLS = 2  # literal call sites tried per block
MAX_BLOCKS = 8  # per file
# the run statuses that say the original itself cannot run on a candidate
_UNRUNNABLE = ("cannot_run", "eager_error")


@dataclass
class InferredExample:
    """An example the checker made up for `example.target`, and how (for the notes)."""

    example: Example
    report: EquivalenceReport
    described: str = ""


GUESSED = " (constructor arguments guessed from their stated types, names or uses)"


@dataclass
class _Block:
    name: str
    constructors: List[Dict[str, Any]] = field(default_factory=list)  # kwargs to build it
    guessed: bool = False  # the only constructor's arguments are guesses (_guessed_arguments)
    inputs: List[str] = field(default_factory=list)
    ranks: Dict[str, int] = field(default_factory=dict)  # input -> exact rank, when unpacked
    min_ranks: Dict[str, int] = field(default_factory=dict)  # input -> at least this rank
    forward: Optional[ast.FunctionDef] = None
    # input -> "use" / "name": its shape derives from another input's (input_shapes.py)
    dependent: Dict[str, str] = field(default_factory=dict)
    stored: Dict[str, str] = field(default_factory=dict)  # self.<attr> -> __init__ argument
    defaults: Dict[str, Any] = field(default_factory=dict)  # __init__'s literal defaults


# the key of a block's configuration variant among the candidates (`_candidates`)
VARIANT = "\0variant"
CONFIGURED = " (constructor arguments changed so that the fixed lines run)"
EXPLORED = " (constructor arguments changed so that the branches the first example leaves run)"


def candidates(source: str, lines: Iterable[int] = ()) -> Dict[str, List[Example]]:
    """The candidate examples, in order of preference, of each block of `source` that the file
    says how to build: first those that hold one of `lines` or call a module-level function
    holding one, then the others (those built without guesses before those built from guessed
    arguments, and within each those no other class of the file uses first); at most
    MAX_BLOCKS blocks."""
    return {name: examples for name, (examples, _, _) in _candidates(source, lines).items()}


def _candidates(source: str, lines: Iterable[int]) -> Dict[str, Tuple[List[Example], bool, bool]]:
    """candidates(), each block's with whether its constructor arguments are guesses and, for
    a configuration variant, whether it takes branches holding fixes (else it explores)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    wanted = set(lines)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    # a fix in a module-level helper (`_apply_weighting(F, loss, ...)`) runs in the blocks
    # that call it
    helpers = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and _holds(node, wanted)
    }
    calls = _literal_calls(tree, classes)
    out: Dict[str, Tuple[List[Example], bool, bool]] = {}
    # the blocks holding a fix first: their runs prove it; then the others, whose runs show
    # what fails with no finding to say so (dynamic lint, as a configured example does), those
    # no other class of the file uses first: their runs also run the blocks they hold
    holders = [n for n in classes.values() if _holds(n, wanted) or _names(n) & helpers]
    used = {name for node in classes.values() for name in _names(node) - {node.name}}
    built = [(n, _block(n, classes, calls.get(n.name, []))) for n in classes.values()]
    found = [(n, b) for n, b in built if b is not None]
    rest = [(n, b) for n, b in found if n not in holders]
    # of the others, those built as the code builds them before those built from guesses
    # (a guess builds a block no caller may build), so that guesses crowd none of them out;
    # within each, those no other class uses first
    rest.sort(key=lambda item: (item[1].guessed, item[0].name in used))
    for _, block in [(n, b) for n, b in found if n in holders] + rest:
        out[block.name] = (_examples(block), block.guessed, False)
        # the configuration that takes the branches holding fixes the first one leaves, else
        # (no fix needs one) the one that takes the configuration branches it leaves: what
        # fails hybridized there (`Binarize()(weight) if self.binarized else weight`, an
        # autograd.Function reading weight.shape) has no finding, and no run would say so
        variant = _configuration_variant(block, block.constructors[0], wanted)
        for_fixes = variant is not None
        if variant is None:
            variant = _configuration_variant(block, block.constructors[0], None)
        if variant is not None:
            changed = replace(block, constructors=[variant])
            out[block.name + VARIANT] = (_examples(changed), block.guessed, for_fixes)
        if sum(not key.endswith(VARIANT) for key in out) >= MAX_BLOCKS:
            break  # variants do not count: they must not crowd other blocks out
    return out


def _holds(node: ast.stmt, lines: Set[int]) -> bool:
    return any(node.lineno <= line <= (node.end_lineno or node.lineno) for line in lines)


def _names(node: ast.AST) -> Set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def infer_examples(
    source: str,
    lines: Iterable[int],
    run: Callable[[Sequence[Example]], List[EquivalenceReport]],
) -> List[InferredExample]:
    """One example per block of :func:`candidates` whose original runs eagerly on it.

    `run` checks examples of `source` (check_source): candidates are tried in rounds, the
    first candidate of every block at once, then the next one of the blocks still without an
    example, so a file costs at most MAX_CANDIDATES rounds."""
    made = _candidates(source, lines)
    pending = {key: list(options) for key, (options, _, _) in made.items()}
    found: Dict[str, InferredExample] = {}
    for _ in range(MAX_CANDIDATES):
        batch = [(key, options.pop(0)) for key, options in pending.items() if options]
        if not batch:
            break
        for (key, example), report in zip(batch, run([e for _, e in batch])):
            if report.stage == "timeout":  # a constructor or call that hangs: no more tries
                pending.pop(key, None)
                pending.pop(example.target + VARIANT, None)
                continue
            if not ran_eagerly(report):
                continue
            how = GUESSED if made[key][1] else ""
            if key.endswith(VARIANT):
                how += CONFIGURED if made[key][2] else EXPLORED
            found[key] = InferredExample(example, report, describe(example) + how)
            pending.pop(key, None)
    # each block's examples together, the variant after the first
    return [found[key] for key in made if key in found]


def ran_eagerly(report: EquivalenceReport) -> bool:
    """Whether the original block ran eagerly on the example: an inferred example is only as
    good as its eager run, the reference every fix is judged against. A build that fails
    (HL010: MXNet refuses a non-hybrid child when the block is built) never got there."""
    return report.status not in _UNRUNNABLE and report.stage != "build"


def describe(example: Example) -> str:
    """`Net(scale=2) with inputs (2, 3, 8, 8), (4, 6)`."""
    shapes = ", ".join(str(getattr(spec, "shape", spec)) for spec in example.inputs)
    kwargs = ", ".join(f"{k}={v!r}" for k, v in example.kwargs.items())
    s = "s" if len(example.inputs) > 1 else ""
    return f"{example.target}({kwargs}) with input{s} {shapes}"


def _literal_calls(tree: ast.Module, classes: Dict[str, ast.ClassDef]) -> Dict[str, List[dict]]:
    """Each class's calls in the file whose arguments are all literals, as keyword
    arguments (positional ones named by the class's own `__init__`), first ones first."""
    out: Dict[str, List[dict]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name = node.func.id
        if name not in classes or not (node.args or node.keywords):
            continue
        kwargs = _literal_kwargs(node, _method(list(_lineage(classes[name], classes)), "__init__"))
        if kwargs is not None and kwargs not in out.setdefault(name, []):
            out[name].append(kwargs)
    return out


def _literal_kwargs(call: ast.Call, init: Optional[ast.FunctionDef]) -> Optional[dict]:
    if any(k.arg is None for k in call.keywords) or any(
        isinstance(a, ast.Starred) for a in call.args
    ):
        return None
    names = [a.arg for a in init.args.args[1:]] if init is not None else []
    if len(call.args) > len(names):
        return None
    try:
        pairs = list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords]
        kwargs = {name: ast.literal_eval(value) for name, value in pairs}
    except (ValueError, SyntaxError, TypeError):
        return None
    try:
        value_to_wire(kwargs)  # data the checker's worker takes as constructor arguments
    except ValueError:
        return None  # a set, bytes, a complex number
    return kwargs


def _block(
    node: ast.ClassDef, classes: Dict[str, ast.ClassDef], calls: List[dict]
) -> Optional[_Block]:
    """How to build and call a block, or None when the file does not say."""
    lineage = list(_lineage(node, classes))
    forward = _method(lineage, "hybrid_forward")
    init = _method(lineage, "__init__")
    bare: List[dict] = [{}] if init is None or _callable_bare(init) else []
    constructors = bare + calls[:MAX_CALLS]
    guessed = False
    if not constructors and init is not None:
        guess = _guessed_arguments(init, lineage)
        if guess is not None:
            constructors, guessed = [guess], True
    if forward is None or not constructors:
        return None
    args = forward.args
    if args.posonlyargs:
        return None
    positional = [a.arg for a in args.args]
    if len(positional) < 3 and (len(positional) < 2 or args.vararg is None):
        return None  # self, F, at least one input (or `*inputs`)
    block = _Block(node.name, constructors, guessed)
    block.inputs = _forward_inputs(forward, lineage)
    if not block.inputs:
        return None
    _rank_hints(forward, block)
    block.forward = forward
    block.dependent = dependent_inputs(forward, block.inputs)
    if init is not None:
        block.stored, block.defaults = _stored_arguments(init), _literal_defaults(init)
    return block


def _configuration_variant(
    block: _Block, base: Dict[str, Any], lines: Optional[Set[int]]
) -> Optional[Dict[str, Any]]:
    """`base` with the constructor arguments changed that make hybrid_forward take the
    branches holding fixed `lines` that `base` leaves, or None when none needs it (or no value
    is found). A test of what `__init__` stores from an argument with a literal bool or number
    default (`if self._beta != 0:`, `if self.lw1 > 0.0 or self.lw2 > 0.0:`, `if
    self._size_average:`) is flipped by a value of the default's type: a bool's negation, a
    number one past (or at) a constant it is compared with. An unsafe fix in a branch the
    default configuration never takes is otherwise proven by no inferred example.

    With `lines` None, every configuration test of hybrid_forward (`if` statements and
    conditional expressions, outer ones first) is flipped the other way from `base`: a run of
    the code the first example never runs."""
    forward, stored, defaults = block.forward, block.stored, block.defaults
    if forward is None or not stored or lines is not None and not lines:
        return None  # a test reads what __init__ stores from its arguments, or is not flipped
    kwargs, changed = dict(base), False

    def known() -> Dict[str, Any]:  # a guess a trial input resolves is no value yet
        return {k: v for k, v in {**defaults, **kwargs}.items() if not guesses.is_marker(v)}

    tests = _branch_tests(forward, lines) if lines is not None else _all_tests(forward)
    for branching, wanted in tests:
        test = branching.test
        now = _evaluate(test, stored, known())
        needed = (not now) if wanted is None else wanted
        if now in (None, needed):
            continue
        if wanted is None and _reads_ndarray_only(_taken(branching, needed)):
            continue  # an eager-only mode its author wrote (`else: h, w = x.shape[2:]`)
        for param, value in _flips(test, stored, defaults):
            if _evaluate(test, stored, {**known(), param: value}) == needed:
                kwargs[param], changed = value, True
                break
    return kwargs if changed else None


def _stored_arguments(init: ast.FunctionDef) -> Dict[str, str]:
    """`self.<attribute>` -> the argument of `init` it is stored from (`self._beta = beta`)."""
    names = {a.arg for a in init.args.args + init.args.kwonlyargs}
    out: Dict[str, str] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and isinstance(value, ast.Name)
                and value.id in names
            ):
                out[target.attr] = value.id
    return out


def _literal_defaults(init: ast.FunctionDef) -> Dict[str, Any]:
    """The arguments of `init` whose default is a literal bool or number, with it."""
    args = init.args
    pairs = list(zip(args.args[len(args.args) - len(args.defaults) :], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    out: Dict[str, Any] = {}
    for arg, default in pairs:
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError):
            continue
        if isinstance(value, (bool, int, float)):
            out[arg.arg] = value
    return out


_Branching = Union[ast.If, ast.IfExp]


def _branch_tests(forward: ast.FunctionDef, lines: Set[int]) -> List[Tuple[_Branching, bool]]:
    """The `if` statements holding one of `lines`, outer ones first, each with the truth its
    test needs."""
    out: List[Tuple[_Branching, bool]] = []
    for node in ast.walk(forward):
        if isinstance(node, ast.If):
            if any(_holds(stmt, lines) for stmt in node.body):
                out.append((node, True))
            elif any(_holds(stmt, lines) for stmt in node.orelse):
                out.append((node, False))
    return out


def _all_tests(forward: ast.FunctionDef) -> List[Tuple[_Branching, Optional[bool]]]:
    """Every `if` statement and conditional expression, outer ones first, each wanting the
    truth the configuration so far does not give its test (None)."""
    return [(node, None) for node in ast.walk(forward) if isinstance(node, (ast.If, ast.IfExp))]


def _taken(node: _Branching, truth: bool) -> List[ast.AST]:
    """What `node` runs when its test is `truth`."""
    taken = node.body if truth else node.orelse
    return list(taken) if isinstance(taken, list) else [taken]


def _reads_ndarray_only(nodes: Sequence[ast.AST]) -> bool:
    """Whether `nodes` read an attribute only an NDArray has (`.shape`, `.asnumpy`): a branch
    written for eager use, which the rules see and judge (HL001 where the block's
    constructions take it; gluoncv2's `fixed_size=False` is such a mode, labelled `context`);
    the exploring variant is for what no rule sees."""
    return any(
        isinstance(n, ast.Attribute) and n.attr in NDARRAY_ONLY_ATTRIBUTES
        for node in nodes
        for n in ast.walk(node)
    )


class _Unknown(Exception):
    pass


def _evaluate(test: ast.expr, stored: Dict[str, str], values: Dict[str, Any]) -> Optional[bool]:
    """The truth of a configuration test under the constructor arguments `values`; None when
    it reads anything else."""
    try:
        return bool(_value(test, stored, values))
    except (_Unknown, TypeError):
        return None


_COMPARE = {
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}


def _value(node: ast.expr, stored: Dict[str, str], values: Dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and stored.get(node.attr) in values
    ):
        return values[stored[node.attr]]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _value(node.operand, stored, values)
    if isinstance(node, ast.BoolOp):
        items = [_value(v, stored, values) for v in node.values]
        return all(items) if isinstance(node.op, ast.And) else any(items)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        left = _value(node.left, stored, values)
        right = _value(node.comparators[0], stored, values)
        return _COMPARE[type(node.ops[0])](left, right)
    raise _Unknown


def _flips(
    test: ast.expr, stored: Dict[str, str], defaults: Dict[str, Any]
) -> List[Tuple[str, Any]]:
    """Candidate (argument, value) pairs for the arguments `test` reads: a bool default's
    negation; for a number, one past, one short of and at each number it is compared with
    (0 and 1 when none), in the default's type."""
    constants = [
        n.value
        for n in ast.walk(test)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, (int, float))
        and not isinstance(n.value, bool)
    ]
    out: List[Tuple[str, Any]] = []
    for node in ast.walk(test):
        if not (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and stored.get(node.attr) in defaults
        ):
            continue
        param = stored[node.attr]
        default = defaults[param]
        if isinstance(default, bool):
            out.append((param, not default))
            continue
        kind = type(default)
        for c in constants or [0, 1]:
            out += [(param, kind(c + 1)), (param, kind(c - 1)), (param, kind(c))]
    return out


def _lineage(node: ast.ClassDef, classes: Dict[str, ast.ClassDef]) -> Iterable[ast.ClassDef]:
    """The class and its bases defined in the same file, nearest first."""
    seen: Set[str] = set()
    todo = [node]
    while todo:
        current = todo.pop(0)
        if current.name in seen:
            continue
        seen.add(current.name)
        yield current
        for base in current.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                todo.append(classes[base.id])


def _method(lineage: Sequence[ast.ClassDef], name: str) -> Optional[ast.FunctionDef]:
    for cls in lineage:
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == name:
                return item
    return None


def _callable_bare(init: ast.FunctionDef) -> bool:
    """Whether `__init__(self)` binds every parameter (defaults, *args, **kwargs)."""
    args = init.args
    positional = args.posonlyargs + args.args
    required = len(positional) - 1 - len(args.defaults)
    keyword_only = [d for d in args.kw_defaults if d is None]
    return required <= 0 and not keyword_only


def _forward_inputs(forward: ast.FunctionDef, lineage: Sequence[ast.ClassDef]) -> List[str]:
    """The required arguments of hybrid_forward after `self, F` that are not parameters (the
    block's inputs; optional ones are left out, `*args` gets nothing unless it is all there
    is: `hybrid_forward(self, F, *states)` gets one input, `states`)."""
    params = forward.args.args
    given = [a.arg for a in params[2 : len(params) - len(forward.args.defaults)]]
    parameters = _parameters(lineage)
    inputs = [name for name in given if name not in parameters]
    if not inputs and len(params) == 2 and forward.args.vararg is not None:
        return [forward.args.vararg.arg]
    return inputs


def _required_arguments(init: ast.FunctionDef) -> List[ast.arg]:
    """The arguments of `init` after `self` with no default, keyword-only ones too."""
    args = init.args
    positional = args.posonlyargs + args.args
    required = list(positional[1 : len(positional) - len(args.defaults)])
    return required + [a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]


def _guessed_arguments(init: ast.FunctionDef, lineage: Sequence[ast.ClassDef]) -> Optional[dict]:
    """Keyword arguments for the required parameters of `init`, each guessed from the type the
    code states for it, its name or its use (guesses.py), or None when one cannot be."""
    args = init.args
    required = _required_arguments(init)
    if any(a in args.posonlyargs for a in required):
        return None  # cannot be passed by keyword
    owner = next((c for c in lineage if init in c.body), lineage[0])  # `__init__` may be a base's
    documented = guesses.documented_types(
        [ast.get_docstring(lineage[0]), ast.get_docstring(owner), ast.get_docstring(init)]
    )
    kwargs: Dict[str, Any] = {}
    for arg in required:
        value = guesses.argument_value(arg, documented, init)
        if value is guesses.NO_GUESS:
            return None
        kwargs[arg.arg] = value
    return kwargs


def _parameters(lineage: Sequence[ast.ClassDef]) -> Set[str]:
    """Attributes assigned a Parameter in any method, and those a Gluon layer the lineage
    derives from registers (`class Conv2D1bit(nn.Conv2D)`: `weight`, `bias`;
    mxnet_facts.LAYER_PARAMETERS): hybrid_forward receives them by name."""
    names: Set[str] = set()
    defined = {cls.name for cls in lineage}
    for cls in lineage:
        for base in cls.bases:
            base_name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
            if base_name not in defined:
                names.update(LAYER_PARAMETERS.get(base_name, ()))
    for cls in lineage:
        for node in ast.walk(cls):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
                continue
            if not _makes_parameter(node.value.func):
                continue
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    names.add(target.attr)
    return names


def _makes_parameter(func: ast.expr) -> bool:
    """`self.params.get(...)`, `self.params.get_constant(...)`, `[gluon.]Parameter(...)`,
    `[gluon.]Constant(...)`."""
    if isinstance(func, ast.Attribute) and func.attr in ("get", "get_constant"):
        owner = func.value
        return isinstance(owner, ast.Attribute) and owner.attr == "params"
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("Parameter", "Constant")


def _rank_hints(forward: ast.FunctionDef, block: _Block) -> None:
    """What the body reads of each input's shape: `a, b = x.shape` (exact rank),
    `x.shape[k]` (at least k + 1), `x.shape[k:]` (at least k + 2: something is left)."""
    inputs = set(block.inputs)
    for node in ast.walk(forward):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            name = _shape_of(value)
            if name in inputs and isinstance(target, (ast.Tuple, ast.List)):
                if not any(isinstance(e, ast.Starred) for e in target.elts):
                    block.ranks.setdefault(name, len(target.elts))
        if isinstance(node, ast.Subscript):
            name = _shape_of(node.value)
            if name not in inputs:
                continue
            index = node.slice
            least = 0
            if isinstance(index, ast.Constant) and isinstance(index.value, int):
                least = index.value + 1 if index.value >= 0 else -index.value
            elif isinstance(index, ast.Slice) and isinstance(index.lower, ast.Constant):
                lower = index.lower.value
                least = lower + 2 if isinstance(lower, int) and lower >= 0 else 0
            block.min_ranks[name] = max(block.min_ranks.get(name, 0), least)


def _shape_of(node: ast.AST) -> Optional[str]:
    """`x` for `x.shape`."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        if isinstance(node.value, ast.Name):
            return node.value.id
    return None


def _examples(block: _Block) -> List[Example]:
    """Up to MAX_CANDIDATES examples: for each way to build the block, input shapes from
    `_trial_shapes`."""
    examples = []
    for kwargs in block.constructors:
        trials = _trial_shapes(block, kwargs)[:MAX_SHAPES]
        if any(v in (guesses.CHANNELS, guesses.PER_CHANNEL) for v in kwargs.values()):
            wide = _trial_shapes(block, kwargs, WIDE)[:MAX_UNIFORM]
            trials += [t for t in wide if t not in trials]
        examples += [
            Example(
                block.name,
                tuple(InputSpec(shape) for shape in shapes),
                {k: guesses.resolve(v, shapes) for k, v in kwargs.items()},
                inferred=True,
            )
            for shapes in trials
        ]
    return examples[:MAX_CANDIDATES]


def _trial_shapes(
    block: _Block, kwargs: Dict[str, Any], table: Dict[int, Tuple[int, ...]] = SHAPES
) -> List[Tuple[Shape, ...]]:
    """The inputs' shapes to try, in order: the shapes the body relates (a `pick` index, a
    `SequenceMask` length, a child's second argument: input_shapes.py) with the free inputs
    at each trial rank; then every input at each trial rank (its known rank, when the body
    unpacks it); then inputs only named like indices (`label`) as the first input's shape
    without its last axis (`table`: a shape per rank). The eager run of the original decides
    which is kept."""
    uniform: List[Tuple[Shape, ...]] = []
    for rank in _trial_ranks(block):
        shapes = tuple(
            table.get(r, SHAPES[r]) for r in (_rank_of(block, n, rank) for n in block.inputs)
        )
        uniform.append(shapes)
    used = {n: how for n, how in block.dependent.items() if how == "use"}
    related = _related(block, kwargs, uniform, used, use_names=False) if used else []
    named = _related(block, kwargs, uniform, block.dependent, use_names=True)
    return list(dict.fromkeys(related + uniform[:MAX_UNIFORM] + named))


def _related(
    block: _Block,
    kwargs: Dict[str, Any],
    uniform: List[Tuple[Shape, ...]],
    dependent: Dict[str, str],
    use_names: bool,
) -> List[Tuple[Shape, ...]]:
    """For each uniform trial, its free inputs' shapes with the `dependent` inputs' derived
    from them (input_shapes.derive_shapes, under the constructor arguments `kwargs`)."""
    if block.forward is None or not dependent:
        return []
    values = {**block.defaults, **kwargs}
    attributes = {attr: values[arg] for attr, arg in block.stored.items() if arg in values}
    out = []
    for shapes in uniform:
        free = {n: s for n, s in zip(block.inputs, shapes) if n not in dependent}
        derived = derive_shapes(block.forward, block.inputs, free, dependent, attributes, use_names)
        if derived is not None and all(0 < len(s) <= max(SHAPES) for s in derived):
            out.append(derived)
    return out


def _trial_ranks(block: _Block) -> List[int]:
    """The ranks to try for inputs with no exact rank: those the code's shape reads suggest
    first (`x.shape[2:]` is most often an image's (height, width): rank 4), then DEFAULT_RANKS."""
    least = max(block.min_ranks.values(), default=0)
    known = [block.ranks[n] for n in block.inputs if n in block.ranks]
    first = known + ([max(least, 4)] if least > 2 else [])
    ranks = [r for r in first + list(DEFAULT_RANKS) if r in SHAPES and r >= least]
    return list(dict.fromkeys(ranks)) or [r for r in SHAPES if r >= least][:1]


def _rank_of(block: _Block, name: str, trial: int) -> int:
    rank = block.ranks.get(name, 0)
    if rank in SHAPES:
        return rank
    least = block.min_ranks.get(name, 0)
    return trial if trial >= least else min(least, max(SHAPES))


def unrun_blocks(source: str, lines: Iterable[int], ran: Set[str]) -> List[Tuple[str, str]]:
    """The blocks of `source` (classes defining or inheriting hybrid_forward in the file)
    holding one of `lines` that no example in `ran` (class names) ran, each with a
    `[tool.hybridlint.examples]` value to fill in: `{ kwargs = { mean = <mean> }, inputs =
    [<x>] }` (its constructor's required arguments; hybrid_forward's required inputs that are
    not its parameters). `--verify` proves the fixes of such a block only once an example
    runs it, so the notes name what to configure."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    wanted = set(lines)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    # a block's run runs the code of its bases too
    ran = {
        base.name for name in ran if name in classes for base in _lineage(classes[name], classes)
    }
    out = []
    for node in classes.values():
        if node.name in ran or not _holds(node, wanted):
            continue
        lineage = list(_lineage(node, classes))
        forward = _method(lineage, "hybrid_forward")
        if forward is None:
            continue
        init = _method(lineage, "__init__")
        required = [a.arg for a in _required_arguments(init)] if init is not None else []
        inputs = _forward_inputs(forward, lineage) or ["x"]
        kwargs = ", ".join(f"{name} = <{name}>" for name in required)
        shown = ", ".join(f"<{name}>" for name in inputs)
        value = f"{{ kwargs = {{ {kwargs} }}, inputs = [{shown}] }}" if kwargs else ""
        out.append((node.name, value or f"{{ inputs = [{shown}] }}"))
    return out
