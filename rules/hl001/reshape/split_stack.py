"""Pieces of a tensor stacked again: a split into a count read from the shape, a reshape of
each piece, a stack (pure shape algebra; the flow in `flow.py` finds the statements).

i-RevNet's psi block (and its ports, gluoncv2's IRevDownscale) does a space-to-depth as

    d2_split_seq = y.split(axis=2, num_outputs=(y.shape[2] // self.scale))
    d2_split_seq = [t.reshape(batch, y_height, y_channels) for t in d2_split_seq]
    y = F.stack(*d2_split_seq, axis=1)

`num_outputs=` is an operator attribute, fixed when the graph is built, so no shape-free form
of the split exists: the graph would have as many outputs as the traced input had columns.
The three statements together are a fixed graph, though: cutting axis `a` of y into pieces of
width `s` is a reshape of that axis into (N, s); reshaping every piece alike is a reshape of
the lot with N kept; stacking them at axis `k` moves N there. So they become

    y.reshape(<split codes>).transpose(axes=<perm>).reshape(<merge codes>)

The dims are split into "atoms", the common refinement of a piece's dims and the target's
(`(b, h, s, c) -> (b, h // s, c * s * s)`: atoms b | h // s, s | s | c), the source is
reshaped into those atoms with -4 codes (a split of one dim into two, one of them a literal
size such as `self.scale`), transposed so that N sits at the stack axis, and reshaped so that
each target dim is its atoms merged (0, -3, or one trailing -1). Every step is checked by
MXNet's own reshape algorithm on the monomials (`codes.simulate`).

Exact where the split gives at least two pieces of width `s`: where `s` divides the axis
and the axis is wider than `s`. Elsewhere the original failed eagerly too, split into other
widths (`num_outputs = 6 // 4 = 1`), or, with one piece, got the array itself from `split`
(MXNet returns no list for `num_outputs=1`), so `*pieces` unpacked its first axis instead: an
UNSAFE fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from .codes import Code, Dim, Ref, const, simulate

Render = Callable[[Dim], Optional[str]]
_ONE = const(1)


@dataclass
class Steps:
    """The rewrite of split-reshape-stack as method calls on the split's data, in order: each
    a `("reshape", codes)` or `("transpose", axes)`; a code `Ref(i)` is the literal size
    `literals[i]` (its source text)."""

    calls: List[Tuple[str, Tuple]]
    literals: List[str]


def _whole(q: Dim) -> bool:
    """q is a size > 1 made of whole factors (so it may be an atom of a larger dim)."""
    return (
        q.coef.denominator == 1
        and q.coef >= 1
        and all(exponent > 0 for _, exponent in q.powers)
        and (q.coef > 1 or bool(q.powers))
    )


def refine(
    source: Sequence[Dim], target: Sequence[Dim]
) -> Optional[Tuple[List[List[Dim]], List[List[Dim]]]]:
    """The atoms of each source dim and of each target dim (the same sequence, read in row-major
    order), or None when a dim of one straddles two of the other in a way no product of whole
    factors describes."""
    if not source or not target:
        return None
    src_atoms: List[List[Dim]] = [[] for _ in source]
    groups: List[List[Dim]] = [[] for _ in target]
    i = j = 0
    cur_s, cur_t = source[0], target[0]
    while i < len(source) and j < len(target):
        if cur_s == cur_t or _whole(cur_t / cur_s):  # the source's rest fits in the target's
            atom = cur_s
        elif _whole(cur_s / cur_t):  # the target's rest is a factor of the source's
            atom = cur_t
        else:
            return None
        src_atoms[i].append(atom)
        groups[j].append(atom)
        cur_s, cur_t = cur_s / atom, cur_t / atom
        if cur_s == _ONE:
            i += 1
            cur_s = source[i] if i < len(source) else _ONE
        if cur_t == _ONE:
            j += 1
            cur_t = target[j] if j < len(target) else _ONE
    if i != len(source) or j != len(target):
        return None
    return src_atoms, groups


def _product(dims: Sequence[Dim]) -> Dim:
    out = const(1)
    for d in dims:
        out = out * d
    return out


class _Literals:
    def __init__(self, render: Render) -> None:
        self.render = render
        self.dims: List[Dim] = []
        self.texts: List[str] = []

    def code(self, dim: Dim) -> Optional[Code]:
        if not dim.powers and dim.coef.denominator == 1 and dim.coef > 0:
            return int(dim.coef)
        text = self.render(dim)
        if text is None:
            return None
        if dim in self.dims:
            return Ref(self.dims.index(dim))
        self.dims.append(dim)
        self.texts.append(text)
        return Ref(len(self.dims) - 1)


def _split_pass(
    dims: List[List[Dim]], literals: _Literals
) -> Optional[Tuple[Tuple[Code, ...], List[List[Dim]]]]:
    """One reshape splitting the first atom off every dim that has several."""
    codes: List[Code] = []
    after: List[List[Dim]] = []
    for atoms in dims:
        if len(atoms) == 1:
            codes.append(0)
            after.append(atoms)
            continue
        first, rest = atoms[0], _product(atoms[1:])
        a, b = literals.code(first), literals.code(rest)
        if b is not None:
            codes += [-4, -1, b]
        elif a is not None:
            codes += [-4, a, -1]
        else:
            return None  # two sizes that both read the data's shape: no -4 names them
        after += [[first], atoms[1:]]
    return tuple(codes), after


def _merge_pass(groups: List[List[Dim]]) -> Tuple[Tuple[Code, ...], List[List[Dim]]]:
    """One reshape merging the first two atoms of every group that has several (or all of the
    last group's with -1, when it is the only one left to merge)."""
    multi = [i for i, g in enumerate(groups) if len(g) > 1]
    if multi == [len(groups) - 1]:
        last = groups[-1]
        return tuple([0] * (len(groups) - 1) + [-1]), groups[:-1] + [[_product(last)]]
    codes: List[Code] = []
    after: List[List[Dim]] = []
    for group in groups:
        if len(group) > 1:
            codes.append(-3)
            after.append([group[0] * group[1]] + group[2:])
            # the group's other atoms stay separate dims until a later pass
            codes += [0] * (len(group) - 2)
        else:
            codes.append(0)
            after.append(group)
    return tuple(codes), after


def split_stack_steps(
    data: Sequence[Dim],
    axis: int,
    width: Dim,
    target: Sequence[Dim],
    stack_axis: int,
    render: Render,
) -> Optional[Steps]:
    """The method calls computing `stack([reshape(p, target) for p in split(data, axis,
    pieces of width `width`)], axis=stack_axis)`; None when no exact sequence is found."""
    rank = len(data)
    if not 0 <= axis < rank or width == const(0):
        return None
    count = data[axis] / width
    piece = list(data)
    piece[axis] = width
    refined = refine(piece, target)
    if refined is None:
        return None
    src_atoms, groups = refined
    if not -len(target) - 1 <= stack_axis <= len(target):
        return None
    stack_axis %= len(target) + 1
    literals = _Literals(render)
    # the data's atoms: the count first in the split axis
    current: List[List[Dim]] = [
        ([count] + atoms) if i == axis else list(atoms) for i, atoms in enumerate(src_atoms)
    ]
    ids: List[List[int]] = []  # atom ids in the order of the data's dims
    counter = 0
    for atoms in current:
        ids.append(list(range(counter, counter + len(atoms))))
        counter += len(atoms)
    count_id = ids[axis][0]
    calls: List[Tuple[str, Tuple]] = []
    shape = list(data)
    while any(len(atoms) > 1 for atoms in current):
        step = _split_pass(current, literals)
        if step is None:
            return None
        codes, current = step
        expected = [_product(atoms) for atoms in current]
        if simulate(shape, codes, literals.dims) != expected:
            return None
        calls.append(("reshape", codes))
        shape = expected
    # transpose: the target's groups, with the count inserted at the stack axis
    group_ids: List[List[int]] = []
    flat = [i for row in ids for i in row]
    position = 0
    atom_of_target: List[List[int]] = []
    piece_ids = [i for row in ids for i in row if i != count_id]
    for group in groups:
        atom_of_target.append(piece_ids[position : position + len(group)])
        position += len(group)
    group_ids = atom_of_target[:stack_axis] + [[count_id]] + atom_of_target[stack_axis:]
    order = [i for g in group_ids for i in g]
    perm = tuple(flat.index(i) for i in order)
    if perm != tuple(range(len(perm))):
        calls.append(("transpose", perm))
        shape = [shape[p] for p in perm]
    merged: List[List[Dim]] = []
    cursor = 0
    for g in group_ids:
        merged.append(shape[cursor : cursor + len(g)])
        cursor += len(g)
    while any(len(g) > 1 for g in merged):
        codes, merged = _merge_pass(merged)
        expected = [atom for g in merged for atom in g]  # (a group not merged yet: its dims)
        if simulate(shape, codes, literals.dims) != expected:
            return None
        calls.append(("reshape", codes))
        shape = expected
    final = list(target[:stack_axis]) + [count] + list(target[stack_axis:])
    if shape != final:
        return None
    return Steps(calls=calls, literals=literals.texts)


__all__ = ["Steps", "refine", "split_stack_steps"]
