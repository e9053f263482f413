"""HL003 on subscripts with new axes (`None`, `np.newaxis`): issue 20, item 8.

`x[:, None, :]` works on an NDArray and raises on a Symbol (`Symbol only support integer index
to fetch i-th output`). Its fix is `F.expand_dims` (with `F.slice_axis` / `F.slice` /
`F.squeeze` when the subscript also selects). For random shapes and subscripts (hypothesis) the
fixed block must give the original's eager result, eagerly and hybridized, on the bundled
engine and (marked `mxnet`) on real MXNet 1.9.1 (/tmp/mxv/bin/python -m pytest ...).
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fix_support import (
    BACKENDS,
    backend_module,
    block_source,
    build,
    data,
    engine_gaps_skipped,
    fix_settings,
    run,
)
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(40)
HEAD = "import numpy as np\n\n\n"


def hl003(source):
    return [f for f in lint_source(source) if f.code == "HL003"]


def check_fix(source, x, mx, safety):
    """The first HL003 finding has fix `safety` (None: report only); a fix runs to the
    original's eager result, eagerly and hybridized."""
    findings = hl003(source)
    assert findings and findings[0].fix == safety, (source, findings)
    fixed = fix_source(source, select=["HL003"], unsafe=True).source
    if safety is None:
        assert fixed == source
        return
    assert not hl003(fixed), fixed  # no subscript left
    try:
        expected = run(build(source, mx), [mx.nd.array(x)], hybridize=False)
    except Exception:  # the original itself fails on this input (too many indices)
        assume(False)
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            got = run(build(fixed, mx), [mx.nd.array(x)], hybridize)
            assert got.shape == expected.shape, (fixed, hybridize, got.shape, expected.shape)
            np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


@st.composite
def new_axis_subscript(draw):
    """(shape, subscript text, expected fix safety or None for report only).

    Items address the front axes, or with `...` the front and the last axes; 1 to 3 new axes
    (`None` or `np.newaxis`) go anywhere. Negative slice bounds stay within the axis."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    ellipsis = draw(st.booleans())
    n_front = draw(st.integers(0, len(shape)))
    n_back = draw(st.integers(0, len(shape) - n_front)) if ellipsis else 0
    axes = list(range(n_front)) + list(range(len(shape) - n_back, len(shape)))
    safety = "safe"
    items = []
    for k, axis in enumerate(axes):
        dim = shape[axis]
        after = k >= n_front  # the item follows `...`
        if draw(st.booleans()):
            items.append(str(draw(st.integers(-dim, dim - 1))))
            continue
        if after:  # `...` then a slice: slice_axis, which raises past the end (unsafe)
            lower = draw(st.one_of(st.none(), st.integers(-dim, dim - 1)))
            upper = draw(st.one_of(st.none(), st.integers(-dim, dim)))
            step = draw(st.sampled_from([None, None, 2]))
            if step is not None:
                safety = None
            elif lower is not None or upper is not None:
                safety = "unsafe" if safety == "safe" else safety
        else:
            lower = draw(st.one_of(st.none(), st.integers(-dim, dim + 2)))
            upper = draw(st.one_of(st.none(), st.integers(-dim, dim + 2)))
            step = draw(st.sampled_from([None, 1, 2, -1]))
            if any(b is not None and b < 0 for b in (lower, upper)) and safety == "safe":
                safety = "unsafe"
        text = f"{'' if lower is None else lower}:{'' if upper is None else upper}"
        items.append(text + ("" if step is None else f":{step}"))
    if ellipsis:
        items.insert(n_front, "...")
        if n_front and n_back or n_back > 1:
            safety = None  # items on both sides of `...`: report only
    for _ in range(draw(st.integers(1, 3))):
        spelling = draw(st.sampled_from(["None", "np.newaxis"]))
        items.insert(draw(st.integers(0, len(items))), spelling)
    return shape, ", ".join(items), safety


def _reference(x, subscript):
    return eval(f"x[{subscript}]", {"np": np, "x": x})


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=new_axis_subscript())
def test_new_axis_subscripts(backend, case):
    mx = backend_module(backend)
    shape, subscript, safety = case
    x = data(shape)
    assume(_reference(x, subscript).size > 0)
    source = HEAD + block_source(f"y = F.identity(x)\nreturn y[{subscript}]")
    check_fix(source, x, mx, safety)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=new_axis_subscript())
def test_new_axis_fluent_forms_in_a_helper_without_f(backend, case):
    mx = backend_module(backend)
    shape, subscript, safety = case
    x = data(shape)
    assume(_reference(x, subscript).size > 0)
    helper = f"def pick(t):\n    return t[{subscript}]\n\n\n"
    source = HEAD + helper + block_source("return pick(F.identity(x))")
    check_fix(source, x, mx, safety)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "subscript, fixed",
    [
        ("[:, None, :]", "F.expand_dims(y, axis=1)"),
        ("[None]", "F.expand_dims(y, axis=0)"),
        ("[:, :, None]", "F.expand_dims(y, axis=2)"),
        ("[..., None]", "F.expand_dims(y, axis=-1)"),
        ("[None, :, None]", "F.expand_dims(F.expand_dims(y, axis=0), axis=2)"),
        ("[np.newaxis, ..., None]", "F.expand_dims(F.expand_dims(y, axis=0), axis=-1)"),
        ("[:, None, 1:3]", "F.expand_dims(F.slice(y, begin=(None, 1), end=(None, 3)), axis=1)"),
        # an integer next to a new axis keeps its length-1 axis: never squeezed to (), which
        # MXNet would give the shape (1,) (x[0, None] on a vector is (1,), not (1, 1))
        ("[0, None]", "F.slice_axis(y, axis=0, begin=0, end=1)"),
        ("[None, -1]", "F.slice_axis(y, axis=0, begin=-1, end=None)"),
        ("[None, 0, 1]", "F.squeeze(F.slice(y, begin=(0, 1), end=(1, 2)), axis=1)"),
        (
            "[0, ..., None]",
            "F.squeeze(F.expand_dims(F.slice_axis(y, axis=0, begin=0, end=1), axis=-1), axis=0)",
        ),
    ],
)
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4)])
def test_new_axis_fix_text_and_values(backend, subscript, fixed, shape):
    mx = backend_module(backend)
    source = HEAD + block_source(f"y = F.identity(x)\nreturn y{subscript}")
    assert fix_source(source, select=["HL003"]).source == source.replace(f"y{subscript}", fixed)
    x = data(shape)
    try:
        expected = _reference(x, subscript[1:-1])
    except IndexError:  # too many indices for this shape
        return
    got = run(build(fix_source(source, select=["HL003"]).source, mx), [mx.nd.array(x)], True)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.asnumpy(), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ndarray_takes_new_axes_and_symbol_does_not(backend):
    """What the rule rests on, on both backends: eagerly None is numpy's new axis (and a fully
    indexed array keeps the shape (1,) unless a new axis gives it one); a Symbol raises."""
    mx = backend_module(backend)
    x = data((2, 3))
    nd = mx.nd.array(x)
    for subscript in ("[:, None]", "[None]", "[..., None]", "[0, None]", "[None, 0, 1]"):
        got = eval(f"nd{subscript}")
        np.testing.assert_array_equal(got.asnumpy(), eval(f"x{subscript}"), err_msg=subscript)
    assert nd[0, 1].shape == (1,)
    assert mx.nd.array(x[0])[0, None].shape == (1,)
    symbol = mx.sym.var("x")
    for subscript in ("[:, None]", "[None]", "[..., None]", "[0, None]"):
        with pytest.raises(TypeError, match="integer index"):
            eval(f"symbol{subscript}", {"symbol": symbol})


def test_a_name_bound_elsewhere_to_newaxis_is_not_taken_for_one():
    # `newaxis` not imported from numpy: an unknown name, reported without a fix
    source = block_source("y = F.identity(x)\nreturn y[:, newaxis]")
    findings = hl003(source)
    assert findings and findings[0].fix is None
    imported = "from numpy import newaxis\n\n\n" + source
    assert fix_source(imported, select=["HL003"]).source == imported.replace(
        "y[:, newaxis]", "F.expand_dims(y, axis=1)"
    )
