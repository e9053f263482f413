"""Per-sample label counts through NumPy: the center loss's `bincount` idiom (blind round 15).

Center-loss blocks copied across many repositories weigh each sample by how often its label
occurs in the batch::

    hist = F.array(np.bincount(label.asnumpy().astype(int)))
    centers_count = F.take(hist, label)

`asnumpy()` (HL002) and `F.array` (HL005) have no Symbol form, but the pair computes, for
sample i, the number of samples j with `label[j] == label[i]`, which the graph computes
without leaving it::

    centers_count = F.sum(
        F.broadcast_equal(label.reshape((-1, 1)), label.reshape((1, -1))), axis=1
    ).astype('float32')

HL002 and HL005 offer this same fix (the `hist` line goes, the `take` becomes the sum), when
`hist` is bound once, by that statement alone at the top of the function, and read once, by
`F.take(hist, <the same label>)`. The cast keeps `F.array`'s float32: without it the count had
the label's dtype, and int32 labels then made `loss / count` fail eagerly (blind round 19).
Unsafe: `astype(int)` truncates (2.7 counts as 2; the comparison does not).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from ._build import call, integer, tuple_of
from .base import UNSAFE, Edit
from .values import bound_targets, dotted_name, target_names, walk_nodes


BINCOUNT_NOTE = (
    "the label counts it takes per sample are `F.sum(F.broadcast_equal(label.reshape((-1, 1)), "
    "label.reshape((1, -1))), axis=1).astype('float32')` in the graph (unsafe: labels are "
    "compared as they are, not truncated to int)"
)


def plan_bincount(rule, node: cst.CSTNode) -> Optional[Tuple[List[Edit], str]]:
    """The edits (and safety) replacing the bincount idiom whose statement holds `node` (the
    `.asnumpy()` call or the array creation), or None."""
    facts, ns = rule.facts, rule.namespace
    if facts is None or ns is None:
        return None
    statement = next(  # (HL005 reports the creation where `hist` meets the graph, later)
        (
            s
            for s in facts.node.body.body
            if isinstance(s, cst.SimpleStatementLine) and any(n is node for n in walk_nodes(s))
        ),
        None,
    )
    if statement is None or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    label = _counted_label(rule, assign.value)
    if label is None:
        return None
    hist = assign.targets[0].target.value
    reads = [
        n
        for n in walk_nodes(facts.node.body)
        if isinstance(n, cst.Name) and n.value == hist and n is not assign.targets[0].target
    ]
    stores = [
        n for n in walk_nodes(facts.node.body) for t in bound_targets(n) if hist in target_names(t)
    ]
    take = _single_take(facts.node.body, hist, ns)
    if take is None or len(reads) != 1 or len(stores) != 1:
        return None
    index = take.args[1].value
    if not (isinstance(index, cst.Name) and index.value == label):
        return None
    column = call(f"{label}.reshape", [tuple_of([integer(-1), integer(1)])])
    row = call(f"{label}.reshape", [tuple_of([integer(1), integer(-1)])])
    summed = call(
        f"{ns}.sum",
        [call(f"{ns}.broadcast_equal", [column, row])],
        [("axis", integer(1))],
    )
    counted = cst.Call(
        func=cst.Attribute(value=summed, attr=cst.Name("astype")),
        args=[cst.Arg(cst.SimpleString("'float32'"))],
    )
    return [(statement, cst.RemovalSentinel.REMOVE), (take, counted)], UNSAFE


def _counted_label(rule, value: cst.BaseExpression) -> Optional[str]:
    """`F.array(np.bincount(<label>.asnumpy()[.astype(int)]))` (or `nd.array`) -> the label's
    name, a tensor; else None."""
    if not (isinstance(value, cst.Call) and len(value.args) == 1 and not value.args[0].keyword):
        return None
    if (dotted_name(value.func) or "").rpartition(".")[2] != "array":
        return None
    counts = value.args[0].value
    if not (
        isinstance(counts, cst.Call)
        and rule.state.module.qualify(dotted_name(counts.func)) == "numpy.bincount"
        and len(counts.args) == 1
        and not counts.args[0].keyword
    ):
        return None
    read = counts.args[0].value
    if (  # `.astype(int)` / `.astype('int64')`
        isinstance(read, cst.Call)
        and isinstance(read.func, cst.Attribute)
        and read.func.attr.value == "astype"
    ):
        read = read.func.value
    if not (
        isinstance(read, cst.Call)
        and not read.args
        and isinstance(read.func, cst.Attribute)
        and read.func.attr.value == "asnumpy"
        and isinstance(read.func.value, cst.Name)
        and rule.is_tensor(read.func.value)
    ):
        return None
    return read.func.value.value


def _single_take(body: cst.CSTNode, hist: str, ns: str) -> Optional[cst.Call]:
    """The one `F.take(hist, <index>)` call (two plain arguments) in `body`, or None."""
    found = [
        n
        for n in walk_nodes(body)
        if isinstance(n, cst.Call)
        and dotted_name(n.func) == f"{ns}.take"
        and len(n.args) == 2
        and not any(a.keyword or a.star for a in n.args)
        and isinstance(n.args[0].value, cst.Name)
        and n.args[0].value.value == hist
    ]
    return found[0] if len(found) == 1 else None
