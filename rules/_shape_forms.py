"""Shapes relative to a root tensor of unknown rank, for HL007's "can these shapes differ?".

A hybrid_forward input's rank is rarely written anywhere, yet `x - x.sum(axis=1, keepdims=True)`
surely mixes shapes and `F.sum(x, axis=1) * x.sum(axis=1)` surely does not. A *form* says what
an array's shape is in terms of a root's dims, for each rank the root may have (1 to
`MAX_RANK`): `(root, per_rank)` where `per_rank[r - 1]` is the tuple of dims when the root has
rank r (None where the operations are invalid at that rank, e.g. axis 2 of a matrix). A dim is
an int (a literal dim, 1 above all), a symbol `"<root>#i"` (the root's dim i, taken for one
that is not 1) or None (unknown). Roots are the function's tensor inputs and the results of
operators whose shape nothing else tells (a fresh root each).

Two forms of the same root are *equal* when every rank valid for both gives the same dims,
and *differ* when every such rank gives a different rank or a 1 against a root's dim (an
elementwise Symbol operator needs identical shapes; the eager one broadcasts). Forms of
different roots are compared only by where they surely have 1s (`ones`): keepdims reductions
or expand_dims on different axes (`(m, 1) + (1, n)`) are a pairwise broadcast.
"""

from __future__ import annotations

from typing import Callable, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Union

Dim = Union[int, str, None]
Dims = Tuple[Dim, ...]
Form = Tuple[str, Tuple[Optional[Dims], ...]]

MAX_RANK = 5


def root(name: str) -> Form:
    """The form of an array named `name` (its own dims, whatever its rank)."""
    return (name, tuple(tuple(f"{name}#{i}" for i in range(r)) for r in range(1, MAX_RANK + 1)))


def _map(form: Optional[Form], step: Callable[[Dims], Optional[Dims]]) -> Optional[Form]:
    if form is None:
        return None
    per_rank = tuple(None if dims is None else step(dims) for dims in form[1])
    return None if all(d is None for d in per_rank) else (form[0], per_rank)


def sized(form: Optional[Form], rank: int, axis: int, dim: Dim) -> Optional[Form]:
    """`form` known to have rank `rank` and the dim `dim` at `axis` (a convolution's output:
    rank 4, its channel count at axis 1)."""
    if form is None or not 1 <= rank <= MAX_RANK or not 0 <= axis < rank:
        return None
    dims = form[1][rank - 1]
    if dims is None:
        return None
    per_rank = tuple(
        dims[:axis] + (dim,) + dims[axis + 1 :] if r == rank else None
        for r in range(1, MAX_RANK + 1)
    )
    return (form[0], per_rank)


def split_piece(form: Optional[Form], axis: int, dim: Dim) -> Optional[Form]:
    """The form of each piece of a split into `dim` pieces along `axis` (no squeeze) of an
    array of form `form`, when every rank valid for it has exactly `dim` there: 1 at the axis
    (one channel each). None when that is not proven."""
    if form is None or dim is None:
        return None
    out: List[Optional[Dims]] = []
    for dims in form[1]:
        if dims is None:
            out.append(None)
            continue
        position = axis + len(dims) if axis < 0 else axis
        if not 0 <= position < len(dims) or dims[position] != dim:
            return None
        out.append(dims[:position] + (1,) + dims[position + 1 :])
    return None if all(d is None for d in out) else (form[0], tuple(out))


def _axes(axis: Sequence[int], rank: int) -> Optional[List[int]]:
    """Axes normalised for `rank` (negative from the end), None when one is out of range or
    repeated (MXNet raises)."""
    out = []
    for a in axis:
        position = a + rank if a < 0 else a
        if not 0 <= position < rank or position in out:
            return None
        out.append(position)
    return out


def reduce(
    form: Optional[Form], axis: Optional[Tuple[int, ...]], keepdims: bool, exclude: bool = False
) -> Optional[Form]:
    """`sum/mean/max/min/prod/norm(x, axis=..., keepdims=..., exclude=...)`: MXNet 1.x gives
    (1,) when every axis goes and keepdims is False."""

    def step(dims: Dims) -> Optional[Dims]:
        rank = len(dims)
        if axis is None:
            gone = list(range(rank))
        else:
            listed = _axes(axis, rank)
            if listed is None:
                return None
            gone = [i for i in range(rank) if i not in listed] if exclude else listed
        if keepdims:
            return tuple(1 if i in gone else d for i, d in enumerate(dims))
        kept = tuple(d for i, d in enumerate(dims) if i not in gone)
        return kept or (1,)

    return _map(form, step)


def expand(form: Optional[Form], axis: int, dim: Dim = 1) -> Optional[Form]:
    """`expand_dims(x, axis)`: a 1 inserted (a negative axis counts from the new end); with
    `dim`, that dim (`F.stack(*items, axis)`: the item count, None when unknown)."""

    def step(dims: Dims) -> Optional[Dims]:
        position = axis + len(dims) + 1 if axis < 0 else axis
        if not 0 <= position <= len(dims):
            return None
        return dims[:position] + (dim,) + dims[position:]

    return _map(form, step)


def squeeze(form: Optional[Form], axis: Tuple[int, ...]) -> Optional[Form]:
    """`squeeze(x, axis=...)` of literal axes (working code squeezes dims that are 1)."""

    def step(dims: Dims) -> Optional[Dims]:
        listed = _axes(axis, len(dims))
        if listed is None or len(listed) == len(dims):
            return None
        return tuple(d for i, d in enumerate(dims) if i not in listed)

    return _map(form, step)


def transpose(form: Optional[Form], axes: Optional[Tuple[int, ...]]) -> Optional[Form]:
    """`transpose(x)` (reversed) or `transpose(x, axes=...)`."""

    def step(dims: Dims) -> Optional[Dims]:
        if axes is None:
            return tuple(reversed(dims))
        listed = _axes(axes, len(dims))
        if listed is None or len(listed) != len(dims):
            return None
        return tuple(dims[i] for i in listed)

    return _map(form, step)


def swap(form: Optional[Form], first: int, second: int) -> Optional[Form]:
    """`swapaxes(x, dim1, dim2)`."""

    def step(dims: Dims) -> Optional[Dims]:
        listed = _axes((first,), len(dims)), _axes((second,), len(dims))
        if listed[0] is None or listed[1] is None:
            return None
        a, b = listed[0][0], listed[1][0]
        out = list(dims)
        out[a], out[b] = dims[b], dims[a]
        return tuple(out)

    return _map(form, step)


def reshape(form: Optional[Form], target: Sequence[Optional[int]]) -> Optional[Form]:
    """`reshape(x, target)` with literal codes: a positive dim, 0 (copy the dim at that
    position), -1 (unknown); any other code (or a computed element, None) gives no form."""
    if any(t is None or t < -1 for t in target):
        return None

    def step(dims: Dims) -> Optional[Dims]:
        out: List[Dim] = []
        for i, t in enumerate(target):
            if t == 0:
                if i >= len(dims):
                    return None
                out.append(dims[i])
            else:
                out.append(None if t == -1 else t)
        return tuple(out)

    return _map(form, step)


def broadcast(a: Optional[Form], b: Optional[Form]) -> Optional[Form]:
    """The eager (numpy) broadcast of two forms of one root; None for different roots."""
    if a is None or b is None or a[0] != b[0]:
        return None
    per_rank: List[Optional[Dims]] = []
    for x, y in zip(a[1], b[1]):
        if x is None or y is None:
            per_rank.append(None)
            continue
        width = max(len(x), len(y))
        x, y = (1,) * (width - len(x)) + x, (1,) * (width - len(y)) + y
        per_rank.append(
            tuple(p if p == q else q if p == 1 else p if q == 1 else None for p, q in zip(x, y))
        )
    return None if all(d is None for d in per_rank) else (a[0], tuple(per_rank))


def _relation(x: Dims, y: Dims) -> Optional[str]:
    if len(x) != len(y):
        return "differ"
    if any(
        (p == 1 and isinstance(q, str)) or (q == 1 and isinstance(p, str)) for p, q in zip(x, y)
    ):
        return "differ"
    if any(isinstance(p, int) and isinstance(q, int) and p != q for p, q in zip(x, y)):
        return "differ"
    if x == y and None not in x:
        return "equal"
    return None


def compare(a: Optional[Form], b: Optional[Form]) -> Optional[str]:
    """ "equal" / "differ" for two forms of one root (every rank valid for both agrees), else
    None."""
    if a is None or b is None or a[0] != b[0]:
        return None
    outcomes = {_relation(x, y) for x, y in zip(a[1], b[1]) if x is not None and y is not None}
    return outcomes.pop() if len(outcomes) == 1 else None


def known_rank_clash(a: Optional[Form], b: Optional[Form]) -> Optional[Tuple[int, Dim, Dim]]:
    """For forms of any roots, each valid at one rank only (a layer's output: a flattening
    `Dense(1)`'s (B, 1), a `Dense(10)`'s (B, 10)): `(axis, dim_a, dim_b)` where the same rank
    has a 1 against a literal dim above 1 or a layer's width (`units:self.classes`, taken for
    one above 1 as a root's dims are), which Symbol arithmetic rejects; else None."""
    if a is None or b is None:
        return None
    valid_a = [dims for dims in a[1] if dims is not None]
    valid_b = [dims for dims in b[1] if dims is not None]
    if len(valid_a) != 1 or len(valid_b) != 1 or len(valid_a[0]) != len(valid_b[0]):
        return None
    for axis, (p, q) in enumerate(zip(valid_a[0], valid_b[0])):
        if (p == 1 and _wide(q)) or (q == 1 and _wide(p)):
            return axis, p, q
    return None


_WIDTH = "units:"  # the prefix of a layer's width spelled as code (`units:self.classes`)


def spelled_width(spelling: str) -> Dim:
    """A layer's width known only as code (a constructor parameter), as a form's dim: taken
    for one above 1 (`_wide`), as a convolution's channel count is."""
    return _WIDTH + spelling


def dim_text(dim: Dim) -> str:
    """A dim as a message shows it: a number, or a spelled width's code."""
    return dim[len(_WIDTH) :] if isinstance(dim, str) and dim.startswith(_WIDTH) else str(dim)


def _wide(dim: Dim) -> bool:
    """A dim taken for one above 1: a literal above 1 or a layer's spelled width."""
    return (isinstance(dim, int) and dim > 1) or (isinstance(dim, str) and dim.startswith(_WIDTH))


def ones(form: Optional[Form]) -> Tuple[FrozenSet[int], FrozenSet[int]]:
    """Positions that are 1 at every valid rank, counted from the front and (negative) from
    the end: `x.sum(axis=1, keepdims=True)` -> ({1}, {}), `expand_dims(x, -1)` -> ({}, {-1})."""
    if form is None:
        return frozenset(), frozenset()
    valid = [dims for dims in form[1] if dims is not None]
    if not valid:
        return frozenset(), frozenset()

    def common(sets: Iterable[FrozenSet[int]]) -> FrozenSet[int]:
        result: Optional[FrozenSet[int]] = None
        for s in sets:
            result = s if result is None else result & s
        return result or frozenset()

    front = common(frozenset(i for i, d in enumerate(dims) if d == 1) for dims in valid)
    back = common(frozenset(i - len(dims) for i, d in enumerate(dims) if d == 1) for dims in valid)
    return front, back
