"""Shape algebra -> MXNet reshape special codes (pure; no LibCST).

A reshape target written from the source's dimensions, `b, l, u = x.shape; x.reshape((b, l, h,
u // h))`, needs `x.shape`, which a Symbol does not have. MXNet's Reshape takes special codes
instead: 0 copies the next source dim, -1 infers one dim, -2 copies all remaining dims, -3
merges the next two, -4 splits the next one into the two codes after it (one may be -1), and a
positive value is a literal size (it still advances the source position). This module finds a
code sequence that gives exactly the written target for every source shape, or None.

Dimensions are monomials, `Dim(coef, powers)`: a rational coefficient times a product of
symbols with integer exponents. Source dims are symbols (one per axis); other symbols are
"external" sizes (`self._heads`, a constructor argument), assumed positive integers, as every
reshape size written in working code is. `INFER` stands for a literal -1 in the target. A code
is an int (0, -1, -2, -3, -4 special; a positive int is a literal size: what a written -1
stands for when that is a constant) or a `Ref(i)`: the target's i-th element used as a literal
size (only elements without source symbols can be literals).

Every candidate is checked by running MXNet 1.9.1's own algorithm (`InferReshapeShape`, as
`engine/ops/shape.py:infer_reshape` reproduces it, quirks included: the inferred position is
the index in the code list) on the monomials, so a returned sequence is exact by construction,
not by a heuristic. With `rest=True` the source has unknown trailing dims after the named ones
(only `x.shape[i]` was used, not an unpacking): their product is the symbol `REST`, codes never
read them one by one, and only an inferred -1 can absorb them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Collection, Dict, List, Optional, Sequence, Tuple, Union

REST = "<rest>"
EXT = "ext:"  # prefix of external sizes (`self._heads`, a constructor argument) in the flow


def is_rest(d: "Dim") -> bool:
    """A stand-in for unknown trailing dims (`REST`, or a per-tensor `<rest...>` symbol)."""
    return any(name.startswith("<rest") for name, _ in d.powers)


@dataclass(frozen=True)
class Dim:
    """coef * prod(symbol ** exponent); `powers` sorted, no zero exponents."""

    coef: Fraction = Fraction(1)
    powers: Tuple[Tuple[str, int], ...] = ()

    def __mul__(self, other: "Dim") -> "Dim":
        return _make(self.coef * other.coef, _add(dict(self.powers), dict(other.powers), 1))

    def __truediv__(self, other: "Dim") -> "Dim":
        return _make(self.coef / other.coef, _add(dict(self.powers), dict(other.powers), -1))

    def symbols(self) -> Tuple[str, ...]:
        return tuple(name for name, _ in self.powers)

    def evaluate(self, values: Dict[str, int]) -> Fraction:
        result = Fraction(self.coef)
        for name, exponent in self.powers:
            result *= Fraction(values[name]) ** exponent
        return result


class _Infer:
    def __repr__(self) -> str:
        return "INFER"


INFER = _Infer()
Term = Union[Dim, _Infer]


@dataclass(frozen=True)
class Ref:
    """The target's element `index`, used as a literal size code."""

    index: int


Code = Union[int, Ref]
ONE = Dim()


def symbol(name: str) -> Dim:
    return Dim(Fraction(1), ((name, 1),))


def const(value: Union[int, Fraction]) -> Dim:
    return Dim(Fraction(value))


def _add(a: Dict[str, int], b: Dict[str, int], sign: int) -> Dict[str, int]:
    out = dict(a)
    for name, exponent in b.items():
        out[name] = out.get(name, 0) + sign * exponent
    return out


def _make(coef: Fraction, powers: Dict[str, int]) -> Dim:
    return Dim(Fraction(coef), tuple(sorted((k, v) for k, v in powers.items() if v)))


def _product(dims: Sequence[Dim]) -> Dim:
    out = ONE
    for d in dims:
        out = out * d
    return out


def simulate(
    source: Sequence[Dim], codes: Sequence[Code], target: Sequence[Dim], *, copy_rest: bool = False
) -> Optional[List[Dim]]:
    """MXNet 1.9.1's InferReshapeShape (reverse=False) on monomials; None where MXNet raises.
    `target` supplies the values of `Ref` codes. A rest symbol (unknown trailing dims) is never
    read one dim at a time; -2 may copy it only with `copy_rest` (the target names that very
    tail, `x.shape[k:]`)."""
    out: List[Dim] = []
    src = 0
    inferred = -1
    i = 0
    while i < len(codes):
        code = codes[i]
        if isinstance(code, Ref):
            out.append(target[code.index])
            src += 1
        elif code > 0:
            out.append(const(code))
            src += 1
        elif code == 0:
            if src >= len(source) or is_rest(source[src]):
                return None
            out.append(source[src])
            src += 1
        elif code == -1:
            if inferred >= 0:
                return None
            inferred = i
            out.append(ONE)
            src += 1
        elif code == -2:
            if not copy_rest and any(is_rest(d) for d in source[src:]):
                return None
            out.extend(source[src:])
            src = len(source)
        elif code == -3:
            if src + 1 >= len(source) or is_rest(source[src]) or is_rest(source[src + 1]):
                return None
            out.append(source[src] * source[src + 1])
            src += 2
        elif code == -4:
            if i + 2 >= len(codes) or src >= len(source) or is_rest(source[src]):
                return None
            whole = source[src]
            src += 1
            first, second = codes[i + 1], codes[i + 2]
            i += 2
            if first == -1 and second == -1:
                return None
            if not all(isinstance(c, Ref) or c == -1 or c > 0 for c in (first, second)):
                return None  # MXNet: after -4 come sizes (or -1), not other codes
            a = whole / _size(second, target) if first == -1 else _size(first, target)
            b = whole / _size(first, target) if second == -1 else _size(second, target)
            if a * b != whole:
                return None
            out += [a, b]
        else:
            return None
        i += 1
    if 0 <= inferred < len(out):
        out[inferred] = _product(source) / _product(out)
    return out


def _size(code: Code, target: Sequence[Dim]) -> Dim:
    return target[code.index] if isinstance(code, Ref) else const(code)


def resolve(source: Sequence[Dim], target: Sequence[Term]) -> Optional[List[Dim]]:
    """The target with its literal -1 worked out (the size left over), or None when it has
    several -1 or its size cannot equal the source's."""
    infers = [i for i, t in enumerate(target) if t is INFER]
    if len(infers) > 1:
        return None
    known = [t for t in target if isinstance(t, Dim)]  # all but INFER
    total = _product(source)
    dims: List[Dim] = [t if isinstance(t, Dim) else total / _product(known) for t in target]
    return dims if _product(dims) == total else None


def synthesize(
    source: Sequence[str], target: Sequence[Term], *, rest: bool = False
) -> Optional[Tuple[Code, ...]]:
    """Codes that reshape a source of dims `source` (symbol names, in axis order; `rest`:
    unknown dims follow) into exactly `target`, for every value of the symbols; None if no
    sequence of MXNet's codes does (then only a report is possible)."""
    src = [symbol(name) for name in source] + ([symbol(REST)] if rest else [])
    sources = set(source) | {REST}
    return synthesize_dims(src, target, lambda name: name not in sources)


def synthesize_dims(
    src: Sequence[Dim],
    target: Sequence[Term],
    external: Callable[[str], bool],
    no_literal: Collection[int] = (),
    derived: bool = True,
) -> Optional[Tuple[Code, ...]]:
    """`synthesize` on source dims that are monomials themselves (a tensor whose shape the flow
    of a function worked out: `(b // h, h, l, d)` after an earlier reshape). `external(name)`
    says which symbols are sizes a code may name literally (`self._heads`), as opposed to dims
    of a tensor. A rest symbol (`is_rest`) written in the target (`x.shape[k:]`) may be copied
    by -2, and only there. Positions in `no_literal` are never written as literal codes (their
    expression reads a shape). Without `derived`, a written -1 is never replaced by the integer
    it stands for (a size the code would then repeat from elsewhere)."""
    dims = resolve(src, target)
    if dims is None:
        return _forced_ones(src, target, external, no_literal, derived)
    written_rest = {t for t, term in enumerate(target) if isinstance(term, Dim) and is_rest(term)}
    if any(is_rest(d) for t, d in enumerate(dims) if t not in written_rest) and written_rest:
        return None  # a -1 that would stand for part of a copied tail
    # a literal code is the user's own expression, or for the written -1 the integer it stands for
    literal: List[Optional[Code]] = []
    for t, d in enumerate(dims):
        if (
            target[t] is not INFER
            and t not in no_literal
            and all(external(name) for name in d.symbols())
            and d.coef > 0
        ):
            literal.append(Ref(t))
        elif (
            not d.powers
            and d.coef.denominator == 1
            and d.coef > 0
            and (derived or target[t] is not INFER)
        ):
            literal.append(int(d.coef))
        else:
            literal.append(None)
    found: List[Tuple[Code, ...]] = []

    def search(t: int, s: int, codes: Tuple[Code, ...], infer_used: bool) -> bool:
        """Collects every sequence (the caller picks the simplest); returns False so the
        search goes on."""
        if t == len(dims):
            if simulate(src, codes, dims, copy_rest=bool(written_rest)) == dims:
                found.append(codes)
            return False
        here = src[s] if s < len(src) else None
        real = here is not None and not is_rest(here)
        # 0: copy the next source dim
        if real and dims[t] == here and search(t + 1, s + 1, codes + (0,), infer_used):
            return True
        # -3: merge the next two source dims
        if (
            here is not None
            and real
            and s + 1 < len(src)
            and not is_rest(src[s + 1])
            and dims[t] == here * src[s + 1]
            and search(t + 1, s + 2, codes + (-3,), infer_used)
        ):
            return True
        # -2: copy all remaining source dims (a rest symbol only where the target writes it)
        tail = src[s:]
        if (
            tail
            and all(not is_rest(d) or t + j in written_rest for j, d in enumerate(tail))
            and list(dims[t : t + len(tail)]) == tail
            and search(t + len(tail), len(src), codes + (-2,), infer_used)
        ):
            return True
        # -4: split the next source dim into a literal and an inferred part
        if real and t + 1 < len(dims) and dims[t] * dims[t + 1] == here:
            for first, second in ((-1, literal[t + 1]), (literal[t], -1)):
                if first is not None and second is not None:
                    if search(t + 2, s + 1, codes + (-4, first, second), infer_used):
                        return True
        # a literal size (advances the source position too)
        size = literal[t]
        if size is not None and search(t + 1, s + 1, codes + (size,), infer_used):
            return True
        # -1: inferred from the total size (one dim: never a written tail, which -2 copies)
        if not infer_used and t not in written_rest and search(t + 1, s + 1, codes + (-1,), True):
            return True
        return False

    search(0, 0, (), False)
    if not found:
        return None

    def simplicity(codes: Tuple[Code, ...]):
        """Fewest -2/-4 (one code per written dim reads best), then shortest, then fewest -1."""
        return (
            sum(1 for c in codes if c in (-2, -4)),
            len(codes),
            sum(1 for c in codes if c == -1),
        )

    return min(found, key=simplicity)


def _forced_ones(
    src: Sequence[Dim],
    target: Sequence[Term],
    external: Callable[[str], bool],
    no_literal: Collection[int],
    derived: bool,
) -> Optional[Tuple[Code, ...]]:
    """Codes for a target without -1 whose size is that of the source dims it names, while the
    source has more (unknown trailing dims, dims never read): `(x.shape[0], x.shape[1] *
    x.shape[2] * x.shape[3])`. The original runs only where those other dims are 1s, so codes
    for the named dims that also hold with 1s there (`(0, -1)`; `(0, 0)`, not `(0, -2)`) are
    exact wherever it runs."""
    if not all(isinstance(t, Dim) and not is_rest(t) for t in target):
        return None
    written = {name for t in target for name in t.symbols()}  # type: ignore[union-attr]
    forced = [is_rest(d) or not set(d.symbols()) & written for d in src]
    if not any(forced) or any(f and len(d.powers) != 1 for d, f in zip(src, forced)):
        return None
    named = [d for d, f in zip(src, forced) if not f]
    if _product(target) != _product(named):  # type: ignore[arg-type]
        return None
    codes = synthesize_dims(named, target, external, no_literal, derived)
    ones = [ONE if f else d for d, f in zip(src, forced)]
    if codes is None or simulate(ones, codes, target) != list(target):  # type: ignore[arg-type]
        return None
    return codes
