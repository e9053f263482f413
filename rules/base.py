"""The rule base class and the example types every rule module uses.

A rule is a class with Fixit-style metadata (code, name, message, explanation, VALID and
INVALID examples beside the code) and `visit_<LibCSTNodeType>` methods. The linter core walks
each analysed function body ONCE and dispatches every node to every rule that has a method for
its type: that walk is how a rule FINDS what it reports, so it never searches a function for
candidates itself, and it reports only dispatched nodes (nodes in eager-only regions and in
nested defs/classes/lambdas are never dispatched). What every rule needs (which names are
tensors, shapes, eager-only regions, the helpers hybrid_forward reaches) is computed once:
read `self.facts` (the function being walked) and ask `self.value(expr)`, never re-derive it.
To DECIDE about a candidate or BUILD its fix a rule may read other parts of the tree with
`values.walk_nodes` or a small CSTVisitor: where a name is stored or read elsewhere in the
function, what `__init__` assigns, the class's other methods (HL002, HL005, HL007, HL010,
HL012, HL013, HL016 do). Class-level rules implement `check_class`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Callable,
    ClassVar,
    Dict,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

import libcst as cst

from ._examples import Fix, apply_fix, fix_changes
from .module_context import ModuleContext
from ._namespace_param import NAME as THREADED_NAME, Threading, mentions_namespace, threading_for
from .values import TENSOR, walk_nodes

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import ClassFacts, FunctionFacts, Value

from ..ftypes import FixSafety  # noqa: E402  fix safety is one enum (hybridlint/ftypes.py)

SAFE = FixSafety.SAFE  # == "safe"
UNSAFE = FixSafety.UNSAFE  # == "unsafe"

# One edit of a fix: (original node, what takes its place): a node, cst.RemovalSentinel.REMOVE
# (a statement deleted) or a cst.FlattenSentinel (one statement replaced by several), exactly
# what a CSTTransformer's on_leave may return.
Replacement = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]
Edit = Tuple[cst.CSTNode, Replacement]


@dataclass(frozen=True)
class Valid:
    """Source that the rule must not report."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Source the rule must report.

    `line` is the expected 1-based line of the first finding of this rule; `fixed` the whole
    expected source after fixing with this rule alone (None: the rule offers no fix here);
    `safety` the expected fix safety of the first finding ("safe", "unsafe" or None).

    `fix` states the fix as the change it makes, so the example reads like a diff instead of
    the whole source twice: `fix=("z += y", "z = z + y")`, or a list of (old, new) pairs
    applied in order. Each `old` must occur exactly once in the source as it stands by then;
    text after a line break continues at the indentation of the line `old` starts on
    (`_examples.apply_fix`). `fixed` is derived from it here, and a missing or ambiguous `old`
    fails the import, naming the example's file and line. Give `fixed` itself where the fix
    rewrites a whole body rather than a few places.
    """

    code: str
    line: int = 1
    fixed: Optional[str] = None
    safety: Optional[str] = None
    fix: Optional[Fix] = None

    def __post_init__(self) -> None:
        if self.fix is None:
            return
        if self.fixed is not None:
            raise ValueError(f"{_example_site()}: an Invalid example gives both fixed= and fix=")
        try:
            fixed = apply_fix(self.code, self.fix)
        except ValueError as error:
            raise ValueError(f"{_example_site()}: Invalid example: {error}") from None
        object.__setattr__(self, "fix", fix_changes(self.fix))  # hashable, like the other fields
        object.__setattr__(self, "fixed", fixed)


# A row of :func:`invalid_table`: (body, line) for a finding without a fix, (body, line, fix,
# safety) for one with a fix, or an Invalid written out in full (another source, `fixed=`).
Row = Union[Invalid, Tuple[str, int], Tuple[str, int, Fix, Optional[str]]]


def invalid_table(build: Callable[[str], str], *rows: Row) -> List[Invalid]:
    """INVALID examples written as a table, one line an example: the row (body, line, fix,
    safety) is `Invalid(build(body), line=line, fix=fix, safety=safety)` and (body, line) is
    `Invalid(build(body), line=line)`, `build` being the module's block builder (`net`,
    `net_xy`, a `partial` of them); an Invalid row stands as written. Most of a rule's examples
    differ only in the body, its line and one change, which the keyword form spreads over six
    lines each."""
    examples = []
    for number, row in enumerate(rows, 1):
        if isinstance(row, Invalid):
            examples.append(row)
            continue
        fix: Optional[Fix] = None
        safety: Optional[str] = None
        if len(row) == 2:
            body, line = row
        else:
            body, line, fix, safety = row
        try:
            examples.append(Invalid(build(body), line=line, fix=fix, safety=safety))
        except ValueError as error:
            raise ValueError(f"{error}\n(row {number} of the table: {body!r})") from None
    return examples


def valid_table(build: Callable[[str], str], *rows: Union[str, Valid]) -> List[Valid]:
    """VALID examples written as a table, one line an example: the row `body` is
    `Valid(build(body))` (`build` as for :func:`invalid_table`); a Valid row stands as written."""
    return [row if isinstance(row, Valid) else Valid(build(row)) for row in rows]


def returns(expr: str, new: str, safety: Optional[str], line: int = 3) -> Row:
    """The :func:`invalid_table` row of a block whose body is `return <expr>` (line 3 of a
    `net` or `net_xy` block) and whose fix rewrites that expression as `new`: the expression
    the rule is about, written once."""
    return (f"return {expr}", line, (expr, new), safety)


def _example_site() -> str:
    """`rules/<module>.py:<line>` of the Invalid(...) being built: the first frame outside this
    module and the dataclass's generated __init__ (the module names the rule)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and (
        frame.f_code.co_filename == __file__ or frame.f_code.co_name == "__init__"
    ):
        frame = frame.f_back
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return f"{os.path.relpath(frame.f_code.co_filename, root)}:{frame.f_lineno}"


@dataclass
class Report:
    """What a rule reports: the node to point at, the message, and an optional fix.

    `edits` are (original node, replacement node) pairs, applied together or not at all.
    `statement` is the statement the node sits in (for suppression comments on its first line).
    """

    rule: "Rule"
    node: cst.CSTNode
    message: str
    edits: Tuple[Edit, ...] = ()
    safety: Optional[str] = None
    statement: Optional[cst.CSTNode] = None


@dataclass
class WalkState:
    """Where the linter core's walk is; shared by all rules of one run, read-only for them."""

    facts: Optional["FunctionFacts"] = None
    env: Dict[str, "Value"] = field(default_factory=dict)
    statement: Optional[cst.CSTNode] = None
    module: ModuleContext = field(default_factory=ModuleContext)  # imports, top-level classes
    # the classes a configured example can name (`path.py::Name`): top-level, and the only
    # class of the module by that name (rules/analysis.example_inputs is keyed by name)
    example_classes: Set[str] = field(default_factory=set)
    # helper -> how a fix there gets F (`Rule.namespace`), computed once per helper
    threadings: Dict[cst.CSTNode, Optional[Threading]] = field(default_factory=dict)


class Rule:
    """Base class of all hybridlint rules (see docs/architecture.md, "How to write a rule")."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    message: ClassVar[str] = ""
    explanation: ClassVar[str] = ""
    VALID: ClassVar[Sequence[Valid]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()
    # a default-off rule run for what the configured examples prove (config.EXAMPLE_PROVEN:
    # the linter runs a copy with this set where the selection leaves the rule off by default)
    examples_only: ClassVar[bool] = False
    # a rule whose fixes may call `F.<op>` in a helper without F: `namespace` is then "F" and
    # `report` adds the parameter and the callers' `F=F` (`_namespace_param.threading_for`)
    threads_namespace: ClassVar[bool] = False

    def __init__(self, state: Optional["WalkState"] = None) -> None:
        self.reports: List[Report] = []
        self.state = state if state is not None else WalkState()

    def configured_examples(
        self, klass: Optional["ClassFacts"]
    ) -> List[Tuple[Tuple[str, str], ...]]:
        """What the configured examples pass `klass`'s hybrid_forward (one (kind, shown) per
        input, `analysis.example_inputs`), when an example can name the class
        (`WalkState.example_classes`: top-level, the module's only class by that name); else
        none. What an example proves is what `examples_only` rules report."""
        if klass is None or klass.name not in self.state.example_classes:
            return []
        from .analysis import example_inputs  # (analysis is heavy; base is imported first)

        return example_inputs(klass.name)

    @property
    def facts(self) -> Optional["FunctionFacts"]:
        """The analysis of the function being walked (None in check_class)."""
        return self.state.facts

    @property
    def env(self) -> Dict[str, "Value"]:
        return self.state.env

    @property
    def statement(self) -> Optional[cst.CSTNode]:
        return self.state.statement

    # -- reading the analysis -------------------------------------------------------------
    def value(self, expr: cst.BaseExpression) -> "Value":
        """What the analysis knows about `expr` at the current point (kind, shape)."""
        assert self.facts is not None
        return self.facts.value(expr, self.env)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        """True only when the analysis is certain `expr` is an NDArray/Symbol.

        A value taken for a tensor by its position alone (`Value.assumed`: a hybrid_forward
        input, or an item of one) is certain only when the body uses that very name as only an
        array can be used (`FunctionFacts.used_as_array`): gluon passes lists, tuples and dicts
        of arrays the same way, and an unproven value is never reported as a certain hazard.
        An index of such a name (`x[0]`, `x[:, 1]`) is an array when the name is one, and so
        is arithmetic or a comparison with one operand that is certainly an array (eagerly an
        NDArray operand makes the result one, or the operation raised).
        """
        value = self.value(expr)
        if value.kind != TENSOR:
            return False
        if not value.assumed:
            return True
        root = expr
        while isinstance(root, cst.Subscript):
            root = root.value
        # arithmetic or a comparison with one certain array gives an array (or raised eagerly:
        # `pred_x2 < label_x1` of two names used as arrays; blind round 11's IOU loss)
        if isinstance(root, cst.BinaryOperation):
            return self.is_tensor(root.left) or self.is_tensor(root.right)
        if isinstance(root, cst.Comparison) and len(root.comparisons) == 1:
            return self.is_tensor(root.left) or self.is_tensor(root.comparisons[0].comparator)
        if isinstance(root, cst.UnaryOperation) and not isinstance(root.operator, cst.Not):
            return self.is_tensor(root.expression)
        return (
            isinstance(root, cst.Name)
            and self.facts is not None
            and self.facts.used_as_array(root.value)
        )

    @property
    def namespace(self) -> Optional[str]:
        """The name of the F parameter of the function being walked (may be `_`, ...); for a
        rule that `threads_namespace`, "F" in a helper without one that can be given one
        (its fixes then add the parameter, see `report`)."""
        facts = self.facts
        if facts is None:
            return None
        if facts.namespace is None and self.threads_namespace and self._threading() is not None:
            return THREADED_NAME
        return facts.namespace

    @property
    def own_namespace(self) -> Optional[str]:
        """The function's own F parameter, None in a helper without one even where a fix may
        give it one: where an F-free form exists (`x.reshape_like(y)`, `x.transpose()`), it is
        the better fix there."""
        return self.facts.namespace if self.facts is not None else None

    def _threading(self) -> Optional[Threading]:
        """`_namespace_param.threading_for` of the function being walked, once per function."""
        facts = self.facts
        if facts is None:
            return None
        cache = self.state.threadings
        if facts.node not in cache:
            cache[facts.node] = threading_for(facts, self.state.module.imports)
        return cache[facts.node]

    def _threading_needed(self, edits: Sequence[Edit]) -> Optional[Threading]:
        """How the helper being walked gets F, when these edits of a fix call F inside it and
        it has none (`threads_namespace` rules only), else None."""
        facts = self.facts
        if not edits or not self.threads_namespace or facts is None or facts.namespace:
            return None
        threading = self._threading()
        if threading is None or not mentions_namespace(edits, facts.node):
            return None
        return threading

    # -- reporting ------------------------------------------------------------------------
    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        *,
        replacement: Optional[cst.CSTNode] = None,
        edits: Sequence[Edit] = (),
        safety: str = SAFE,
    ) -> None:
        """Report `node`; with `replacement` (or several `edits`) the finding is fixable.

        `safety` is "safe" (same outputs for every input) or "unsafe" (needs review or
        verification; applied only with --unsafe-fixes).
        """
        all_edits = tuple(edits)
        if replacement is not None:
            all_edits = ((node, replacement),) + all_edits
        threading = self._threading_needed(all_edits)
        if threading is not None:  # the fix calls F in a helper without it: the helper gets F
            all_edits += tuple(e for e in threading.edits if e not in all_edits)
            message = (message or self.message) + threading.note
            if threading.why:
                safety = UNSAFE
        if safety == SAFE and all_edits and self._rests_on_callers(node):
            safety = UNSAFE
        self.reports.append(
            Report(
                rule=self,
                node=node,
                message=message or self.message,
                edits=all_edits,
                safety=safety if all_edits else None,
                statement=self.statement,
            )
        )

    def _rests_on_callers(self, node: cst.CSTNode) -> bool:
        """Whether `node` mentions an input that is a tensor only because the module's own
        call sites pass one (`FunctionFacts.caller_tensors`, issue 11): another module may call
        the block with a list of arrays, so a fix there is unsafe, never safe."""
        names = self.facts.caller_tensors if self.facts is not None else ()
        return bool(names) and any(
            isinstance(n, cst.Name) and n.value in names for n in walk_nodes(node)
        )

    # -- optional hook --------------------------------------------------------------------
    def check_class(self, klass: "ClassFacts") -> None:
        """Called once per class that defines hybrid_forward (for class-level rules)."""
