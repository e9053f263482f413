"""Constructor arguments guessed for a block that no example configures (inferred.py).

A block whose `__init__` has required parameters can only be run on an inferred example
when a value can be given for each. The type the code states wins (an annotation, or a
numpy/Google-style docstring entry `channels : int`). A parameter of no stated type is
guessed from its name, with the conventions gluon code follows (`batch_size`, `height`,
`mean`/`std`, `eos_id`, `margin`, `num_classes`), or from its one telling use in `__init__`
(`mx.nd.array(mean)`: a list of numbers). Anything else leaves the block without an example.

Why a guess is safe to try: an inferred example is kept only when the *original* block runs
eagerly on it, and everything `--verify` then proves is proven on that input, as on a
configured one. A guess that builds a block its callers never build costs an eager run and is
dropped; one that builds an odd but runnable block proves fixes on an odd input, which is
still a proof. The hazard is a guess under which *working* code fails eagerly in a way its
callers never see (a stride as large as the map: a residual sum that broadcasts eagerly only),
so names known to be steps or counts of layers get 1, not a width (`STEP_NAME`).

Some guesses depend on the trial input, and are markers until a trial resolves them
(`resolve`): the channel count (axis 1 of the first input, a vector's length), the batch size
(axis 0), the height and width (its last two axes), and a list of one number per channel.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Dict, Optional, Sequence, Tuple

CHANNELS = "<channels>"
BATCH = "<batch>"
HEIGHT = "<height>"
WIDTH = "<width>"
PER_CHANNEL = "<per channel>"  # a list of numbers, one per channel (an RGB `mean`)
MARKERS = (CHANNELS, BATCH, HEIGHT, WIDTH, PER_CHANNEL)
GUESSED_FLOAT = 0.1
NO_GUESS = object()

# a required argument with no stated type named like a count of channels or units (gluon's
# own: `in_channels`, `channels`, `units`, `in_units`): an int, the trial input's channels
COUNT_NAME = re.compile(r"^(?:in_|out_|num_)?(?:channels|units|filters|hidden|hidden_size)$")
# an int argument named as a step, a count of groups or layers, an axis (`stride`, `groups`,
# `dilation`, `num_layers`, `heads`) is guessed 1; any other (`in_channels`, `units`,
# `d_model`, `in_chs`, `classes`) the trial input's channels. The channel count as a stride
# shrinks the map to 1x1, and a residual sum then broadcasts eagerly only, a hazard of the
# guess, not of the block (gluoncv's BasicBlockV1); 1 as a width (`d_model`) does the same to
# `x + self.proj(x)`, so only names known not to be widths get 1
_STEPS = (
    r"strides?|groups|dilations?|dilate|kernel(?:_size)?|layers|heads|axis|repeats?|blocks|stages"
)
STEP_NAME = re.compile(rf"^(?:num_)?(?:{_STEPS}|depth)$", re.I)
# an int named as a resampling factor (`scale : int` of a space-to-depth block, `scale_factor`,
# `upscale_factor`, `reduction`) is guessed 2: a factor the trial's even sizes divide. Its
# channel count (3 at rank 4) fails the block's own `assert h % scale == 0` and 1 would prove
# the rewrite only where it is the identity. Untyped, only a name that is nothing but a
# resampling factor: an untyped `scale` or `smoothing_factor` is as often a float coefficient
FACTOR_NAME = re.compile(r"^(?:scale|factor|reduction|(?:up|down)scale|\w+_factor)$", re.I)
_UNTYPED_FACTOR_NAME = re.compile(r"^(?:(?:up|down)?(?:scale|sample|sampling)_)?factor$", re.I)
GUESSED_FACTOR = 2
# untyped, `depth` is no step: a channel width as often as a count of layers (an untyped
# `depth` of 1 made `x + self.conv(x)` broadcast eagerly only, a review's case)
_UNTYPED_STEP_NAME = re.compile(rf"^(?:num_)?(?:{_STEPS})$", re.I)

# Names of untyped parameters, first match first (README: What --verify proves).
_NAMED: Tuple[Tuple[re.Pattern, Any], ...] = (
    # the input's own sizes: a block that builds a grid or a mask for one input size
    (re.compile(r"^(?:batch|batch_?size|bs|n_batch|num_batch)$", re.I), BATCH),
    (re.compile(r"^(?:h|height|img_h|img_height|image_height|in_height|input_height)$"), HEIGHT),
    (re.compile(r"^(?:w|width|img_w|img_width|image_width|in_width|input_width)$"), WIDTH),
    # per-channel statistics (a normalization's `mean=(0.485, 0.456, 0.406)`)
    (re.compile(r"^(?:means?|stds?|\w+_(?:means?|stds?))$"), PER_CHANNEL),
    # a token or class id (`eos_id`, `ignore_index`): any valid id; 1, as 0 is often padding
    (re.compile(r"^(?:\w+_id|\w+_idx|\w+_index|idx|index)$"), 1),
    # switches (`use_bias`, `is_train`): off, the default path of most blocks
    (re.compile(r"^(?:use|is|with|has|enable|return)_\w+$"), False),
    # resampling factors (`scale_factor`, `upscale_factor`)
    (_UNTYPED_FACTOR_NAME, GUESSED_FACTOR),
    # coefficients and rates
    (
        re.compile(
            r"^(?:alpha|beta|gamma|lambda_?|lamb|lambd|margin|eps|epsilon|scale|temperature"
            r"|momentum|rate|ratio|threshold|thresh|coef|smoothing|smoothing_parameter"
            r"|\w+_(?:rate|ratio|weight|coef|scale|eps|epsilon|margin|thresh|threshold))$"
        ),
        GUESSED_FLOAT,
    ),
    # steps and counts of layers (not `depth`: _UNTYPED_STEP_NAME)
    (_UNTYPED_STEP_NAME, 1),
    # counts and widths: the trial input's channel count
    (COUNT_NAME, CHANNELS),
    (
        re.compile(
            r"^(?:num_\w+|n_\w+|\w+_num|dim|dims|\w+_dims?|size|\w+_size|k|top_?k|classes"
            r"|\w+_classes|length|\w+_len(?:gth)?)$"
        ),
        CHANNELS,
    ),
)

# numpy style (`channels : int`) and Google style (`channels (int): ...`) parameter entries
_NUMPY_ENTRY = re.compile(r"^\s*(\w+)\s*:\s*(\S.*?)\s*$")
_GOOGLE_ENTRY = re.compile(r"^\s*(\w+)\s*\(([^)]*)\)\s*:")
# a stated type that is a sequence of numbers (`list of float`, `tuple of 3 floats`)
_LIST_TYPE = re.compile(r"^\s*(?:list|tuple|sequence|iterable)\b.*\b(?:float|number)s?\b", re.I)
# calls that make an array of their first argument (`mx.nd.array(mean)`, `np.asarray(std)`)
_ARRAY_MAKERS = frozenset({"array", "asarray", "tensor"})


def documented_types(docstrings: Sequence[Optional[str]]) -> Dict[str, str]:
    """name -> the type text of each parameter entry of the docstrings, first entry first."""
    types: Dict[str, str] = {}
    for doc in docstrings:
        for line in (doc or "").splitlines():
            match = _NUMPY_ENTRY.match(line) or _GOOGLE_ENTRY.match(line)
            if match:
                types.setdefault(match.group(1), match.group(2))
    return types


def from_stated(stated: str) -> Any:
    """A value of the stated type (an annotation or a docstring entry), or NO_GUESS."""
    text = stated.strip().rstrip(".").lower()
    text = re.split(r",\s*(?:optional|default)", text)[0].strip()
    optional = re.fullmatch(r"(?:typing\.)?optional\[(.*)\]", text)
    alternatives = [t.strip() for t in re.split(r"\s+or\s+|\|", text)]
    if optional or "none" in alternatives:
        return None
    first = alternatives[0] if alternatives else ""
    if first == "int":
        return CHANNELS
    if first == "float":
        return GUESSED_FLOAT
    if first == "bool":
        return False
    return NO_GUESS


def from_name(name: str) -> Any:
    """A value for an untyped parameter named `name`, or NO_GUESS."""
    for pattern, value in _NAMED:
        if pattern.match(name):
            return value
    return NO_GUESS


def from_use(name: str, init: ast.FunctionDef) -> Any:
    """A value for an untyped parameter from its use in `__init__`: made into an array
    (`self.mean = mx.nd.array(mean)`) it is a list of numbers, one per channel; else
    NO_GUESS."""
    for node in ast.walk(init):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        first = node.args[0]
        if called in _ARRAY_MAKERS and isinstance(first, ast.Name) and first.id == name:
            return PER_CHANNEL
    return NO_GUESS


def argument_value(arg: ast.arg, documented: Dict[str, str], init: ast.FunctionDef) -> Any:
    """The guess for a required parameter of `init`: from its stated type (for an int, the
    name may say which size; a list of numbers may take its values from the name or use), else
    from its name, then its use; NO_GUESS when none says."""
    stated = _annotation(arg.annotation) or documented.get(arg.arg, "")
    if stated and _names_a_type(stated):
        value = from_stated(stated)
        if value == CHANNELS:
            if STEP_NAME.match(arg.arg):
                return 1  # `stride`, `groups`, `num_layers`: 1 keeps every shape as it is
            if FACTOR_NAME.match(arg.arg):
                return GUESSED_FACTOR  # `scale : int`, `scale_factor: int`
            named = from_name(arg.arg)
            return named if named in (BATCH, HEIGHT, WIDTH, 1) else value  # `batch_size: int`
        if value is NO_GUESS and _LIST_TYPE.search(stated):
            # `mean : tuple of float`: the name may say what the list holds; any other
            # name guess would contradict the type (`in_size : tuple of 2 int` is no count)
            named = from_name(arg.arg)
            return named if named == PER_CHANNEL else from_use(arg.arg, init)
        return value
    value = from_name(arg.arg)
    return value if value is not NO_GUESS else from_use(arg.arg, init)


def _annotation(annotation: Optional[ast.expr]) -> str:
    """An annotation's text; a string annotation (`channels: "int"`) without its quotes."""
    if annotation is None:
        return ""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value
    return ast.unparse(annotation)


# the first word of a docstring entry that states a type: a builtin, a typing or numpy
# spelling, a dotted name (`mx.nd.NDArray`) or a class name (`HybridBlock`); anything else
# (`mean: the mean of each channel`, Google style without a type) states none
_TYPE_WORDS = frozenset(
    "int integer float bool boolean str string list tuple dict set sequence iterable callable "
    "function func none optional union any object array ndarray symbol tensor type".split()
)


def _names_a_type(text: str) -> bool:
    word = re.split(r"[\s,(\[{:]", text.strip(), maxsplit=1)[0]
    return bool(word) and (word.lower() in _TYPE_WORDS or "." in word or word[0].isupper())


def is_marker(value: Any) -> bool:
    """Whether `value` is a guess a trial input resolves (`resolve`)."""
    return isinstance(value, str) and value in MARKERS


def resolve(value: Any, shapes: Sequence[Tuple[int, ...]]) -> Any:
    """`value` for a trial whose inputs have `shapes`: a marker becomes the first input's
    channel count, batch size, height or width, or a list of one number per channel."""
    if not is_marker(value):
        return value
    first = shapes[0] if shapes and shapes[0] else (1,)  # a scalar input: sizes of 1
    channels = first[1] if len(first) > 1 else first[0]
    if value == CHANNELS:
        return channels
    if value == BATCH:
        return first[0]
    if value == HEIGHT:
        return first[-2] if len(first) > 2 else first[-1]
    if value == WIDTH:
        return first[-1]
    return [round(0.1 * (i + 1), 6) for i in range(channels)]  # distinct, none 0
